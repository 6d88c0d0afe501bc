use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Runs.
    #[tool(name = "")]
    fn run(&self) -> String {
        String::new()
    }
}

fn main() {}
