use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// Echoes.
    #[tool]
    fn echo<T: ToString>(&self, value: T) -> String {
        value.to_string()
    }
}

fn main() {}
