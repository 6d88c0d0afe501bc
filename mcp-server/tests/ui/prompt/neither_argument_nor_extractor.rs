use ferromcp::prelude::*;

struct Window {
    days: u32,
}

struct S;

#[ferromcp::server]
impl S {
    /// A summary over a window.
    #[prompt]
    fn summary(&self, window: Window) -> String {
        window.days.to_string()
    }
}

fn main() {}
