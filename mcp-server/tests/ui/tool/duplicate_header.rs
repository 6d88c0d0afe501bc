use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// Copies.
    #[tool]
    fn copy(
        &self,
        #[arg(header = "Region")] from: String,
        #[arg(header = "region")] to: String,
    ) -> String {
        format!("{from} {to}")
    }
}

fn main() {}
