//! The JSON-RPC envelope parser (`ferromcp_core::jsonrpc::parse`), single messages and batches,
//! against serde_json and a reference classifier written plainly on `serde_json::Value`.
//!
//! Properties:
//! - valid JSON is never a parse error, and JSON that serde_json rejects is never accepted;
//! - every message (and every batch element) is classified as the reference says, and its
//!   `id`, `method`, `params`, `result` and `error` are the ones the reference reads;
//! - a message, written back out, parses to the same message;
//! - the telemetry's scan for a request's `name` or `uri` (`params_member`) finds the first
//!   top-level member of that name, as a reference reading the members in order does;
//! - params taken as a tool's arguments (`argument_members`) split into the members serde
//!   reads into a map, values unchanged;
//! - the SDK's JSON writer (`ferromcp_core::jsonrpc::to_string`) writes any value, and the input
//!   taken as a string, byte for byte as serde_json does.
#![no_main]

use ferromcp_core::error::ErrorObject;
use ferromcp_core::jsonrpc::{
    EnvelopeError, EnvelopeErrorKind, Incoming, Message, Params, RequestId, parse, parse_owned,
};
use libfuzzer_sys::fuzz_target;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

fuzz_target!(|data: &[u8]| check(data));

fn check(data: &[u8]) {
    let parsed = parse(data);
    // Reading a buffer it keeps gives the same messages (the params pointing into it).
    assert_eq!(
        format!("{:?}", parse_owned(data.to_vec())),
        format!("{parsed:?}"),
        "parse_owned differs"
    );
    let text = String::from_utf8_lossy(data);
    assert_eq!(
        ferromcp_core::jsonrpc::to_string(&text).ok(),
        serde_json::to_string(&text).ok()
    );
    let value = serde_json::from_slice::<Value>(data);
    if let Ok(value) = &value {
        assert_eq!(
            ferromcp_core::jsonrpc::to_string(value).ok(),
            serde_json::to_string(value).ok()
        );
    }
    match value {
        Err(e)
            if e.to_string().starts_with("recursion limit exceeded")
                || e.to_string().starts_with("number out of range")
                || e.to_string().contains("surrogate")
                || e.to_string().starts_with("unexpected end of hex escape") =>
        {
            // Past its depth limit, with a number beyond f64 or an escaped lone surrogate, a
            // `Value` cannot hold the input, which the JSON grammar allows. The envelope
            // keeps such members as text (a typed read of them fails later, as invalid
            // params); what it must still refuse is text that is not JSON at all.
            let grammatical = std::str::from_utf8(data).is_ok()
                && serde_json::from_slice::<serde::de::IgnoredAny>(data).is_ok();
            if !grammatical {
                assert!(
                    matches!(&parsed, Err(e) if e.kind == EnvelopeErrorKind::Parse),
                    "not JSON, but the envelope gave {parsed:?}"
                );
            }
        }
        Err(e) => match &parsed {
            Err(err) if err.kind == EnvelopeErrorKind::Parse => {}
            other => panic!("serde_json rejects the input ({e}) but the envelope gave {other:?}"),
        },
        Ok(Value::Array(items)) if !items.is_empty() => {
            let Ok(Incoming::Batch(got)) = &parsed else {
                panic!("a non-empty array must be a batch, got {parsed:?}");
            };
            let raws: Vec<&RawValue> = serde_json::from_slice(data).expect("a valid array");
            assert_eq!(got.len(), raws.len());
            for (raw, got) in raws.iter().zip(got) {
                agree(raw.get(), got);
            }
        }
        Ok(_) => {
            let single = match &parsed {
                Ok(Incoming::Single(m)) => Ok(m.clone()),
                Ok(Incoming::Batch(_)) => panic!("only a non-empty array is a batch"),
                Err(e) => Err(e.clone()),
            };
            agree(
                std::str::from_utf8(data).expect("valid JSON is UTF-8"),
                &single,
            );
        }
    }
}

/// What the reference says one message is.
#[derive(Debug, PartialEq)]
enum Expected {
    Request {
        id: RequestId,
        method: String,
        params: Option<Value>,
    },
    Notification {
        method: String,
        params: Option<Value>,
    },
    Response {
        id: RequestId,
        result: Value,
    },
    Error {
        id: Option<RequestId>,
        error: ErrorObject,
    },
    Invalid,
}

