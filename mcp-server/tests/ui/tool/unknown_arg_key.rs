use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Describes.
    #[tool]
    fn describe(&self, #[arg(renam = "type")] kind: String) -> String {
        kind
    }
}

fn main() {}
