//! The tool, prompt or resource a request names, read from its params only as far as that
//! member: what [`RequestInfo::target`](super::RequestInfo::target) and the default
//! [`Tracing`](super::Tracing) observer report.

use std::ops::ControlFlow;

use ferromcp_core::jsonrpc::Request;
use serde::Deserialize;

use super::Target;
use crate::scan::{self, string_end};

/// The `name` or `uri` a request is about.
#[derive(Deserialize)]
struct Members<'a> {
    #[serde(borrow, default)]
    name: Option<&'a str>,
    #[serde(borrow, default)]
    uri: Option<&'a str>,
}

/// The tool, prompt or resource `req` is about: read from the params up to that member
/// only, so the members after it (a tool's arguments, however large) are not read again.
pub(crate) fn about<'a>(req: &'a Request) -> Option<Target<'a>> {
    let (key, about): (_, fn(&'a str) -> Target<'a>) = match req.method.as_str() {
        "tools/call" => ("name", Target::Tool),
        "prompts/get" => ("name", Target::Prompt),
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            ("uri", Target::Resource)
        }
        _ => return None,
    };
    let params = req.params.as_ref()?.get();
    let found = match member(params, key) {
        Member::Str(s) => s,
        Member::Absent => return None,
        // An escape the scan does not decode: as serde reads it (borrowed, so an escaped
        // value is none, as before).
        Member::Unsure => {
            let t = serde_json::from_str::<Members<'_>>(params).ok()?;
            if key == "name" { t.name } else { t.uri }?
        }
    };
    Some(about(found))
}

/// What a scan of a params object found for one top-level member.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Member<'a> {
    /// A string without escapes.
    Str(&'a str),
    /// Not there, or not a string.
    Absent,
    /// A key or the value has an escape, or the text is not what the envelope parser lets
    /// through: read it properly.
    Unsure,
}

/// Finds the top-level member `key` of `params`, JSON text the envelope parser has already
/// checked, stopping at it: members after it are not read, members before it are skipped
/// by their brackets and quotes.
pub(crate) fn member<'a>(params: &'a str, key: &str) -> Member<'a> {
    // The usual case, written by every client we know: the member sought first, no spaces
    // (`{"name":"add",...`).
    if let Some(value) = params
        .strip_prefix("{\"")
        .and_then(|p| p.strip_prefix(key))
        .and_then(|p| p.strip_prefix("\":\""))
    {
        // A name is short: a byte loop finds its end sooner than a call would.
        return match value.bytes().position(|c| c == b'"' || c == b'\\') {
            Some(n) if value.as_bytes()[n] == b'"' => Member::Str(&value[..n]),
            _ => Member::Unsure,
        };
    }
    if !params.trim_start().starts_with('{') {
        return Member::Absent;
    }
    let mut found = Member::Absent;
    let walked = scan::each_member(params, |name, escaped, value| {
        if escaped {
            found = Member::Unsure;
        } else if &name[1..name.len() - 1] == key {
            found = match string_end(value.as_bytes(), 0) {
                _ if !value.starts_with('"') => Member::Absent,
                Some((end, false)) if end == value.len() => Member::Str(&value[1..end - 1]),
                _ => Member::Unsure,
            };
        } else {
            return ControlFlow::Continue(());
        }
        // The first member of that name decides, as does an escape before it.
        ControlFlow::Break(())
    });
    match walked {
        Some(()) => found,
        None => Member::Unsure,
    }
}

#[cfg(test)]
mod tests {
    use super::{Member, member};

    /// What serde reads for `key`: a string member, else nothing.
    fn by_serde(params: &str, key: &str) -> Option<String> {
        let v: serde_json::Value = serde_json::from_str(params).unwrap();
        v.get(key).and_then(|v| v.as_str()).map(str::to_owned)
    }

    #[test]
    fn the_scan_finds_the_member_serde_finds() {
        let cases = [
            r#"{"name":"echo","arguments":{"text":"hi"}}"#,
            r#"{"arguments":{"text":"a \"name\": \"x\" {[}"},"name":"echo"}"#,
            r#"{ "arguments" : [1, {"name":"inner"}, "]}"] , "name" : "deep" }"#,
            r#"{"arguments":{"a":{"b":[{"c":"}"}]}},"name":"nested"}"#,
            r#"{"n":1,"m":-2.5e3,"t":true,"f":false,"z":null,"name":"after-scalars"}"#,
            r#"{"n":1}"#,
            r#"{"name":5}"#,
            r#"{"name":null}"#,
            r#"{"name":{"name":"x"}}"#,
            r#"{}"#,
            r#"{ }"#,
            r#"{"other":"x"}"#,
            r#"{"_meta":{"name":"not this"},"uri":"file:///a"}"#,
            "{\n\t\"name\"\r\n:\n\"ws\"\n}",
            r#"{"x":"\\","name":"after-backslash"}"#,
            r#"{"x":"\"","name":"after-quote"}"#,
            r#"{"x":"\\\"","name":"after-both"}"#,
            r#"{"name":""}"#,
            r#"{"name":"","x":1}"#,
            r#"{"names":"not this","name":"this"}"#,
            r#"{"name" :"spaced"}"#,
            r#"{"uri":"file:///a","name":"both"}"#,
            r#"[1,2]"#,
            r#""name""#,
            r#"7"#,
        ];
        for params in cases {
            for key in ["name", "uri"] {
                let got = match member(params, key) {
                    Member::Str(s) => Some(s.to_owned()),
                    Member::Absent => None,
                    Member::Unsure => panic!("unsure of {key} in {params}"),
                };
                assert_eq!(got, by_serde(params, key), "{key} in {params}");
            }
        }
    }

    #[test]
    fn escapes_in_the_key_or_value_sought_are_left_to_serde() {
        assert_eq!(member(r#"{"name":"caf\u00e9"}"#, "name"), Member::Unsure);
        assert_eq!(member(r#"{"na\u006de":"x"}"#, "name"), Member::Unsure);
        assert_eq!(member(r#"{"name":"a\"b"}"#, "name"), Member::Unsure);
        // An escape in another member's value is skipped over.
        assert_eq!(
            member(r#"{"a":"\u0041\"","name":"x"}"#, "name"),
            Member::Str("x")
        );
    }
}
