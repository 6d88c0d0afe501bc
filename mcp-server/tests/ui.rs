//! Compile-time guarantees of the macros: each `tests/ui/{tool,resource,prompt,server}/*.rs`
//! holds one mistake, next to the compiler output it must produce (`.stderr`;
//! `TRYBUILD=overwrite` rewrites them). `tests/ui/pass/*.rs` must compile and run: they are
//! test targets of their own (`ui_pass_*` in Cargo.toml), so that trybuild only has
//! compile-fail cases and type-checks them (`cargo check`) instead of building everything.
//!
//! Compiler messages change between releases, so the workspace pins the toolchain the
//! expected output was written with (`rust-toolchain.toml`); run with another one, the test
//! fails and says so rather than comparing against output no compiler of that version gives.

/// The toolchain the `.stderr` files were written with.
const PINNED: &str = "rustc 1.95.";

#[test]
fn ui() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    assert!(
        version.starts_with(PINNED),
        "the UI tests are pinned to {PINNED}x (rust-toolchain.toml), this is {version}"
    );
    let t = trybuild::TestCases::new();
    for area in ["tool", "resource", "prompt", "server"] {
        t.compile_fail(format!("tests/ui/{area}/*.rs"));
    }
}
