struct S;

// Under the same `#[cfg]` the two methods are compiled together, so their names clash.
#[ferromcp::server]
impl S {
    /// One.
    #[cfg(unix)]
    #[tool(name = "run")]
    fn a(&self) -> String {
        String::new()
    }

    /// Two.
    #[cfg(unix)]
    #[tool(name = "run")]
    fn b(&self) -> String {
        String::new()
    }
}

fn main() {}
