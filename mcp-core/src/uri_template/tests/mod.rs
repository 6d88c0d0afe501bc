//! The URI template tests, by concept. The helpers here are shared: `t` parses or panics,
//! `metered` matches and asserts that the work done was linear, `Rng` generates inputs.

mod expand;
mod linear_time;
mod matcher;
mod parse;
mod property;

use super::matcher::Meter;
use super::{Match, UriTemplate, Value};

fn t(s: &str) -> UriTemplate {
    UriTemplate::parse(s).unwrap_or_else(|e| panic!("{s:?}: {e}"))
}

fn s(v: &str) -> Value {
    Value::from(v)
}

fn list(items: &[&str]) -> Value {
    Value::from(items.to_vec())
}

fn map(entries: &[(&str, &str)]) -> Value {
    Value::from(entries.to_vec())
}

/// Matches and returns the work done, asserting that it is linear.
fn metered(tpl: &UriTemplate, uri: &str) -> Option<Match> {
    let mut meter = Meter::default();
    let got = tpl.match_metered(uri, &mut meter);
    let bound = 8 * (uri.len() + tpl.as_str().len()) + 64;
    assert!(
        meter.steps <= bound,
        "{} steps > {bound} matching {} bytes against a {}-byte template",
        meter.steps,
        uri.len(),
        tpl.as_str().len()
    );
    got
}

/// SplitMix64: a tiny deterministic PRNG.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn string(&mut self, alphabet: &[&str], max: usize) -> String {
        (0..self.below(max + 1))
            .map(|_| *self.pick(alphabet))
            .collect()
    }
}
