use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Counts.
    #[tool]
    fn count(&mut self) -> String {
        String::new()
    }
}

fn main() {}
