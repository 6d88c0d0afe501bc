use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// A note.
    #[resource(uri = "notes://{id}")]
    fn note(&self, id: u64) -> String {
        id.to_string()
    }

    #[completion(resource = "note://{id}", argument = "id")]
    fn complete(&self, value: String) -> Vec<String> {
        vec![value]
    }
}

fn main() {}
