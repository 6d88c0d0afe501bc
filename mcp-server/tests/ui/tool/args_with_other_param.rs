use std::collections::HashMap;

use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Searches.
    #[tool]
    fn search(&self, #[args] input: HashMap<String, String>, limit: u32) -> String {
        format!("{} {limit}", input.len())
    }
}

fn main() {}
