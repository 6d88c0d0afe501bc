use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Copies.
    #[tool]
    fn copy(
        &self,
        #[arg(header = "Region")] from: String,
        #[arg(header = "region")] to: String,
    ) -> String {
        format!("{from} {to}")
    }
}

fn main() {}
