use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Takes a function.
    #[tool]
    fn call(&self, f: fn() -> i64) -> i64 {
        f()
    }
}

fn main() {}
