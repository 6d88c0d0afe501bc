use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// Reviews.
    #[prompt]
    fn review(&self, #[args] style: String) -> String {
        style
    }
}

fn main() {}
