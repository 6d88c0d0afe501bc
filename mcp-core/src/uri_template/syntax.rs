//! A parsed template: its literals and expressions, with what expansion and matching need
//! worked out once at parse time.

use std::collections::HashMap;

use super::encoding::{ByteSet, RESERVED, UNRESERVED, push_pct};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    Simple,
    Reserved,
    Fragment,
    Label,
    Path,
    PathParam,
    Query,
    QueryCont,
}

impl Op {
    pub(super) fn first(self) -> Option<u8> {
        match self {
            Op::Simple | Op::Reserved => None,
            Op::Fragment => Some(b'#'),
            Op::Label => Some(b'.'),
            Op::Path => Some(b'/'),
            Op::PathParam => Some(b';'),
            Op::Query => Some(b'?'),
            Op::QueryCont => Some(b'&'),
        }
    }

    pub(super) fn sep(self) -> u8 {
        match self {
            Op::Simple | Op::Reserved | Op::Fragment => b',',
            Op::Label => b'.',
            Op::Path => b'/',
            Op::PathParam => b';',
            Op::Query | Op::QueryCont => b'&',
        }
    }

    pub(super) fn named(self) -> bool {
        matches!(self, Op::PathParam | Op::Query | Op::QueryCont)
    }

    pub(super) fn ifemp(self) -> &'static str {
        match self {
            Op::Query | Op::QueryCont => "=",
            _ => "",
        }
    }

    pub(super) fn allow_reserved(self) -> bool {
        matches!(self, Op::Reserved | Op::Fragment)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Modifier {
    None,
    Prefix(u16),
    Explode,
}

#[derive(Debug, Clone)]
pub(super) struct Spec {
    pub(super) name: Box<str>,
    /// Index into [`UriTemplate::names`].
    pub(super) var: usize,
    pub(super) modifier: Modifier,
}

impl Spec {
    pub(super) fn explode(&self) -> bool {
        self.modifier == Modifier::Explode
    }
}

/// Name lookup for the named operators: parameter name -> positions in `Expr::specs`.
#[derive(Debug, Clone)]
pub(super) struct NamedIndex {
    pub(super) groups: HashMap<Box<[u8]>, usize>,
    pub(super) positions: Vec<Vec<usize>>,
    pub(super) max_name_len: usize,
}

#[derive(Debug, Clone)]
pub(super) struct Expr {
    pub(super) op: Op,
    pub(super) specs: Vec<Spec>,
    /// Bytes a region of this expression may contain after the leading character.
    pub(super) allowed: ByteSet,
    /// Whether the expansion may contain the separator (several variables or an explode).
    pub(super) multi: bool,
    pub(super) first_explode: Option<usize>,
    pub(super) named: Option<NamedIndex>,
}

/// A literal and its KMP failure table.
#[derive(Debug, Clone)]
pub(super) struct Pattern {
    pub(super) text: Box<str>,
    pub(super) fail: Box<[u32]>,
}

impl Pattern {
    fn new(text: &str) -> Pattern {
        let b = text.as_bytes();
        let mut fail = vec![0u32; b.len()];
        let mut k = 0usize;
        for i in 1..b.len() {
            while k > 0 && b[i] != b[k] {
                k = fail[k - 1] as usize;
            }
            if b[i] == b[k] {
                k += 1;
            }
            // Templates are at most 64 KiB, so this always fits.
            fail[i] = u32::try_from(k).unwrap_or(0);
        }
        Pattern {
            text: text.into(),
            fail: fail.into_boxed_slice(),
        }
    }
}

#[derive(Debug, Clone)]
pub(super) struct Literal {
    /// As expansion writes it (non-ASCII percent-encoded).
    pub(super) enc: Pattern,
    /// As written in the template, when that differs (non-ASCII characters).
    raw: Option<Pattern>,
}

impl Literal {
    pub(super) fn new(raw: &str) -> Literal {
        let mut enc = String::with_capacity(raw.len());
        for &c in raw.as_bytes() {
            if c < 0x80 {
                enc.push(char::from(c));
            } else {
                push_pct(&mut enc, c);
            }
        }
        let raw = (enc != raw).then(|| Pattern::new(raw));
        Literal {
            enc: Pattern::new(&enc),
            raw,
        }
    }

    pub(super) fn forms(&self) -> impl Iterator<Item = &Pattern> {
        std::iter::once(&self.enc).chain(self.raw.as_ref())
    }
}

#[derive(Debug, Clone)]
pub(super) enum Part {
    Literal(Literal),
    Expr(Expr),
}

impl Expr {
    pub(super) fn new(op: Op, specs: Vec<Spec>) -> Expr {
        let first_explode = specs.iter().position(Spec::explode);
        let multi = specs.len() > 1 || first_explode.is_some();
        let mut allowed = UNRESERVED.with(b'%');
        if op.allow_reserved() {
            allowed = allowed.union(RESERVED);
        }
        if multi {
            allowed = allowed.with(op.sep());
        }
        if specs.iter().any(|s| !s.explode()) {
            allowed = allowed.with(b',');
        }
        if op.named() || first_explode.is_some() {
            allowed = allowed.with(b'=');
        }
        let named = op.named().then(|| {
            let mut groups: HashMap<Box<[u8]>, usize> = HashMap::new();
            let mut positions: Vec<Vec<usize>> = Vec::new();
            let mut max_name_len = 0;
            for (j, spec) in specs.iter().enumerate() {
                max_name_len = max_name_len.max(spec.name.len());
                let key: Box<[u8]> = spec.name.as_bytes().into();
                match groups.get(&key) {
                    Some(&g) => positions[g].push(j),
                    None => {
                        groups.insert(key, positions.len());
                        positions.push(vec![j]);
                    }
                }
            }
            NamedIndex {
                groups,
                positions,
                max_name_len,
            }
        });
        Expr {
            op,
            specs,
            allowed,
            multi,
            first_explode,
            named,
        }
    }
}
