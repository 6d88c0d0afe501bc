use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// Runs.
    #[tool(name = "")]
    fn run(&self) -> String {
        String::new()
    }
}

fn main() {}
