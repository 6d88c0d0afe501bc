use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// Joins.
    #[tool]
    fn join(&self, parts: Vec<&str>) -> String {
        parts.join(",")
    }
}

fn main() {}
