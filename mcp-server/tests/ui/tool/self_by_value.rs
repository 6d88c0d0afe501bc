use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Consumes.
    #[tool]
    fn consume(self) -> String {
        String::new()
    }
}

fn main() {}
