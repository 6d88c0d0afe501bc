use ferromcp::prelude::*;

struct S;

struct Oops;

#[ferromcp::server]
impl S {
    /// Fails.
    #[tool]
    fn fail(&self) -> Result<String, Oops> {
        Err(Oops)
    }
}

fn main() {}
