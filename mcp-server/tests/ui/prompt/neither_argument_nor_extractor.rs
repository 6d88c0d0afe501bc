use mcp_server::prelude::*;

struct Window {
    days: u32,
}

struct S;

#[mcp_server::server]
impl S {
    /// A summary over a window.
    #[prompt]
    fn summary(&self, window: Window) -> String {
        window.days.to_string()
    }
}

fn main() {}
