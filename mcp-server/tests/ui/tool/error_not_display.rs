use mcp_server::prelude::*;

struct S;

struct Oops;

#[mcp_server::server]
impl S {
    /// Fails.
    #[tool]
    fn fail(&self) -> Result<String, Oops> {
        Err(Oops)
    }
}

fn main() {}
