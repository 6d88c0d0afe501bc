use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Greets.
    #[tool]
    fn greet(&self, #[extract] name: String) -> String {
        name
    }
}

fn main() {}
