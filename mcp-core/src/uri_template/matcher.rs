//! Matching a URI against a template in one left-to-right pass, by the rules listed under
//! "Matching" in the module documentation: change one, change both.
//!
//! This file finds where each expression's region ends; `bind` reads the variables'
//! values out of a region.

mod bind;

use super::syntax::{Expr, Literal, Part, Pattern};
use super::value::{Value, ValueRef, Vars};
use super::{MAX_URI_LEN, UriTemplate};
use bind::Bindings;

/// The variables extracted by [`UriTemplate::matches`], in the order the template first
/// mentions them. Undefined variables are absent.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Match {
    vars: Vec<(String, Value)>,
}

impl Match {
    /// The value of `name`, if it was defined.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.vars.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// The value of `name`, if it was defined and is a string.
    pub fn get_str(&self, name: &str) -> Option<&str> {
        self.get(name).and_then(Value::as_str)
    }

    /// The defined variables and their values, in template order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Value)> {
        self.vars.iter().map(|(n, v)| (n.as_str(), v))
    }

    /// How many variables are defined.
    pub fn len(&self) -> usize {
        self.vars.len()
    }

    /// Whether no variable is defined.
    pub fn is_empty(&self) -> bool {
        self.vars.is_empty()
    }

    /// The defined variables and their values, in template order.
    pub fn into_vec(self) -> Vec<(String, Value)> {
        self.vars
    }
}

impl IntoIterator for Match {
    type Item = (String, Value);
    type IntoIter = std::vec::IntoIter<(String, Value)>;

    fn into_iter(self) -> Self::IntoIter {
        self.vars.into_iter()
    }
}

impl Vars for Match {
    fn get(&self, name: &str) -> Option<ValueRef<'_>> {
        Match::get(self, name).map(Value::as_value_ref)
    }
}

impl UriTemplate {
    pub(super) fn match_metered(&self, uri: &str, meter: &mut Meter) -> Option<Match> {
        if uri.len() > MAX_URI_LEN {
            return None;
        }
        let mut u = uri.as_bytes();
        let mut parts = &self.parts[..];
        // The template's final literal anchors at the end of the URI: strip it first, so that
        // no expression can reach into it.
        if let [init @ .., Part::Literal(last)] = parts
            && !init.is_empty()
        {
            u = u.get(..match_literal_suffix(last, u, 0, meter)?)?;
            parts = init;
        }
        let n = u.len();
        let mut bindings = Bindings::new(self.names.len());
        let mut p = 0;
        let mut i = 0;
        while let Some(part) = parts.get(i) {
            match part {
                Part::Literal(lit) => {
                    p = match_literal_at(lit, u, p, meter)?;
                    i += 1;
                }
                Part::Expr(expr) => {
                    let (end, next_p, step) = match parts.get(i + 1) {
                        None => (n, n, 1),
                        Some(Part::Literal(lit)) => {
                            let (q, after) = expr.find_literal(u, p, lit, meter)?;
                            (q, after, 2)
                        }
                        Some(Part::Expr(next)) => {
                            let end = expr.scan_greedy(u, p, expr.stop_before(next), meter);
                            (end, end, 1)
                        }
                    };
                    expr.bind(u.get(p..end)?, &mut bindings, meter)?;
                    p = next_p;
                    i += step;
                }
            }
        }
        if p != n {
            return None;
        }
        bindings.finish(&self.names)
    }
}

/// Counts the work a match does (bytes examined), so that tests can assert linearity
/// without timing anything.
#[derive(Debug, Default)]
pub(super) struct Meter {
    pub(super) steps: usize,
}

impl Meter {
    fn tick(&mut self, n: usize) {
        self.steps = self.steps.saturating_add(n);
    }
}

/// Matches `lit` at exactly `p`; returns the offset after it.
fn match_literal_at(lit: &Literal, u: &[u8], p: usize, meter: &mut Meter) -> Option<usize> {
    for form in lit.forms() {
        let t = form.text.as_bytes();
        meter.tick(t.len());
        if u.get(p..p + t.len()) == Some(t) {
            return Some(p + t.len());
        }
    }
    None
}

/// Matches `lit` as the suffix of `u`, not before `p`; returns where it starts.
fn match_literal_suffix(lit: &Literal, u: &[u8], p: usize, meter: &mut Meter) -> Option<usize> {
    for form in lit.forms() {
        let t = form.text.as_bytes();
        meter.tick(t.len());
        if u.len() >= p + t.len() && u.ends_with(t) {
            return Some(u.len() - t.len());
        }
    }
    None
}

