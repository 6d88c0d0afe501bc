use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Reads.
    #[tool(read_onyl)]
    fn read(&self) -> String {
        String::new()
    }
}

fn main() {}
