use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// Echoes.
    #[tool]
    fn echo(&self, text: &str) -> String {
        text.to_owned()
    }
}

fn main() {}
