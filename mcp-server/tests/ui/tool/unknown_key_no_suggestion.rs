use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Reads.
    #[tool(colour = "blue")]
    fn read(&self) -> String {
        String::new()
    }
}

fn main() {}
