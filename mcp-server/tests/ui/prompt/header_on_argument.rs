use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Greets.
    #[prompt]
    fn greet(&self, #[arg(header = "Name")] name: String) -> String {
        format!("Hello, {name}")
    }
}

fn main() {}
