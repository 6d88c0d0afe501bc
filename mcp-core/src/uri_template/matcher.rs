//! Matching a URI against a template in one left-to-right pass, by the rules listed under
//! "Matching" in the module documentation: change one, change both.

use super::encoding::{RESERVED, hex_val, prefix_of};
use super::syntax::{Expr, Literal, Modifier, Part, Pattern};
use super::value::{Value, ValueRef, Vars};
use super::{MAX_URI_LEN, UriTemplate};

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

/// Percent-decodes `bytes`; `None` on a malformed triplet or a non-UTF-8 result. With
/// `keep_reserved`, triplets that encode reserved characters stay encoded.
fn decode(bytes: &[u8], keep_reserved: bool, meter: &mut Meter) -> Option<String> {
    meter.tick(bytes.len());
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&c) = bytes.get(i) {
        if c == b'%' {
            let hi = hex_val(*bytes.get(i + 1)?)?;
            let lo = hex_val(*bytes.get(i + 2)?)?;
            let b = hi << 4 | lo;
            if keep_reserved && RESERVED.has_ascii(b) {
                out.extend_from_slice(&bytes[i..i + 3]);
            } else {
                out.push(b);
            }
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Splits `key=value` at the first `=`.
fn split_eq(piece: &[u8]) -> (&[u8], Option<&[u8]>) {
    match piece.iter().position(|&b| b == b'=') {
        Some(q) => (&piece[..q], Some(&piece[q + 1..])),
        None => (piece, None),
    }
}

/// What one occurrence of a variable in the URI says about it.
#[derive(Debug)]
enum Occ {
    Unseen,
    Undefined,
    Full(Value),
    /// The value, or its first `n` characters (a `{var:n}` occurrence), counting
    /// pct-encoded triplets as one character if the flag (`+` or `#` operator) is set.
    Prefix(String, u16, bool),
}

fn char_prefix(s: &str, n: u16, triplets: bool) -> &str {
    prefix_of(s, usize::from(n), triplets)
}

struct Bindings {
    occ: Vec<Occ>,
}

impl Bindings {
    fn new(vars: usize) -> Bindings {
        Bindings {
            occ: (0..vars).map(|_| Occ::Unseen).collect(),
        }
    }

    /// Records an occurrence; `None` if it contradicts an earlier one.
    fn merge(&mut self, var: usize, new: Occ, meter: &mut Meter) -> Option<()> {
        let slot = self.occ.get_mut(var)?;
        let merged = match (std::mem::replace(slot, Occ::Unseen), new) {
            (Occ::Unseen, new) => new,
            (old, Occ::Unseen) => old,
            (Occ::Undefined, Occ::Undefined) => Occ::Undefined,
            (Occ::Undefined, _) | (_, Occ::Undefined) => return None,
            (Occ::Full(a), Occ::Full(b)) => {
                meter.tick(1);
                if a != b {
                    return None;
                }
                Occ::Full(a)
            }
            (Occ::Full(Value::String(s)), Occ::Prefix(p, n, t))
            | (Occ::Prefix(p, n, t), Occ::Full(Value::String(s))) => {
                meter.tick(p.len());
                if char_prefix(&s, n, t) != p {
                    return None;
                }
                Occ::Full(Value::String(s))
            }
            (Occ::Full(_), Occ::Prefix(..)) | (Occ::Prefix(..), Occ::Full(_)) => return None,
            (Occ::Prefix(a, na, ta), Occ::Prefix(b, nb, tb)) => {
                let ((short, ns, ts), (long, nl, tl)) = if na <= nb {
                    ((a, na, ta), (b, nb, tb))
                } else {
                    ((b, nb, tb), (a, na, ta))
                };
                meter.tick(short.len());
                if char_prefix(&long, ns, ts) != short {
                    return None;
                }
                Occ::Prefix(long, nl, tl)
            }
        };
        *slot = merged;
        Some(())
    }

    fn finish(self, names: &[Box<str>]) -> Option<Match> {
        let vars = names
            .iter()
            .zip(self.occ)
            .filter_map(|(name, occ)| match occ {
                Occ::Full(v) => Some((name.to_string(), v)),
                Occ::Prefix(s, ..) => Some((name.to_string(), Value::String(s))),
                Occ::Unseen | Occ::Undefined => None,
            })
            .collect();
        Some(Match { vars })
    }
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
        let content = i;
        let sep = self.op.sep();
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
                || (!too_long && u.get(piece..i).is_some_and(|k| ix.groups.contains_key(k)));
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

    /// Binds the expression's variables from its region.
    fn bind(&self, region: &[u8], bindings: &mut Bindings, meter: &mut Meter) -> Option<()> {
        if region.is_empty() {
            for spec in &self.specs {
                bindings.merge(spec.var, Occ::Undefined, meter)?;
            }
            return Some(());
        }
        let content = match self.op.first() {
            Some(f) => region.strip_prefix(&[f])?,
            None => region,
        };
        meter.tick(content.len());
        if !content.iter().all(|&c| self.allowed.accepts(c)) {
            return None;
        }
        if self.named.is_some() {
            self.bind_named(content, bindings, meter)
        } else {
            self.bind_positional(content, bindings, meter)
        }
    }

    fn decode(&self, bytes: &[u8], meter: &mut Meter) -> Option<String> {
        decode(bytes, self.op.allow_reserved(), meter)
    }

    /// Whether a piece of a value is something expansion could have written: with the
    /// operators that percent-encode `,` and `=`, those can only be structure.
    fn plain(&self, piece: &[u8]) -> bool {
        self.op.allow_reserved() || !piece.iter().any(|&c| c == b',' || c == b'=')
    }

    /// The value of a non-exploded variable from its text.
    fn text_value(&self, text: &[u8], modifier: Modifier, meter: &mut Meter) -> Option<Occ> {
        if !self.op.allow_reserved() && text.contains(&b',') {
            let items = text
                .split(|&c| c == b',')
                .map(|item| {
                    if self.plain(item) {
                        self.decode(item, meter)
                    } else {
                        None
                    }
                })
                .collect::<Option<Vec<_>>>()?;
            return Some(Occ::Full(Value::List(items)));
        }
        if !self.plain(text) {
            return None;
        }
        let s = self.decode(text, meter)?;
        match modifier {
            Modifier::Prefix(n) => {
                let triplets = self.op.allow_reserved();
                (prefix_of(&s, usize::from(n), triplets).len() == s.len())
                    .then_some(Occ::Prefix(s, n, triplets))
            }
            _ => Some(Occ::Full(Value::String(s))),
        }
    }

    /// The value of an exploded variable of an unnamed operator from its pieces.
    fn exploded_value(&self, pieces: &[&[u8]], meter: &mut Meter) -> Option<Occ> {
        if pieces.is_empty() {
            return Some(Occ::Undefined);
        }
        if self.op.allow_reserved() {
            let items = pieces
                .iter()
                .map(|p| self.decode(p, meter))
                .collect::<Option<Vec<_>>>()?;
            return Some(Occ::Full(Value::List(items)));
        }
        // With the encoding operators a piece is `item` or `key=value`, never with a raw `,`
        // (so a piece that holds one belongs to no exploded variable).
        let mut eqs = Vec::with_capacity(pieces.len());
        for piece in pieces {
            meter.tick(piece.len() + 1);
            if piece.contains(&b',') {
                return None;
            }
            eqs.push(piece.iter().filter(|&&c| c == b'=').count());
        }
        if eqs.iter().all(|&e| e == 0) {
            let items = pieces
                .iter()
                .map(|p| self.decode(p, meter))
                .collect::<Option<Vec<_>>>()?;
            Some(Occ::Full(Value::List(items)))
        } else if eqs.iter().all(|&e| e == 1) {
            let entries = pieces
                .iter()
                .map(|p| {
                    let (k, v) = split_eq(p);
                    Some((self.decode(k, meter)?, self.decode(v?, meter)?))
                })
                .collect::<Option<Vec<_>>>()?;
            Some(Occ::Full(Value::Map(entries)))
        } else {
            None
        }
    }

    fn bind_positional(
        &self,
        content: &[u8],
        bindings: &mut Bindings,
        meter: &mut Meter,
    ) -> Option<()> {
        let pieces: Vec<&[u8]> = if self.multi {
            content.split(|&c| c == self.op.sep()).collect()
        } else {
            vec![content]
        };
        meter.tick(pieces.len() + self.specs.len());
        let n = pieces.len();
        let k = self.specs.len();
        // How many pieces the first exploded variable takes.
        let explode_take = match self.first_explode {
            None if n > k => return None,
            None => 0,
            Some(e) => {
                let rest = n.saturating_sub(e);
                if rest == 0 {
                    0
                } else {
                    rest.saturating_sub(k - e - 1).max(1)
                }
            }
        };
        let mut next = 0;
        for (j, spec) in self.specs.iter().enumerate() {
            let occ = if Some(j) == self.first_explode {
                let start = next.min(n);
                let taken = pieces
                    .get(start..(start + explode_take).min(n))
                    .unwrap_or(&[]);
                next += explode_take;
                self.exploded_value(taken, meter)?
            } else {
                let piece = pieces.get(next);
                next += 1;
                match (piece, spec.explode()) {
                    (None, _) => Occ::Undefined,
                    (Some(piece), true) => self.exploded_value(&[piece], meter)?,
                    (Some(piece), false) => self.text_value(piece, spec.modifier, meter)?,
                }
            };
            bindings.merge(spec.var, occ, meter)?;
        }
        (next >= n).then_some(())
    }

    fn bind_named(&self, content: &[u8], bindings: &mut Bindings, meter: &mut Meter) -> Option<()> {
        let ix = self.named.as_ref()?;
        let k = self.specs.len();
        let mut text: Vec<Option<&[u8]>> = vec![None; k];
        let mut entries: Vec<Vec<(&[u8], &[u8])>> = vec![Vec::new(); k];
        let mut cursor = vec![0usize; ix.positions.len()];
        let ifemp_is_eq = !self.op.ifemp().is_empty();
        let mut last_target = 0;
        for piece in content.split(|&c| c == self.op.sep()) {
            meter.tick(1);
            let (key, value) = split_eq(piece);
            let value = match value {
                // `?x=` and `;x` are how expansion writes an empty value; `?x` and `;x=` are not.
                Some(v) if v.is_empty() && !ifemp_is_eq => return None,
                Some(v) => v,
                None if piece.is_empty() || ifemp_is_eq => return None,
                None => &piece[piece.len()..],
            };
            meter.tick(key.len());
            let target = match ix.groups.get(key) {
                Some(&g) => {
                    let positions = &ix.positions[g];
                    let c = &mut cursor[g];
                    while let Some(&pos) = positions.get(*c) {
                        if self.specs[pos].explode() || text[pos].is_none() {
                            break;
                        }
                        *c += 1;
                    }
                    positions.get(*c).copied().or(self.first_explode)
                }
                None => self.first_explode,
            }?;
            // With an exploded variable the parameters must come in template order, or the
            // split between it and the other variables would be a guess.
            if self.first_explode.is_some() {
                if target < last_target {
                    return None;
                }
                last_target = target;
            }
            if self.specs[target].explode() {
                entries[target].push((key, value));
            } else {
                text[target] = Some(value);
            }
        }
        for (j, spec) in self.specs.iter().enumerate() {
            let occ = if spec.explode() {
                let es = &entries[j];
                meter.tick(es.len());
                if es.is_empty() {
                    Occ::Undefined
                } else if !es.iter().all(|(k, v)| self.plain(k) && self.plain(v)) {
                    return None;
                } else if es.iter().all(|(k, _)| *k == spec.name.as_bytes()) {
                    let items = es
                        .iter()
                        .map(|(_, v)| self.decode(v, meter))
                        .collect::<Option<Vec<_>>>()?;
                    Occ::Full(Value::List(items))
                } else {
                    let map = es
                        .iter()
                        .map(|(k, v)| Some((self.decode(k, meter)?, self.decode(v, meter)?)))
                        .collect::<Option<Vec<_>>>()?;
                    Occ::Full(Value::Map(map))
                }
            } else {
                match text[j] {
                    Some(t) => self.text_value(t, spec.modifier, meter)?,
                    None => Occ::Undefined,
                }
            };
            bindings.merge(spec.var, occ, meter)?;
        }
        Some(())
    }
}
