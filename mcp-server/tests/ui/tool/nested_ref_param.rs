use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Joins.
    #[tool]
    fn join(&self, parts: Vec<&str>) -> String {
        parts.join(",")
    }
}

fn main() {}
