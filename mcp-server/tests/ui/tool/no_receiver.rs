use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Static.
    #[tool]
    fn stateless(text: String) -> String {
        text
    }
}

fn main() {}
