use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// The index.
    #[resource(uri = "notes://index")]
    fn index(&self) -> String {
        String::new()
    }

    /// The index again.
    #[resource(uri = "notes://index")]
    fn index_again(&self) -> String {
        String::new()
    }
}

fn main() {}
