use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// Reviews.
    #[prompt]
    fn review(&self, style: &str) -> String {
        style.to_owned()
    }
}

fn main() {}
