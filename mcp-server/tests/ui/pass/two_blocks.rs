//! Two `#[server]` blocks on one type: a `part`, registered by the main block that names it.
#![deny(warnings, unreachable_pub, missing_docs)]

use ferromcp::prelude::*;

/// Notes.
pub(crate) struct Notes;

#[ferromcp::server(part = admin, scopes = ["notes:admin"])]
impl Notes {
    /// Deletes every note.
    #[tool(destructive)]
    fn purge(&self) -> String {
        "done".to_owned()
    }
}

#[ferromcp::server(name = "notes", parts(admin))]
impl Notes {
    /// Lists the notes.
    #[tool]
    fn list(&self) -> String {
        "none".to_owned()
    }
}

fn main() {
    let server = Server::new(Notes).map_err(|e| e.to_string());
    let names = server.map(|s| s.registry().tool_names());
    assert_eq!(names, Ok(vec!["list".to_owned(), "purge".to_owned()]));
}
