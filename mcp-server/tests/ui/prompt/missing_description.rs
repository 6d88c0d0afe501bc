use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    #[prompt]
    fn review(&self, id: u64) -> String {
        id.to_string()
    }
}

fn main() {}
