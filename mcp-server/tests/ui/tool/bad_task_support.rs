use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// Builds a report.
    #[tool(task_support = "sometimes")]
    async fn report(&self) -> String {
        String::new()
    }
}

fn main() {}
