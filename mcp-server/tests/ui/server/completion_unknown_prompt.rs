use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Reviews.
    #[prompt]
    fn review(&self, style: String) -> String {
        style
    }

    #[completion(prompt = "reveiw", argument = "style")]
    fn complete(&self, value: String) -> Vec<String> {
        vec![value]
    }
}

fn main() {}
