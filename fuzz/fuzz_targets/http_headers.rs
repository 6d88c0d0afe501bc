//! The HTTP transport's header checks: the 2026 `MCP-Protocol-Version`, `Mcp-Method`,
//! `Mcp-Name` and `Mcp-Param-*` headers against the body (values plain or `=?base64?…?=`),
//! `Mcp-Session-Id`, and `Last-Event-ID` resumption.
//!
//! Properties:
//! - headers written from the body as a client must write them (any name case, padding,
//!   plain or Base64 values) pass; one header then dropped, repeated or given a different
//!   value fails with -32020;
//! - a Base64 sentinel decodes to the text it encodes, and any other value is kept as is;
//! - `Mcp-Session-Id` is read only when it is sent once and is visible ASCII;
//! - a `Last-Event-ID` of the stream replays exactly the kept events after it, in order; a
//!   foreign or arbitrary id replays nothing that is not the stream's own tail.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use ferromcp::__fuzz::{
    EventLog, MAX_RESUMABLE_EVENTS, Resumed, check_modern_headers, decode_header, session_id,
};
use http::{HeaderMap, HeaderName, HeaderValue};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};

const HEADER_MISMATCH: i64 = -32020;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let _ = match u.int_in_range(0..=3u8) {
        Ok(0) => modern_headers(&mut u),
        Ok(1) => sentinel(&mut u),
        Ok(2) => session(&mut u),
        _ => last_event_id(&mut u),
    };
});

/// A header value as a client writes it: plain when it survives as a visible-ASCII value
/// (trimmed, and not looking like a sentinel), else (or when asked) Base64.
fn encode(text: &str, base64: bool) -> String {
    let plain_ok = !text.is_empty()
        && text.bytes().all(|b| (0x20..0x7f).contains(&b))
        && !text.starts_with(' ')
        && !text.ends_with(' ')
        && !text.starts_with("=?base64?");
    if plain_ok && !base64 {
        text.to_owned()
    } else {
        format!("=?base64?{}?=", STANDARD.encode(text))
    }
}

#[derive(Debug, Arbitrary)]
enum Mutation {
    None,
    Drop(u8),
    Repeat(u8),
    Change(u8, String),
}

#[derive(Debug, Arbitrary)]
enum ParamValue {
    Absent,
    Null,
    Text(String),
    Flag(bool),
    Int(i64),
}

