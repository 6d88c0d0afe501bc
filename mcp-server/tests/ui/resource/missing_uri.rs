use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// A note.
    #[resource(name = "note")]
    fn note(&self) -> String {
        String::new()
    }
}

fn main() {}
