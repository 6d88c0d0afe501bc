use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// Consumes.
    #[tool]
    fn consume(self) -> String {
        String::new()
    }
}

fn main() {}
