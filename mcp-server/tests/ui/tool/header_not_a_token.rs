use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// Runs a query.
    #[tool]
    fn run(&self, #[arg(header = "My Region")] region: String) -> String {
        region
    }
}

fn main() {}
