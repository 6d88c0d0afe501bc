use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Runs a query.
    #[tool]
    fn run(&self, #[arg(header = "My Region")] region: String) -> String {
        region
    }
}

fn main() {}
