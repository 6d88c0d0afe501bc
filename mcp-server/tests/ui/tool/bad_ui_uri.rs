use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Lists the orders.
    #[tool(ui = "https://example.com/orders.html")]
    async fn list_orders(&self) -> String {
        String::new()
    }
}

fn main() {}
