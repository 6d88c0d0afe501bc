use ferromcp::prelude::*;

struct S;

// The misspelled parameter is reported (twice: the variable has no parameter, the parameter
// is no variable); the completion of that template's `id` is not a third error.
#[ferromcp::server]
impl S {
    /// A note.
    #[resource(uri = "notes://{id}")]
    fn note(&self, idd: u64) -> String {
        idd.to_string()
    }

    #[completion(resource = "notes://{id}", argument = "id")]
    fn note_ids(&self, value: String) -> Vec<String> {
        vec![value]
    }
}

fn main() {}
