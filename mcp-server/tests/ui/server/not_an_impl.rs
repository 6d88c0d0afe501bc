#[mcp_server::server]
struct S;

fn main() {}
