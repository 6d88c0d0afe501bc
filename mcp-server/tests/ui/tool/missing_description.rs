use mcp_server::prelude::*;

struct S;

#[mcp_server::server]
impl S {
    #[tool]
    fn run(&self) -> String {
        String::new()
    }
}

fn main() {}
