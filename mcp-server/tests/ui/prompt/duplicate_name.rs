use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Reviews.
    #[prompt]
    fn review(&self) -> String {
        String::new()
    }

    /// Reviews again.
    #[prompt(name = "review")]
    fn review_again(&self) -> String {
        String::new()
    }
}

fn main() {}
