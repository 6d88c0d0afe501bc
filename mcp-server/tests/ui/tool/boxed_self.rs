use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// Boxed.
    #[tool]
    fn boxed(self: Box<Self>) -> String {
        String::new()
    }
}

fn main() {}
