use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    #[prompt]
    fn review(&self, id: u64) -> String {
        id.to_string()
    }
}

fn main() {}
