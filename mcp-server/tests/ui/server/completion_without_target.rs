use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    #[completion(argument = "id")]
    fn complete(&self, value: String) -> Vec<String> {
        vec![value]
    }
}

fn main() {}
