use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Reviews.
    #[prompt]
    fn review(&self, #[args] style: String) -> String {
        style
    }
}

fn main() {}