fn modern_headers(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    let method: String = match u.int_in_range(0..=4u8)? {
        0 => "tools/call".into(),
        1 => "prompts/get".into(),
        2 => "resources/read".into(),
        3 => "tools/list".into(),
        _ => u.arbitrary()?,
    };
    let version: String = match u.arbitrary::<bool>()? {
        true => "2026-07-28".into(),
        false => u.arbitrary()?,
    };
    let name: String = u.arbitrary()?;
    let n_params = u.int_in_range(0..=3usize)?;
    let mut props = Map::new();
    let mut args = Map::new();
    // (header name, header text if the body has a value, whether the value is a string)
    let mut params: Vec<(String, Option<String>, bool)> = Vec::new();
    for i in 0..n_params {
        let header: String = format!("P{i}{}", token(u)?);
        let value: ParamValue = u.arbitrary()?;
        // The types an annotation may be on (the registry refuses others, `number` too).
        let kind = match value {
            ParamValue::Flag(_) => "boolean",
            ParamValue::Int(_) => "integer",
            _ => "string",
        };
        props.insert(
            format!("arg{i}"),
            json!({"type": kind, "x-mcp-header": header}),
        );
        let (body, text, is_text) = match value {
            ParamValue::Absent => (None, None, false),
            ParamValue::Null => (Some(Value::Null), None, false),
            ParamValue::Text(s) => (Some(Value::String(s.clone())), Some(s), true),
            ParamValue::Flag(b) => (Some(Value::Bool(b)), Some(b.to_string()), false),
            ParamValue::Int(n) => (Some(Value::from(n)), Some(n.to_string()), false),
        };
        if let Some(body) = body {
            args.insert(format!("arg{i}"), body);
        }
        params.push((header, text, is_text));
    }
    let schema = json!({"type": "object", "properties": props});
    let schema = schema.as_object().expect("an object");
    let target = match method.as_str() {
        "resources/read" => json!({"uri": name}),
        _ => json!({"name": name, "arguments": args}),
    };
    let mut params_json = target;
    params_json["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": version});
    let body = serde_json::to_vec(&json!({
        "jsonrpc": "2.0", "id": 1, "method": method, "params": params_json,
    }))
    .expect("a body");

    // The headers a conforming client sends, as (name, decoded text, value).
    let names_target = matches!(
        method.as_str(),
        "tools/call" | "prompts/get" | "resources/read"
    );
    let mut sent: Vec<(String, Option<String>, String)> = Vec::new();
    let visible = |s: &str| !s.is_empty() && s.bytes().all(|b| (0x21..0x7f).contains(&b));
    if !visible(&version) || !visible(&method) {
        // Such values cannot travel in a header at all (there is no sentinel for these two).
        return Ok(());
    }
    sent.push(("MCP-Protocol-Version".into(), None, version.clone()));
    sent.push(("Mcp-Method".into(), None, method.clone()));
    if names_target {
        sent.push((
            "Mcp-Name".into(),
            Some(name.clone()),
            encode(&name, u.arbitrary()?),
        ));
    }
    if method == "tools/call" {
        for (header, text, is_text) in &params {
            if let Some(text) = text {
                let value = if *is_text {
                    encode(text, u.arbitrary()?)
                } else {
                    text.clone()
                };
                sent.push((
                    format!("Mcp-Param-{header}"),
                    is_text.then(|| text.clone()),
                    value,
                ));
            }
        }
    }

    let build = |sent: &[(String, Option<String>, String)], u: &mut Unstructured<'_>| {
        let mut map = HeaderMap::new();
        for (name, _, value) in sent {
            let name = if u.arbitrary().unwrap_or(false) {
                name.to_ascii_uppercase()
            } else {
                name.clone()
            };
            let pad = if u.arbitrary().unwrap_or(false) {
                " \t"
            } else {
                ""
            };
            let name = HeaderName::from_bytes(name.as_bytes()).expect("a token");
            let value =
                HeaderValue::from_str(&format!("{pad}{value}{pad}")).expect("visible ASCII");
            map.append(name, value);
        }
        map
    };
    let headers = build(&sent, u);
    let verdict = check_modern_headers(&headers, &body, Some(schema));
    assert!(
        matches!(verdict, Ok(true)),
        "conforming headers {headers:?} for {} rejected: {verdict:?}",
        String::from_utf8_lossy(&body)
    );

    let mutation: Mutation = u.arbitrary()?;
    let mut broken = sent.clone();
    let pick = |i: u8| usize::from(i) % sent.len();
    match mutation {
        Mutation::None => return Ok(()),
        Mutation::Drop(i) => {
            broken.remove(pick(i));
        }
        Mutation::Repeat(i) => broken.push(sent[pick(i)].clone()),
        Mutation::Change(i, new) => {
            let i = pick(i);
            let (name, decoded, old) = &sent[i];
            let value = match decoded {
                // Mcp-Name, or a string parameter: compared after decoding.
                Some(text) if *text != new => encode(&new, false),
                Some(_) => return Ok(()),
                // Compared as sent; a parameter that is not a string is compared as a
                // number or a boolean, so only non-numeric text surely differs.
                None if name.starts_with("Mcp-Param-") => format!("x{}", token(u)?),
                None if visible(&new) && new != *old => new,
                None => return Ok(()),
            };
            broken[i].2 = value;
        }
    }
    let headers = build(&broken, u);
    match check_modern_headers(&headers, &body, Some(schema)) {
        Err(e) if e.code.0 == HEADER_MISMATCH => {}
        other => panic!(
            "broken headers {headers:?} for {} gave {other:?}",
            String::from_utf8_lossy(&body)
        ),
    }
    Ok(())
}

/// A short header-name token.
fn token(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
    const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";
    let n = u.int_in_range(0..=6usize)?;
    (0..n).map(|_| Ok(char::from(*u.choose(CHARS)?))).collect()
}

