//! Scans of JSON text that a parser has already checked: the end of a string or a value,
//! an object's top-level members. What the telemetry reads a request's target with, and what
//! splits a tool's arguments into members, without a second pass of a parser over values
//! that may be large: strings are skipped with `memchr`, several bytes at a time.
//!
//! The text must be well formed (a `RawValue`, or what the envelope parser let through):
//! the scans do not check it. Where they meet something they do not expect they give up
//! (`None`), and the caller reads the text with serde instead.

use ferromcp_core::bytes;
use std::ops::ControlFlow;

/// The index of the first byte at or after `i` that is not JSON whitespace.
fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = b.get(i) {
        i += 1;
    }
    i
}

/// The index just past the string that opens at `b[i]` (a `"`), and whether it has an
/// escape.
pub(crate) fn string_end(b: &[u8], i: usize) -> Option<(usize, bool)> {
    let mut escaped = false;
    let mut j = i + 1;
    loop {
        // Names and URIs are short: a byte loop over the first bytes finds their end before
        // `memchr` would have set up its vector search.
        let rest = b.get(j..)?;
        let mut n = 0;
        let at = j + loop {
            match rest.get(n) {
                Some(b'"' | b'\\') => break n,
                Some(_) if n < 32 => n += 1,
                Some(_) => break n + bytes::find2(b'"', b'\\', rest.get(n..)?)?,
                None => return None,
            }
        };
        if b[at] == b'"' {
            return Some((at + 1, escaped));
        }
        escaped = true;
        j = at + 2;
    }
}

/// The index just past the value that starts at `b[i]`.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    let (open, close) = match b.get(i)? {
        b'"' => return string_end(b, i).map(|(end, _)| end),
        b'{' => (b'{', b'}'),
        b'[' => (b'[', b']'),
        // A number, `true`, `false` or `null`: up to the next delimiter.
        _ => {
            let len = b[i..]
                .iter()
                .position(|c| matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))?;
            return Some(i + len);
        }
    };
    // Only this kind of bracket nests it (the text is well formed); strings are skipped
    // whole, brackets in them do not count.
    let mut depth = 0_usize;
    let mut j = i;
    loop {
        let at = j + bytes::find3(b'"', open, close, b.get(j..)?)?;
        match b[at] {
            b'"' => j = string_end(b, at)?.0,
            c if c == open => {
                depth += 1;
                j = at + 1;
            }
            _ => {
                depth -= 1;
                j = at + 1;
                if depth == 0 {
                    return Some(j);
                }
            }
        }
    }
}

/// Calls `each(name, escaped, value)` for the top-level members of the object `text`, in
/// order, until it breaks: the name's text with its quotes, whether it has an escape, and
/// the value's text. `None` (after calling `each` for the members before it) when `text` is
/// not an object or not what a checked text can be.
pub(crate) fn each_member<'a>(
    text: &'a str,
    mut each: impl FnMut(&'a str, bool, &'a str) -> ControlFlow<()>,
) -> Option<()> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return (skip_ws(b, i + 1) == b.len()).then_some(());
    }
    loop {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let (end, escaped) = string_end(b, i)?;
        let name = text.get(i..end)?;
        i = skip_ws(b, end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(b, i + 1);
        let value_end = skip_value(b, i)?;
        if each(name, escaped, text.get(i..value_end)?).is_break() {
            return Some(());
        }
        i = skip_ws(b, value_end);
        match b.get(i) {
            Some(b',') => i = skip_ws(b, i + 1),
            Some(b'}') => return (skip_ws(b, i + 1) == b.len()).then_some(()),
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use std::ops::ControlFlow;

    use serde_json::value::RawValue;

    use super::each_member;

    /// The members as serde reads them into a map: names decoded, a later duplicate wins.
    fn by_serde(text: &str) -> BTreeMap<String, String> {
        serde_json::from_str::<BTreeMap<String, Box<RawValue>>>(text)
            .unwrap()
            .into_iter()
            .map(|(k, v)| (k, v.get().to_owned()))
            .collect()
    }

    fn by_scan(text: &str) -> Option<BTreeMap<String, String>> {
        let mut members = BTreeMap::new();
        each_member(text, |name, _, value| {
            let name: String = serde_json::from_str(name).unwrap();
            members.insert(name, value.to_owned());
            ControlFlow::Continue(())
        })?;
        Some(members)
    }

    #[test]
    fn the_members_are_the_ones_serde_reads() {
        let cases = [
            r#"{}"#,
            " { } ",
            r#"{"text":"hi"}"#,
            r#"{"a":1,"b":-2.5e3,"c":true,"d":false,"e":null}"#,
            r#"{ "a" : [1, {"b":"]}"}, "["] , "c" : {"d":{"e":[{}]}} }"#,
            r#"{"a":"\"{[","b":"\\","c":"\\\"}"}"#,
            r#"{"t\u0069tle":"x","title":"y"}"#,
            r#"{"a":1,"a":2}"#,
            "{\n\t\"a\"\r\n:\n\"ws\"\n,\"b\":[\n]\n}\n",
            r#"{"long":"0123456789012345678901234567890123456789 with \n an escape past 32 bytes"}"#,
            r#"{"n":0,"m":1e-7,"o":[1,2,[3,[4]]],"p":{"q":{"r":"}"}}}"#,
        ];
        for text in cases {
            assert_eq!(by_scan(text), Some(by_serde(text)), "{text}");
        }
    }

    #[test]
    fn what_is_not_an_object_is_left_to_serde() {
        for text in ["[1,2]", "\"s\"", "7", "null", "true"] {
            assert_eq!(
                each_member(text, |_, _, _| ControlFlow::Continue(())),
                None,
                "{text}"
            );
        }
    }

    #[test]
    fn escaped_names_are_marked() {
        let mut seen = Vec::new();
        each_member(r#"{"a\"b":1,"c":2}"#, |name, escaped, _| {
            seen.push((name, escaped));
            ControlFlow::Continue(())
        });
        assert_eq!(seen, [(r#""a\"b""#, true), (r#""c""#, false)]);
    }
}
