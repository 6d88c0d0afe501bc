use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// A count.
    #[resource(uri = "notes://count")]
    fn count(&self) -> usize {
        0
    }
}

fn main() {}
