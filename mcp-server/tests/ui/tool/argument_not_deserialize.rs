use mcp_server::prelude::*;

struct S;

struct Window {
    width: u32,
}

#[mcp_server::server]
impl S {
    /// Resizes.
    #[tool]
    fn resize(&self, window: Window) -> u32 {
        window.width
    }
}

fn main() {}
