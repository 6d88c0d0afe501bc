use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// Reviews.
    #[prompt]
    fn review(&self) -> u32 {
        0
    }
}

fn main() {}
