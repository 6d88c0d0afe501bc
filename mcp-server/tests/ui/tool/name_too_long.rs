use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Runs.
    #[tool(name = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")]
    fn run(&self) -> String {
        String::new()
    }
}

fn main() {}
