use ferromcp::prelude::*;

struct S;

struct Window {
    width: u32,
}

#[ferromcp::server]
impl S {
    /// Resizes.
    #[tool]
    fn resize(&self, window: Window) -> u32 {
        window.width
    }
}

fn main() {}
