use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// Both.
    #[tool]
    #[prompt]
    fn both(&self) -> String {
        String::new()
    }
}

fn main() {}
