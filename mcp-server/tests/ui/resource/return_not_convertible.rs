use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// A count.
    #[resource(uri = "notes://count")]
    fn count(&self) -> usize {
        0
    }
}

fn main() {}
