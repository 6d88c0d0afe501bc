use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// Unsafe.
    #[tool]
    unsafe fn danger(&self) -> String {
        String::new()
    }
}

fn main() {}
