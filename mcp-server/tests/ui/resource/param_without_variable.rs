use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// A note.
    #[resource(uri = "notes://{id}")]
    fn note(&self, id: u64, idx: u64) -> String {
        (id + idx).to_string()
    }
}

fn main() {}
