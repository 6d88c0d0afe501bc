use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Echoes.
    #[tool]
    fn echo<T: ToString>(&self, value: T) -> String {
        value.to_string()
    }
}

fn main() {}
