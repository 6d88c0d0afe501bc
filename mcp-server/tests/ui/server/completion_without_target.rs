use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    #[completion(argument = "id")]
    fn complete(&self, value: String) -> Vec<String> {
        vec![value]
    }
}

fn main() {}
