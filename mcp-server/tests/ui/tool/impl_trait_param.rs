use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// Echoes.
    #[tool]
    fn echo(&self, text: impl Into<String>) -> String {
        text.into()
    }
}

fn main() {}
