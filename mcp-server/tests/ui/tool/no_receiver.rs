use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// Static.
    #[tool]
    fn stateless(text: String) -> String {
        text
    }
}

fn main() {}
