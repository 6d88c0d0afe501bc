use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Adds a note.
    ///
    /// # Arguments
    /// * `titel` - a short title
    #[tool]
    fn add_note(&self, title: String) -> String {
        title
    }
}

fn main() {}
