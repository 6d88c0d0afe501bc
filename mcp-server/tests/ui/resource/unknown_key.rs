use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// A note.
    #[resource(uri = "notes://index", mime = "text/plain")]
    fn index(&self) -> String {
        String::new()
    }
}

fn main() {}
