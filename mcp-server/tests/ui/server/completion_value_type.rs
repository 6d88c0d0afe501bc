use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Reviews.
    #[prompt]
    fn review(&self, style: String) -> String {
        style
    }

    #[completion(prompt = "review", argument = "style")]
    fn complete(&self, value: u32) -> Vec<String> {
        vec![value.to_string()]
    }
}

fn main() {}