fn sentinel(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    let text: String = u.arbitrary()?;
    let encoded = format!("=?base64?{}?=", STANDARD.encode(&text));
    assert_eq!(decode_header("Mcp-Name", &encoded).ok(), Some(text.clone()));
    let raw: String = u.arbitrary()?;
    let sentinel_shaped = raw.starts_with("=?base64?") && raw[9..].ends_with("?=");
    match decode_header("Mcp-Name", &raw) {
        Ok(decoded) if !sentinel_shaped => assert_eq!(decoded, raw),
        Ok(decoded) => assert_eq!(
            STANDARD.decode(&raw[9..raw.len() - 2]).ok(),
            Some(decoded.into_bytes()),
            "{raw:?}"
        ),
        Err(e) => {
            assert!(sentinel_shaped, "a plain value {raw:?} was refused");
            assert_eq!(e.code.0, HEADER_MISMATCH);
        }
    }
    Ok(())
}

fn session(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    let mut headers = HeaderMap::new();
    let values: Vec<Vec<u8>> = u.arbitrary()?;
    let mut kept = Vec::new();
    for v in values.iter().take(3) {
        if let Ok(value) = HeaderValue::from_bytes(v) {
            headers.append("mcp-session-id", value);
            kept.push(v.clone());
        }
    }
    let visible = |v: &[u8]| v.iter().all(|&b| b == b'\t' || (0x20..0x7f).contains(&b));
    match (session_id(&headers), kept.as_slice()) {
        (Ok(None), []) => {}
        (Ok(Some(id)), [one]) => {
            assert!(visible(one));
            let text = std::str::from_utf8(one).expect("ASCII");
            assert_eq!(id, text.trim_matches([' ', '\t']));
        }
        (Err(()), [one]) => assert!(!visible(one), "{one:?} refused"),
        (Err(()), [_, _, ..]) => {}
        (got, kept) => panic!("{kept:?} read as {got:?}"),
    }
    Ok(())
}

/// The event id of a replayed SSE frame.
fn frame_id(frame: &str) -> &str {
    frame
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("id: "))
        .expect("an id line")
}

fn last_event_id(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    let log = EventLog::new();
    let pushed = u.int_in_range(0..=300u16)?;
    for i in 0..pushed {
        log.push(&format!("{{\"n\":{i}}}"));
    }
    let priming = log.priming_id();
    let prefix = priming.strip_suffix(".0").expect("a priming id ends in .0");
    let kept_from = u64::from(pushed).saturating_sub(MAX_RESUMABLE_EVENTS as u64) + 1;

    // The stream's own ids, with padding a proxy may add.
    let after: u64 = match u.arbitrary::<bool>()? {
        true => u.int_in_range(0..=u64::from(pushed) + 2)?,
        false => u.arbitrary()?,
    };
    let own = format!(" {prefix}.{after}\t");
    let Resumed::Replayed(frames) = log.resume(&own) else {
        panic!("the stream's own id {own:?} was not resumed");
    };
    let expected: Vec<String> = (after.saturating_add(1).max(kept_from)..=u64::from(pushed))
        .map(|seq| format!("{prefix}.{seq}"))
        .collect();
    let got: Vec<&str> = frames.iter().map(|f| frame_id(f)).collect();
    assert_eq!(got, expected);
    for (frame, id) in frames.iter().zip(&expected) {
        let seq: u64 = id
            .rsplit('.')
            .next()
            .and_then(|s| s.parse().ok())
            .expect("a seq");
        assert!(
            frame.contains(&format!("data: {{\"n\":{}}}\n\n", seq - 1)),
            "{frame:?}"
        );
    }

    // Any other id.
    let raw: String = u.arbitrary()?;
    match log.resume(&raw) {
        Resumed::Malformed | Resumed::Unknown => {}
        Resumed::Replayed(frames) => {
            assert!(
                raw.trim().starts_with(&format!("{prefix}.")),
                "{raw:?} resumed the stream"
            );
            let all: Vec<String> = (kept_from..=u64::from(pushed))
                .map(|seq| format!("{prefix}.{seq}"))
                .collect();
            let got: Vec<&str> = frames.iter().map(|f| frame_id(f)).collect();
            assert!(all.ends_with(&got.iter().map(|s| s.to_string()).collect::<Vec<_>>()));
        }
    }
    let foreign = format!("x{prefix}.{after}");
    assert!(
        !matches!(log.resume(&foreign), Resumed::Replayed(_)),
        "{foreign:?}"
    );
    Ok(())
}
