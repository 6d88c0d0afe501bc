struct S;

trait Runner {
    fn run(&self) -> String;
}

#[ferromcp::server]
impl Runner for S {
    fn run(&self) -> String {
        String::new()
    }
}

fn main() {}
