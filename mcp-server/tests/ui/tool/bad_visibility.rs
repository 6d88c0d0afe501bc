use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Refreshes the rows.
    #[tool(ui = "ui://orders/table.html", visibility = ["app", "user"])]
    async fn refresh_rows(&self) -> String {
        String::new()
    }
}

fn main() {}