impl Expr {
    /// The byte at which this expression must stop when `next` follows it directly: the
    /// next expression's leading character, unless it is this one's own leading character
    /// or separator.
    fn stop_before(&self, next: &Expr) -> Option<u8> {
        let f = next.op.first()?;
        (Some(f) != self.op.first() && f != self.op.sep()).then_some(f)
    }

    /// Greedy region end for an expression followed directly by another expression.
    fn scan_greedy(&self, u: &[u8], p: usize, stop: Option<u8>, meter: &mut Meter) -> usize {
        let mut i = p;
        if let Some(f) = self.op.first() {
            meter.tick(1);
            if u.get(p) != Some(&f) {
                return p;
            }
            i += 1;
        }
        let ok = |c: u8| Some(c) != stop && self.allowed.accepts(c);
        let Some(ix) = &self.named else {
            while u.get(i).is_some_and(|&c| ok(c)) {
                meter.tick(1);
                i += 1;
            }
            return i;
        };
        // Named: `name[=value]` pieces; stop before a piece no variable of ours can claim.
        // Without an exploded variable the pieces must also follow the template's order (as
        // expansion writes them): one out of order may be the next expression's, and taking
        // it would read a URI that expansion wrote as one it did not.
        let content = i;
        let sep = self.op.sep();
        let mut last: Option<usize> = None;
        loop {
            let piece = i;
            let mut too_long = false;
            while let Some(&c) = u.get(i) {
                if c == b'=' || c == sep || !ok(c) {
                    break;
                }
                if self.first_explode.is_none() && i - piece >= ix.max_name_len {
                    too_long = true;
                    break;
                }
                meter.tick(1);
                i += 1;
            }
            let claimable = self.first_explode.is_some()
                || (!too_long
                    && u.get(piece..i).is_some_and(|k| {
                        let Some(&g) = ix.groups.get(k) else {
                            return false;
                        };
                        let next = ix.positions[g]
                            .iter()
                            .copied()
                            .find(|&pos| last.is_none_or(|l| pos > l));
                        last = next.or(last);
                        next.is_some()
                    }));
            if !claimable {
                return if piece == content { p } else { piece - 1 };
            }
            if u.get(i) == Some(&b'=') {
                i += 1;
                while u.get(i).is_some_and(|&c| c != sep && ok(c)) {
                    meter.tick(1);
                    i += 1;
                }
            }
            if self.multi && u.get(i) == Some(&sep) && Some(sep) != stop {
                i += 1;
            } else {
                return i;
            }
        }
    }

    /// Region end for an expression followed by a literal that is not the template's last
    /// part: the first occurrence of the literal at or after `p`, which must start before
    /// the first byte the region cannot contain. Returns (literal start, literal end).
    fn find_literal(
        &self,
        u: &[u8],
        p: usize,
        lit: &Literal,
        meter: &mut Meter,
    ) -> Option<(usize, usize)> {
        lit.forms()
            .filter_map(|form| {
                let q = self.search(u, p, form, meter)?;
                Some((q, q + form.text.len()))
            })
            .min()
    }

    /// Knuth-Morris-Pratt search for `pat` from `p`, abandoned as soon as no occurrence can
    /// start inside the region.
    fn search(&self, u: &[u8], p: usize, pat: &Pattern, meter: &mut Meter) -> Option<usize> {
        let t = pat.text.as_bytes();
        let len = t.len();
        if len == 0 {
            return Some(p);
        }
        // First offset >= p that a non-empty region starting at p cannot contain.
        let mut bad = usize::MAX;
        let first = self.op.first();
        let mut k = 0usize;
        let mut i = p;
        while let Some(&c) = u.get(i) {
            if bad != usize::MAX && i >= bad + len {
                return None;
            }
            meter.tick(1);
            if bad == usize::MAX {
                let ok = match first {
                    Some(f) if i == p => c == f,
                    _ => self.allowed.accepts(c),
                };
                if !ok {
                    bad = i;
                }
            }
            while k > 0 && t[k] != c {
                meter.tick(1);
                k = pat.fail[k - 1] as usize;
            }
            if t[k] == c {
                k += 1;
            }
            if k == len {
                let q = i + 1 - len;
                if q > bad {
                    return None;
                }
                // A region cannot end inside a percent-encoded triplet (`%4|1...`): look for
                // the next occurrence instead.
                let splits_triplet = (q > p && u[q - 1] == b'%') || (q > p + 1 && u[q - 2] == b'%');
                if !splits_triplet {
                    return Some(q);
                }
                k = pat.fail[k - 1] as usize;
            }
            i += 1;
        }
        None
    }
}
