use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// Greets.
    #[prompt]
    fn greet(&self, #[arg(header = "Name")] name: String) -> String {
        format!("Hello, {name}")
    }
}

fn main() {}
