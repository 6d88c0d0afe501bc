use mcp_server::prelude::*;

struct S;

struct Report {
    lines: usize,
}

#[mcp_server::server]
impl S {
    /// Reports.
    #[tool]
    fn report(&self) -> Report {
        Report { lines: 0 }
    }
}

fn main() {}
