use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// Counts.
    #[tool]
    fn count(&mut self) -> String {
        String::new()
    }
}

fn main() {}
