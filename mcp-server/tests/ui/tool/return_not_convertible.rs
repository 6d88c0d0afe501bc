use ferromcp::prelude::*;

struct S;

struct Report {
    lines: usize,
}

#[ferromcp::server]
impl S {
    /// Reports.
    #[tool]
    fn report(&self) -> Report {
        Report { lines: 0 }
    }
}

fn main() {}
