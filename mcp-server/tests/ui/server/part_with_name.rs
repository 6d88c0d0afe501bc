use ferromcp::prelude::*;

struct Notes;

#[ferromcp::server(part = admin, name = "admin")]
impl Notes {
    /// Deletes every note.
    #[tool]
    fn purge(&self) -> String {
        String::new()
    }
}

#[ferromcp::server(name = "notes", parts(admin))]
impl Notes {
    /// Lists the notes.
    #[tool]
    fn list(&self) -> String {
        String::new()
    }
}

fn main() {}