fn agree(raw: &str, got: &Result<Message, EnvelopeError>) {
    let expected = reference(raw);
    let actual = match got {
        Ok(m) => describe(m),
        Err(e) => {
            assert_eq!(
                e.kind,
                EnvelopeErrorKind::InvalidRequest,
                "valid JSON is never a parse error: {raw} gave {e:?}"
            );
            Expected::Invalid
        }
    };
    assert_eq!(actual, expected, "{raw}");
    if let Ok(Message::Request(r)) = got
        && let Some(params) = r.params.as_ref()
    {
        for key in ["name", "uri"] {
            member_agrees(params.get(), key);
        }
        let raw: &RawValue =
            serde_json::from_str(params.get()).expect("the envelope keeps valid JSON");
        arguments_agree(raw);
    }
    if let Ok(message) = got {
        let again = serde_json::to_vec(&write(message)).expect("a message serializes");
        match parse(&again) {
            Ok(Incoming::Single(m)) => assert_eq!(describe(&m), actual, "round trip of {raw}"),
            other => panic!("{raw} written back out does not parse: {other:?}"),
        }
    }
}

fn value(raw: &RawValue) -> Value {
    serde_json::from_str(raw.get()).expect("the envelope keeps valid JSON")
}

fn params_value(params: &Params) -> Value {
    serde_json::from_str(params.get()).expect("the envelope keeps valid JSON")
}

fn describe(m: &Message) -> Expected {
    match m {
        Message::Request(r) => Expected::Request {
            id: r.id.clone(),
            method: r.method.clone(),
            params: r.params.as_ref().map(params_value),
        },
        Message::Notification(n) => Expected::Notification {
            method: n.method.clone(),
            params: n.params.as_ref().map(params_value),
        },
        Message::Response(r) => Expected::Response {
            id: r.id.clone(),
            result: value(&r.result),
        },
        Message::Error(e) => Expected::Error {
            id: e.id.clone(),
            error: e.error.clone(),
        },
    }
}

fn write(m: &Message) -> Value {
    let mut out = serde_json::json!({"jsonrpc": "2.0"});
    let Value::Object(o) = &mut out else {
        unreachable!()
    };
    match describe(m) {
        Expected::Request { id, method, params } => {
            o.insert("id".into(), serde_json::to_value(id).expect("an id"));
            o.insert("method".into(), method.into());
            if let Some(p) = params {
                o.insert("params".into(), p);
            }
        }
        Expected::Notification { method, params } => {
            o.insert("method".into(), method.into());
            if let Some(p) = params {
                o.insert("params".into(), p);
            }
        }
        Expected::Response { id, result } => {
            o.insert("id".into(), serde_json::to_value(id).expect("an id"));
            o.insert("result".into(), result);
        }
        Expected::Error { id, error } => {
            o.insert("id".into(), serde_json::to_value(id).expect("an id"));
            o.insert(
                "error".into(),
                serde_json::to_value(error).expect("an error"),
            );
        }
        Expected::Invalid => unreachable!(),
    }
    out
}

/// The members of a JSON object in order, as text, repeated keys included (a `Value` keeps
/// only the last); `None` for anything but an object.
fn members(raw: &str) -> Option<Vec<(String, Box<RawValue>)>> {
    struct Members;
    impl<'de> Visitor<'de> for Members {
        type Value = Option<Vec<(String, Box<RawValue>)>>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some((k, v)) = map.next_entry::<String, Box<RawValue>>()? {
                out.push((k, v));
            }
            Ok(Some(out))
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut s: A,
        ) -> Result<Self::Value, A::Error> {
            while s.next_element::<serde::de::IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    }
    let mut de = serde_json::Deserializer::from_str(raw);
    de.deserialize_any(Members).expect("valid JSON")
}

