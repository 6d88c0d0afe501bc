use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// A note.
    #[resource(uri = "notes://{folder}/{id}")]
    fn note(&self, id: u64) -> String {
        id.to_string()
    }
}

fn main() {}
