use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Reviews.
    #[prompt]
    fn review(&self, style: &str) -> String {
        style.to_owned()
    }
}

fn main() {}
