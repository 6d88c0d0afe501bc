use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// Ignores.
    #[tool]
    fn ignore(&self, _: String) -> String {
        String::new()
    }
}

fn main() {}
