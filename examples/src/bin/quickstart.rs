//! The smallest honest MCP server: three tools, a resource and a prompt.
use ferromcp::prelude::*;

/// Summary statistics of a list of numbers.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Stats {
    count: usize,
    mean: f64,
    min: f64,
    max: f64,
}

/// The server: each method below is a tool, a resource or a prompt.
pub struct Quickstart;

#[ferromcp::server(name = "quickstart")]
impl Quickstart {
    /// Adds two integers.
    #[tool(read_only)]
    fn add(&self, a: i64, b: i64) -> Result<i64, &'static str> {
        a.checked_add(b).ok_or("sum overflows i64")
    }

    /// Returns the text unchanged.
    #[tool(read_only)]
    fn echo(&self, text: String) -> String {
        text
    }

    /// Counts a list of numbers and gives their mean, minimum and maximum.
    #[tool(read_only)]
    fn stats(&self, numbers: Vec<f64>) -> Result<Json<Stats>, &'static str> {
        let count = numbers.len();
        if count == 0 {
            return Err("give at least one number");
        }
        Ok(Json(Stats {
            count,
            mean: numbers.iter().sum::<f64>() / count as f64,
            min: numbers.iter().copied().fold(f64::INFINITY, f64::min),
            max: numbers.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }))
    }

    /// What this server offers.
    #[resource(uri = "quickstart://readme", mime_type = "text/markdown")]
    fn readme(&self) -> &'static str {
        "# quickstart\n\nThe tools `add`, `echo` and `stats`, and the prompt `code_review`.\n"
    }

    /// Asks for a careful review of a piece of code.
    #[prompt]
    fn code_review(&self, code: String) -> String {
        format!("Review this code; list bugs first, then unclear names.\n\n{code}")
    }
}

/// Serves stdio, or Streamable HTTP with `--http 127.0.0.1:PORT`; `--help` says the rest.
fn main() {
    ferromcp::run(Quickstart)
}
