use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// A note.
    #[resource(name = "note")]
    fn note(&self) -> String {
        String::new()
    }
}

fn main() {}
