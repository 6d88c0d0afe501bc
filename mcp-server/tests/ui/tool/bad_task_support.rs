use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Builds a report.
    #[tool(task_support = "sometimes")]
    async fn report(&self) -> String {
        String::new()
    }
}

fn main() {}
