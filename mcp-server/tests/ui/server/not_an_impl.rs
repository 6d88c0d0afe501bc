#[ferromcp::server]
struct S;

fn main() {}
