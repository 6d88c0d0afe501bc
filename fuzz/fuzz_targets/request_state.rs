//! The sealed 2026 `requestState` (HMAC-SHA256 over the payload, bound to server, method and
//! primitive, with an expiry).
//!
//! Properties:
//! - seal then open gives back exactly what was sealed, with any key of the ring;
//! - a token opens only for the server, method and name it was sealed for;
//! - a tampered token (any byte changed, inserted or removed) never opens, nor does one
//!   sealed under a key outside the ring, nor arbitrary text.
#![no_main]

use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::time::Duration;

use arbitrary::{Arbitrary, Unstructured};
use ferromcp::__fuzz::{Opened, Sealer};
use libfuzzer_sys::fuzz_target;

struct Keys {
    ring: Sealer,
    rotated: Sealer,
    outsider: Sealer,
}

/// Keys drawn once per process from the OS: the fuzzer never learns them, so any token it
/// makes up that opens would be a forgery.
fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| {
        let (old, new, other) = (
            Sealer::random_key(),
            Sealer::random_key(),
            Sealer::random_key(),
        );
        let ttl = Duration::from_secs(600);
        Keys {
            ring: Sealer::new(vec![new.clone(), old.clone()], ttl),
            rotated: Sealer::new(vec![old], ttl),
            outsider: Sealer::new(vec![other], ttl),
        }
    })
}

#[derive(Debug, Arbitrary)]
enum Tamper {
    Flip { at: usize, bits: u8 },
    Insert { at: usize, byte: u8 },
    Remove { at: usize },
    Truncate { to: usize },
}

fn tamper(token: &str, how: &Tamper) -> Option<String> {
    let mut bytes = token.as_bytes().to_vec();
    match *how {
        Tamper::Flip { at, bits } => {
            let at = at % bytes.len();
            bytes[at] ^= bits.max(1);
        }
        Tamper::Insert { at, byte } => bytes.insert(at % (bytes.len() + 1), byte),
        Tamper::Remove { at } => {
            bytes.remove(at % bytes.len());
        }
        Tamper::Truncate { to } => bytes.truncate(to % bytes.len()),
    }
    String::from_utf8(bytes).ok().filter(|t| t != token)
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let k = keys();
    let Ok(garbage) = u.arbitrary::<&str>() else {
        return;
    };
    assert!(
        k.ring.open(garbage, "srv", "tools/call", "t").is_none(),
        "{garbage:?} opened"
    );

    let Ok((audience, method, name)) = u.arbitrary::<(String, String, String)>() else {
        return;
    };
    let mut responses = BTreeMap::new();
    for _ in 0..u.int_in_range(0..=3).unwrap_or(0) {
        let (Ok(key), Ok(v)) = (u.arbitrary::<String>(), mcp_fuzz::json_value(&mut u, 3)) else {
            return;
        };
        responses.insert(key, v);
    }
    let state = match u.arbitrary::<bool>() {
        Ok(true) => mcp_fuzz::json_value(&mut u, 4).ok(),
        _ => None,
    };
    let sealed = Opened {
        responses: responses.clone(),
        state: state.clone(),
    };

    let token = k
        .ring
        .seal(&audience, &method, &name, responses.clone(), state.clone())
        .expect("sealed");
    assert_eq!(
        k.ring.open(&token, &audience, &method, &name),
        Some(sealed.clone())
    );
    assert!(k.outsider.open(&token, &audience, &method, &name).is_none());
    let old = k
        .rotated
        .seal(&audience, &method, &name, responses, state)
        .expect("sealed");
    assert_eq!(k.ring.open(&old, &audience, &method, &name), Some(sealed));
    assert!(k.rotated.open(&token, &audience, &method, &name).is_none());

    if let Ok(other) = u.arbitrary::<String>() {
        for (a, m, n) in [
            (&other, &method, &name),
            (&audience, &other, &name),
            (&audience, &method, &other),
        ] {
            if (a, m, n) != (&audience, &method, &name) {
                assert!(
                    k.ring.open(&token, a, m, n).is_none(),
                    "opened for {a:?} {m:?} {n:?}"
                );
            }
        }
    }
    if let Ok(how) = u.arbitrary::<Tamper>() {
        if let Some(bad) = tamper(&token, &how) {
            assert!(
                k.ring.open(&bad, &audience, &method, &name).is_none(),
                "{how:?} opened"
            );
        }
    }
});
