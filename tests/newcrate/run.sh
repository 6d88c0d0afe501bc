#!/usr/bin/env bash
# A newcomer's first server, outside this workspace: a new crate that depends on `ferromcp`
# by path and nothing else, with the README's kind of server and `fn main() { ferromcp::run(..) }`.
# It is built (default features only, as `cargo add ferromcp` gives), then driven over the
# command line, stdio and `--http` by check.py.
#
#   tests/newcrate/run.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
crate=$(mktemp -d)
trap 'rm -rf "$crate"' EXIT

mkdir -p "$crate/src"
cat >"$crate/Cargo.toml" <<TOML
[package]
name = "calc"
version = "0.1.0"
edition = "2024"

[dependencies]
ferromcp = { path = "$root/mcp-server" }

# Not a member of the SDK's workspace.
[workspace]
TOML
cat >"$crate/src/main.rs" <<'RUST'
use ferromcp::prelude::*;

/// Integer arithmetic and text tools.
struct Calc;

#[ferromcp::server(name = "calc", version = "0.1.0")]
impl Calc {
    /// Adds two integers.
    #[tool(read_only)]
    fn add(&self, a: i64, b: i64) -> Result<i64, &'static str> {
        a.checked_add(b).ok_or("the sum overflows an i64")
    }

    /// Gives the text back in capitals.
    #[tool(read_only)]
    fn shout(&self, text: String) -> String {
        text.to_uppercase()
    }
}

fn main() {
    ferromcp::run(Calc)
}
RUST
# The workspace's lock, so the newcomer's crate builds the versions the SDK is tested with
# (and the shared target directory reuses their artefacts).
cp "$root/Cargo.lock" "$crate/"
CARGO_TARGET_DIR="$root/target" cargo build --quiet --manifest-path "$crate/Cargo.toml"
python3 "$root/tests/newcrate/check.py" "$root/target/debug/calc"
