//! `ferromcp::run`'s `--redis URL`: served only through the stores a runner was given
//! (`Runner::shared_stores`, as ferromcp-redis does); without them, refused before
//! anything is served, naming the fix.

#![cfg(feature = "run")]
#![allow(clippy::unwrap_used, clippy::panic)]

use std::cell::RefCell;
use std::rc::Rc;

use ferromcp::prelude::*;
use ferromcp::run::{RunError, Runner};
use ferromcp::store::SharedStores;

struct Demo;

#[ferromcp::server(name = "demo")]
impl Demo {
    /// Adds.
    #[tool]
    fn add(&self, a: i64, b: i64) -> i64 {
        a + b
    }
}

const ARGS: [&str; 5] = [
    "demo",
    "--http",
    "127.0.0.1:0",
    "--redis",
    "redis://127.0.0.1:1",
];

#[test]
fn redis_without_shared_stores_is_refused_naming_the_fix() {
    let runner = Runner::try_for_server::<Demo, _, _>(ARGS).unwrap();
    let error = runner
        .try_serve_with(async |_| panic!("no server is made"))
        .unwrap_err();
    assert!(matches!(error, RunError::NoSharedStores), "{error:?}");
    let line = error.to_string();
    assert!(
        line.contains("Runner::shared_stores(ferromcp_redis::connect)") && !line.contains('\n'),
        "{line}"
    );
}

#[test]
fn redis_connects_through_the_runners_shared_stores() {
    let asked = Rc::new(RefCell::new(None));
    let seen = asked.clone();
    let runner = Runner::try_for_server::<Demo, _, _>(ARGS)
        .unwrap()
        .shared_stores(async move |url: String| {
            *seen.borrow_mut() = Some(url);
            Err::<SharedStores, _>(std::io::Error::from(std::io::ErrorKind::ConnectionRefused))
        });
    let error = runner
        .try_serve_with(async |_| panic!("no server is made"))
        .unwrap_err();
    assert_eq!(asked.borrow().as_deref(), Some("redis://127.0.0.1:1"));
    assert!(
        error
            .to_string()
            .starts_with("redis at redis://127.0.0.1:1: "),
        "{error}"
    );
}
