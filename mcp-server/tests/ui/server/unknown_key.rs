use ferromcp::prelude::*;

struct S;

#[ferromcp::server(nmae = "s")]
impl S {
    /// Runs.
    #[tool]
    fn run(&self) -> String {
        String::new()
    }
}

fn main() {}