/// JSON-RPC 2.0 as MCP restricts it (string or integer ids, never `null` on a request), and
/// no envelope member given twice.
fn reference(raw: &str) -> Expected {
    const ENVELOPE: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];
    let Some(members) = members(raw) else {
        return Expected::Invalid;
    };
    let mut seen: [Option<&RawValue>; 6] = [None; 6];
    for (k, v) in &members {
        if let Some(i) = ENVELOPE.iter().position(|e| e == k) {
            if seen[i].replace(v).is_some() {
                return Expected::Invalid;
            }
        }
    }
    let [jsonrpc, id, method, params, result, error] = seen.map(|raw| raw.map(value));
    let (jsonrpc, id, method, params, result) = (
        jsonrpc.as_ref(),
        id.as_ref(),
        method.as_ref(),
        params.as_ref(),
        result.as_ref(),
    );
    if jsonrpc != Some(&Value::String("2.0".into())) {
        return Expected::Invalid;
    }
    // `None`: absent or null; `Some(Err)`: not an id at all.
    let id = match id {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(Ok(RequestId::String(s.clone()))),
        Some(Value::Number(n)) => Some(n.as_i64().map(RequestId::Number).ok_or(())),
        Some(_) => Some(Err(())),
    };
    let Some(id) = id.transpose().ok() else {
        return Expected::Invalid;
    };
    let method = match method {
        None => None,
        Some(Value::String(m)) => Some(m.clone()),
        Some(_) => return Expected::Invalid,
    };
    if params.is_some_and(|p| !p.is_object() && !p.is_array()) {
        return Expected::Invalid;
    }
    let params = params.cloned();
    let id_member_present = seen[1].is_some();
    match (method, result, error) {
        (Some(method), None, None) => match id {
            Some(id) => Expected::Request { id, method, params },
            None if !id_member_present => Expected::Notification { method, params },
            None => Expected::Invalid,
        },
        (None, Some(result), None) => match id {
            Some(id) if params.is_none() => Expected::Response {
                id,
                result: result.clone(),
            },
            _ => Expected::Invalid,
        },
        // From its text: a repeated member inside `error` is an error too, as for any
        // derived struct.
        (None, None, Some(_)) => {
            match serde_json::from_str::<ErrorObject>(seen[5].expect("error").get()) {
                Ok(error) => Expected::Error { id, error },
                Err(_) => Expected::Invalid,
            }
        }
        _ => Expected::Invalid,
    }
}

/// The members of a JSON object in order, repeats kept.
struct Members(Vec<(String, Box<RawValue>)>);

impl<'de> serde::Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Members, D::Error> {
        struct InOrder;
        impl<'de> Visitor<'de> for InOrder {
            type Value = Members;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut members = Vec::new();
                while let Some(entry) = map.next_entry::<String, Box<RawValue>>()? {
                    members.push(entry);
                }
                Ok(Members(members))
            }
        }
        d.deserialize_map(InOrder)
    }
}

/// A request's params taken as a tool's `arguments`: split into the members serde reads
/// into a map (names decoded, a later duplicate winning), each value's text unchanged; or,
/// when not an object, refused as serde refuses it.
fn arguments_agree(params: &RawValue) {
    let split = ferromcp::__fuzz::argument_members(params);
    let reference =
        serde_json::from_str::<std::collections::BTreeMap<String, Box<RawValue>>>(params.get())
            .map(|m| {
                m.into_iter()
                    .map(|(k, v)| (k, v.get().to_owned()))
                    .collect::<Vec<_>>()
            });
    match (split, reference) {
        (Ok(split), Ok(reference)) => assert_eq!(split, reference, "members of {}", params.get()),
        // `null` is taken as no arguments.
        (Ok(split), Err(_)) => assert!(
            split.is_empty() && params.get().trim() == "null",
            "{} split though not an object",
            params.get()
        ),
        (Err(_), Ok(_)) => panic!("{} is an object, refused", params.get()),
        (Err(_), Err(_)) => {}
    }
}

/// The scan for `key` in `params` against the first member of that (decoded) name.
fn member_agrees(params: &str, key: &str) {
    let first = serde_json::from_str::<Members>(params)
        .ok()
        .and_then(|m| m.0.into_iter().find(|(k, _)| k == key));
    match ferromcp::__fuzz::params_member(params, key) {
        Some(Some(text)) => {
            let (_, raw) = first.unwrap_or_else(|| panic!("{key} found in {params}, absent"));
            assert_eq!(
                raw.get(),
                format!("\"{text}\""),
                "{key} in {params}: the scan's text is not the member's"
            );
        }
        Some(None) => {
            if let Some((_, raw)) = first {
                assert!(
                    !raw.get().starts_with('"'),
                    "{key} in {params} is a string, but the scan found none"
                );
            }
        }
        // Left to serde: only where there is an escape.
        None => assert!(
            params.contains('\\'),
            "{key} in {params}: unsure without an escape"
        ),
    }
}
