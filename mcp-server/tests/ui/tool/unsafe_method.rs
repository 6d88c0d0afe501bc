use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Unsafe.
    #[tool]
    unsafe fn danger(&self) -> String {
        String::new()
    }
}

fn main() {}
