use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Waits.
    #[tool(timeout_ms = 0)]
    fn wait(&self) -> String {
        String::new()
    }
}

fn main() {}
