use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// `#[arg]` marks an argument; `Context` is an extractor.
    #[tool]
    fn ask(&self, #[arg(description = "the request")] ctx: Context) -> String {
        format!("{:?}", ctx.request_id())
    }
}

fn main() {}
