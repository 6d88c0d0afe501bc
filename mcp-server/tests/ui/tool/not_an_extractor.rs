use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// Greets.
    #[tool]
    fn greet(&self, #[extract] name: String) -> String {
        name
    }
}

fn main() {}
