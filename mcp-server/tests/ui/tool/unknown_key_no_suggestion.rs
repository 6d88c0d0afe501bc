use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// Reads.
    #[tool(colour = "blue")]
    fn read(&self) -> String {
        String::new()
    }
}

fn main() {}
