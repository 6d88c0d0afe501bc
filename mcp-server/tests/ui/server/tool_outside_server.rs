use ferromcp::prelude::*;

struct S;

impl S {
    /// Runs.
    #[tool]
    fn run(&self) -> String {
        String::new()
    }
}

fn main() {}
