use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// Describes.
    #[tool]
    fn describe(&self, #[arg(renam = "type")] kind: String) -> String {
        kind
    }
}

fn main() {}
