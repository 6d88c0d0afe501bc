use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Echoes.
    #[tool]
    fn echo(&self, text: impl Into<String>) -> String {
        text.into()
    }
}

fn main() {}
