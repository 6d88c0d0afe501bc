use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// A note.
    #[resource(uri = "notes://{id}")]
    fn note(&self, id: &str) -> String {
        id.to_owned()
    }
}

fn main() {}
