use ferromcp::prelude::*;

struct S;

#[ferromcp::server]
impl S {
    /// Echoes.
    #[tool]
    fn echo(&self, text: &str) -> String {
        text.to_owned()
    }
}

fn main() {
    // The impl block and the server trait still exist: only the mistake is reported.
    let _ = S.echo("x");
    let _ = ferromcp::Server::new(S);
}
