use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// A note.
    #[resource(uri = "notes://index", mime = "text/plain")]
    fn index(&self) -> String {
        String::new()
    }
}

fn main() {}
