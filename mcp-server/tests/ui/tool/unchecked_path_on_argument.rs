use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// Reads a file.
    #[tool]
    fn read(&self, #[arg(unchecked_path)] path: String) -> String {
        path
    }
}

fn main() {}
