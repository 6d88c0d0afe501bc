use std::collections::HashMap;

use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    /// Searches.
    #[tool]
    fn search(&self, #[args] input: HashMap<String, String>, limit: u32) -> String {
        format!("{} {limit}", input.len())
    }
}

fn main() {}
