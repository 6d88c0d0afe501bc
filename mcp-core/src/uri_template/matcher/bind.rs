//! Binding an expression's variables from the region of the URI it covers: splitting the
//! region into pieces, percent-decoding them, and checking that every occurrence of a
//! variable agrees with the others.

use super::{Match, Meter};
use crate::uri_template::encoding::{RESERVED, hex_val, prefix_of};
use crate::uri_template::syntax::{Expr, Modifier};
use crate::uri_template::value::Value;

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

pub(super) struct Bindings {
    occ: Vec<Occ>,
}

impl Bindings {
    pub(super) fn new(vars: usize) -> Bindings {
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

    pub(super) fn finish(self, names: &[Box<str>]) -> Option<Match> {
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
    /// Binds the expression's variables from its region.
    pub(super) fn bind(
        &self,
        region: &[u8],
        bindings: &mut Bindings,
        meter: &mut Meter,
    ) -> Option<()> {
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
