use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Reviews.
    #[prompt]
    fn review(&self) -> u32 {
        0
    }
}

fn main() {}
