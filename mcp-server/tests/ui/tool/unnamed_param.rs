use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Ignores.
    #[tool]
    fn ignore(&self, _: String) -> String {
        String::new()
    }
}

fn main() {}
