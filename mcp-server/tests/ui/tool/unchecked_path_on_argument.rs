use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Reads a file.
    #[tool]
    fn read(&self, #[arg(unchecked_path)] path: String) -> String {
        path
    }
}

fn main() {}
