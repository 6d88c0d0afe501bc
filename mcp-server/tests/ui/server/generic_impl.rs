use mcp_server::prelude::*;

struct S<T>(T);

#[mcp_server::server]
impl<T: Send + Sync + 'static> S<T> {
    /// Runs.
    #[tool]
    fn run(&self) -> String {
        String::new()
    }
}

fn main() {}
