use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Runs.
    #[tool]
    fn run(&self) -> String {
        String::new()
    }

    /// Runs too.
    #[tool(name = "run")]
    fn run_again(&self) -> String {
        String::new()
    }
}

fn main() {}
