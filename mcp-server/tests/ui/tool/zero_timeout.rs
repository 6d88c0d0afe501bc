use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// Waits.
    #[tool(timeout_ms = 0)]
    fn wait(&self) -> String {
        String::new()
    }
}

fn main() {}
