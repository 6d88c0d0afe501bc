//! URI templates (`ferromcp_core::uri_template`): parsing arbitrary text and generated templates,
//! expansion, and matching.
//!
//! Properties:
//! - a parsed template keeps its text exactly, and an error's offset lies within the text;
//! - expand then match gives the variables back, as far as the URI can tell them apart:
//!   whenever `t.matches(&t.expand(vars))` is `Some(m)`, `t.expand(&m)` is the same URI;
//! - for an unambiguous template (one expression between literals, a plain value) matching
//!   does find the value;
//! - matching an arbitrary URI returns (libFuzzer's `-timeout` bounds it: linear time).
#![no_main]

use std::collections::BTreeMap;

use arbitrary::{Arbitrary, Unstructured};
use ferromcp_core::uri_template::{UriTemplate, Value};
use libfuzzer_sys::fuzz_target;

const OPERATORS: [&str; 8] = ["", "+", "#", ".", "/", ";", "?", "&"];
/// Characters for literals and values, biased towards the ones with a meaning in templates
/// and URIs.
const CHARS: [&str; 24] = [
    "a", "b", "z", "0", "9", "-", "_", ".", "~", "/", "?", "#", "&", ",", ";", "=", ":", "@", "!",
    "%", "%41", "%2F", " ", "é",
];

fn text(u: &mut Unstructured<'_>, max: usize) -> arbitrary::Result<String> {
    let n = u.int_in_range(0..=max)?;
    (0..n)
        .map(|_| u.choose(&CHARS).map(|s| s.to_string()))
        .collect()
}

/// A template built from parts the grammar allows (and, sometimes, parts it does not).
fn generated(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
    let mut out = String::new();
    for _ in 0..u.int_in_range(1..=4)? {
        if u.arbitrary()? {
            out.push_str(&text(u, 4)?.replace(['%', ' '], ""));
        }
        out.push('{');
        out.push_str(u.choose(&OPERATORS)?);
        let vars = u.int_in_range(1..=3)?;
        for i in 0..vars {
            if i > 0 {
                out.push(',');
            }
            out.push_str(u.choose(&["a", "b", "c", "x.y", "v_1", "%41"])?);
            match u.int_in_range(0..=4)? {
                0 => out.push('*'),
                1 => out.push_str(&format!(":{}", u.int_in_range(1..=12u16)?)),
                _ => {}
            }
        }
        out.push('}');
    }
    if u.arbitrary()? {
        out.push_str(&text(u, 4)?.replace(['%', ' '], ""));
    }
    Ok(out)
}

fn value(u: &mut Unstructured<'_>) -> arbitrary::Result<Option<Value>> {
    Ok(match u.int_in_range(0..=3)? {
        0 => None,
        1 => Some(Value::String(text(u, 6)?)),
        2 => Some(Value::List(
            (0..u.int_in_range(0..=3)?)
                .map(|_| text(u, 4))
                .collect::<Result<_, _>>()?,
        )),
        _ => Some(Value::Map(
            (0..u.int_in_range(0..=3)?)
                .map(|_| Ok((text(u, 3)?, text(u, 3)?)))
                .collect::<Result<_, _>>()?,
        )),
    })
}

#[derive(Debug, Arbitrary)]
struct Simple {
    operator: u8,
    before: u8,
    after: u8,
    value: Vec<u8>,
}

/// `L1{op v}L2` with an alphanumeric value: nothing to tell apart, so matching must find it.
fn unambiguous(s: Simple) {
    const LITERALS: [&str; 6] = ["", "x://", "file:///a/", "/", "-", "."];
    const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let op = OPERATORS[usize::from(s.operator) % OPERATORS.len()];
    let before = LITERALS[usize::from(s.before) % LITERALS.len()];
    let after = ["", "/end", ".txt", "x"][usize::from(s.after) % 4];
    let value: String = s
        .value
        .iter()
        .map(|b| char::from(ALNUM[usize::from(*b) % ALNUM.len()]))
        .collect();
    if value.is_empty() {
        return;
    }
    let t = UriTemplate::parse(&format!("{before}{{{op}v}}{after}")).expect("a valid template");
    let uri = t.expand(&[("v", value.as_str())]);
    let m = t
        .matches(&uri)
        .unwrap_or_else(|| panic!("{t} does not match its expansion {uri:?}"));
    assert_eq!(m.get_str("v"), Some(value.as_str()), "{t} against {uri:?}");
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(kind) = u.int_in_range(0..=2u8) else {
        return;
    };
    if kind == 2 {
        if let Ok(s) = u.arbitrary() {
            unambiguous(s);
        }
        return;
    }
    // Text: the template up to a NUL, then the bytes the values are drawn from (so a seed
    // can be a template written out plainly).
    let rest;
    let source = match kind {
        0 => generated(&mut u),
        _ => {
            let all = u.take_rest();
            let end = all.iter().position(|&b| b == 0).unwrap_or(all.len());
            rest = &all[(end + 1).min(all.len())..];
            u = Unstructured::new(rest);
            Ok(String::from_utf8_lossy(&all[..end]).into_owned())
        }
    };
    let Ok(source) = source else { return };
    let t = match UriTemplate::parse(&source) {
        Ok(t) => t,
        Err(e) => {
            assert!(
                e.offset() <= source.len(),
                "{e} at {} in {source:?}",
                e.offset()
            );
            return;
        }
    };
    assert_eq!(t.as_str(), source);
    assert_eq!(t.to_string(), source);

    let names: Vec<String> = t.variables().map(str::to_owned).collect();
    let mut vars = BTreeMap::new();
    for name in &names {
        if let Ok(Some(v)) = value(&mut u) {
            vars.insert(name.clone(), v);
        }
    }
    let uri = t.expand(&vars);
    if let Some(m) = t.matches(&uri) {
        // The documented exceptions: a triplet such as `%41` that expansion passes through
        // and matching decodes, in a `{+v}`/`{#v}` value or in a variable name.
        let passes_triplets = names.iter().any(|n| n.contains('%'))
            || (source.contains("{+") || source.contains("{#"))
                && vars.values().any(|v| match v {
                    Value::String(s) => s.contains('%'),
                    Value::List(l) => l.iter().any(|s| s.contains('%')),
                    Value::Map(m) => m.iter().any(|(k, v)| k.contains('%') || v.contains('%')),
                });
        if !passes_triplets {
            assert_eq!(t.expand(&m), uri, "{t} with {vars:?} matched as {m:?}");
        }
    }

    if let Ok(other) = u.arbitrary::<&str>() {
        if let Some(m) = t.matches(other) {
            // Whatever matched names only the template's own variables.
            assert!(
                m.iter().all(|(k, _)| names.iter().any(|n| n == k)),
                "{t} on {other:?}"
            );
        }
    }
});
