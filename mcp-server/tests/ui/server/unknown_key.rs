use mcp_server::prelude::*;

struct S;

#[mcp_server::server(nmae = "s")]
impl S {
    /// Runs.
    #[tool]
    fn run(&self) -> String {
        String::new()
    }
}

fn main() {}
