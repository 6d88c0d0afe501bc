use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    #[tool]
    fn run(&self) -> String {
        String::new()
    }
}

fn main() {}
