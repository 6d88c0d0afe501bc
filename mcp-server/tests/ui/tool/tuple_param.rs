use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Adds.
    #[tool]
    fn add(&self, pair: (i64, i64)) -> String {
        (pair.0 + pair.1).to_string()
    }
}

fn main() {}
