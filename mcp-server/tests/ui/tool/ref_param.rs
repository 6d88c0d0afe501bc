use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Echoes.
    #[tool]
    fn echo(&self, text: &str) -> String {
        text.to_owned()
    }
}

fn main() {}
