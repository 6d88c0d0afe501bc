use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Both.
    #[tool]
    #[prompt]
    fn both(&self) -> String {
        String::new()
    }
}

fn main() {}
