use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Boxed.
    #[tool]
    fn boxed(self: Box<Self>) -> String {
        String::new()
    }
}

fn main() {}
