use ferromcp::prelude::*;

struct S<T>(T);

#[ferromcp::server]
impl<T: Send + Sync + 'static> S<T> {
    /// Runs.
    #[tool]
    fn run(&self) -> String {
        String::new()
    }
}

fn main() {}
