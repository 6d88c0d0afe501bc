struct S;

trait Runner {
    fn run(&self) -> String;
}

#[mcp_server::server]
impl Runner for S {
    fn run(&self) -> String {
        String::new()
    }
}

fn main() {}
