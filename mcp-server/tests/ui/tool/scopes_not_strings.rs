use mcp_server::prelude::*;

struct S;

const WRITE: &str = "incidents:write";

#[mcp_server::server]
impl S {
    /// Writes.
    #[tool(scopes = ["incidents:read", WRITE])]
    fn write(&self) -> String {
        String::new()
    }
}

fn main() {}
