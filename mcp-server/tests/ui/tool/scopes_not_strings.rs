use ferromcp::prelude::*;

struct S;

const WRITE: &str = "incidents:write";

#[ferromcp::server]
impl S {
    /// Writes.
    #[tool(scopes = ["incidents:read", WRITE])]
    fn write(&self) -> String {
        String::new()
    }
}

fn main() {}
