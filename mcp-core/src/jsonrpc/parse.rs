//! Reading the envelope: one strict pass over the outer object, then the checks that tell a
//! syntax error (-32700) from a structural one (-32600).

use std::fmt;
use std::ops::Range;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use super::{
    EnvelopeError, EnvelopeErrorKind, ErrorResponse, Incoming, Message, Notification, Params,
    Request, RequestId, Response,
};
use crate::error::ErrorObject;

/// Parses one transport message (a stdio line or an HTTP body).
///
/// # Errors
///
/// Returns an [`EnvelopeError`] when the bytes are not JSON ([`EnvelopeErrorKind::Parse`]),
/// or are JSON but not a JSON-RPC 2.0 message or batch ([`EnvelopeErrorKind::InvalidRequest`]:
/// wrong or missing `jsonrpc`, `id: null` on a request, both `result` and `error`, a
/// duplicate envelope key, an empty batch, a top-level scalar).
pub fn parse(bytes: &[u8]) -> Result<Incoming, EnvelopeError> {
    parse_text(require_utf8(bytes)?)
}

fn is_batch(text: &str) -> bool {
    text.as_bytes().trim_ascii_start().first() == Some(&b'[')
}

fn parse_text(text: &str) -> Result<Incoming, EnvelopeError> {
    let bytes = text.as_bytes();
    if is_batch(text) {
        let elements: Vec<&RawValue> =
            serde_json::from_str(text).map_err(|e| classify(bytes, &e))?;
        if elements.is_empty() {
            return Err(EnvelopeError::invalid("empty batch"));
        }
        return Ok(Incoming::Batch(
            elements
                .into_iter()
                .map(|raw| parse_utf8_message(raw.get()))
                .collect(),
        ));
    }
    parse_utf8_message(text).map(Incoming::Single)
}

/// JSON text is UTF-8 (RFC 8259 section 8.1). serde_json checks it only in the strings it
/// decodes, so without this a stray byte in a member the envelope skips went unnoticed.
fn require_utf8(bytes: &[u8]) -> Result<&str, EnvelopeError> {
    std::str::from_utf8(bytes).map_err(|e| not_utf8(&e))
}

fn not_utf8(e: &std::str::Utf8Error) -> EnvelopeError {
    EnvelopeError::parse(format!(
        "parse error: invalid UTF-8 at byte {}",
        e.valid_up_to()
    ))
}

/// [`parse`] of a buffer the caller gives up: a single request or notification keeps it, and
/// its [`Params`] point into it instead of holding a copy (a stdio line or an HTTP body read
/// for this message alone), unless the buffer is mostly something else (more than 4 KiB and
/// more than the params), when the params are copied out of it as [`parse`] does. Batches
/// are read as [`parse`] reads them.
///
/// # Errors
///
/// As [`parse`].
pub fn parse_owned(bytes: Vec<u8>) -> Result<Incoming, EnvelopeError> {
    let text = String::from_utf8(bytes).map_err(|e| not_utf8(&e.utf8_error()))?;
    if is_batch(&text) {
        return parse_text(&text);
    }
    let (mut message, at) = parse_in_place(&text)?;
    if let Some(params) = message_params(&mut message) {
        // The buffer is kept only when `params` is most of it (or it is small): a request
        // holds no more than twice its params, and 4 KiB, whatever else the message carried.
        let rest = text.capacity() - at.len();
        *params = if rest <= at.len().max(KEEP_ANYWAY) {
            Params::within(text, at)
        } else {
            Params::copied(&text, at)
        };
    }
    Ok(Incoming::Single(message))
}

/// What a message may carry besides its `params` and still be kept whole by them.
const KEEP_ANYWAY: usize = 4096;

/// The `params` of a request or a notification.
fn message_params(message: &mut Message) -> Option<&mut Params> {
    match message {
        Message::Request(r) => r.params.as_mut(),
        Message::Notification(n) => n.params.as_mut(),
        Message::Response(_) | Message::Error(_) => None,
    }
}

/// Parses exactly one JSON-RPC message; a top-level array is an invalid request here.
///
/// # Errors
///
/// As [`parse`], and a batch is refused with [`EnvelopeErrorKind::InvalidRequest`].
pub fn parse_message(bytes: &[u8]) -> Result<Message, EnvelopeError> {
    parse_utf8_message(require_utf8(bytes)?)
}

/// [`parse_message`] of a text (checked UTF-8): read as a `str`, so that serde_json does
/// not check the UTF-8 of `params` again when it keeps it raw (it does from a byte slice).
fn parse_utf8_message(text: &str) -> Result<Message, EnvelopeError> {
    let (mut message, at) = parse_in_place(text)?;
    if let Some(params) = message_params(&mut message) {
        *params = Params::copied(text, at);
    }
    Ok(message)
}

/// Reads one message whose `params`, if any, are left as a placeholder for the caller to
/// fill with the text at the place returned.
fn parse_in_place(text: &str) -> Result<(Message, Range<usize>), EnvelopeError> {
    let bytes = text.as_bytes();
    let mut de = serde_json::Deserializer::from_str(text);
    let result = EnvelopeSeed {
        base: text.as_ptr() as usize,
    }
    .deserialize(&mut de)
    .and_then(|m| de.end().map(|()| m));
    match result {
        Ok(Ok(message)) => Ok(message),
        Ok(Err(mut invalid)) => {
            invalid.id = invalid.id.or_else(|| salvage_id(bytes));
            Err(invalid)
        }
        Err(e) => Err(classify(bytes, &e)),
    }
}

/// Tells a syntax error from a structural one. serde_json may stop at a structural problem
/// before it reaches a later syntax error, so any non-syntax error is confirmed against a
/// plain syntax check of the whole input.
fn classify(bytes: &[u8], e: &serde_json::Error) -> EnvelopeError {
    use serde_json::error::Category;
    match e.classify() {
        Category::Syntax | Category::Eof | Category::Io => {
            EnvelopeError::parse(format!("parse error: {e}"))
        }
        Category::Data => match serde_json::from_slice::<IgnoredAny>(bytes) {
            Err(syntax) if !matches!(syntax.classify(), Category::Data) => {
                EnvelopeError::parse(format!("parse error: {syntax}"))
            }
            _ => {
                let mut err = EnvelopeError::invalid(format!("invalid request: {e}"));
                err.id = salvage_id(bytes);
                err
            }
        },
    }
}

/// Best effort: the `id` of a message that is valid JSON but an invalid envelope, so the
/// error response can echo it. Only the error path pays for this second parse.
fn salvage_id(bytes: &[u8]) -> Option<RequestId> {
    #[derive(Deserialize)]
    struct IdOnly {
        id: Option<RequestId>,
    }
    serde_json::from_slice::<IdOnly>(bytes)
        .ok()
        .and_then(|m| m.id)
}

/// Drives the one-pass envelope visit. The inner `Result` carries structural problems found
/// after the JSON itself was read completely (so they are never mistaken for syntax errors).
/// `base` is the address of the text being read, from which the place of `params` in it is
/// told (serde_json hands a raw value out as a slice of that text).
struct EnvelopeSeed {
    base: usize,
}

impl<'de> DeserializeSeed<'de> for EnvelopeSeed {
    type Value = Result<(Message, Range<usize>), EnvelopeError>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(EnvelopeVisitor { base: self.base })
    }
}

struct EnvelopeVisitor {
    base: usize,
}

/// The `id` member as seen on the wire: absent, `null`, or a valid id.
enum IdMember {
    Null,
    Id(RequestId),
}

impl<'de> Deserialize<'de> for IdMember {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Option::<RequestId>::deserialize(deserializer)
            .map(|id| id.map_or(IdMember::Null, IdMember::Id))
    }
}

impl<'de> Visitor<'de> for EnvelopeVisitor {
    type Value = Result<(Message, Range<usize>), EnvelopeError>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC 2.0 message object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut jsonrpc: Option<()> = None;
        let mut id: Option<IdMember> = None;
        let mut method: Option<String> = None;
        let mut params: Option<&'de RawValue> = None;
        let mut result: Option<Box<RawValue>> = None;
        let mut error: Option<Box<RawValue>> = None;
        let mut problem: Option<String> = None;

        fn dup(problem: &mut Option<String>, key: &str) {
            problem.get_or_insert_with(|| format!("duplicate `{key}` member"));
        }

        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "jsonrpc" => {
                    let v = map.next_value::<Box<RawValue>>()?;
                    if jsonrpc.replace(()).is_some() {
                        dup(&mut problem, "jsonrpc");
                    } else if v.get() != "\"2.0\"" {
                        problem.get_or_insert_with(|| {
                            format!("`jsonrpc` must be \"2.0\" (found {})", v.get())
                        });
                    }
                }
                "id" => match map.next_value::<Box<RawValue>>() {
                    Ok(raw) => match serde_json::from_str::<IdMember>(raw.get()) {
                        Ok(v) => {
                            if id.replace(v).is_some() {
                                dup(&mut problem, "id");
                            }
                        }
                        Err(_) => {
                            problem.get_or_insert_with(|| {
                                format!("`id` must be a string or an integer (found {})", raw.get())
                            });
                            if id.replace(IdMember::Null).is_some() {
                                dup(&mut problem, "id");
                            }
                        }
                    },
                    Err(e) => return Err(e),
                },
                "method" => {
                    let raw = map.next_value::<Box<RawValue>>()?;
                    match serde_json::from_str::<String>(raw.get()) {
                        Ok(m) => {
                            if method.replace(m).is_some() {
                                dup(&mut problem, "method");
                            }
                        }
                        Err(_) => {
                            problem.get_or_insert_with(|| {
                                format!("`method` must be a string (found {})", raw.get())
                            });
                        }
                    }
                }
                "params" => {
                    if params.replace(map.next_value()?).is_some() {
                        dup(&mut problem, "params");
                    }
                }
                "result" => {
                    if result.replace(map.next_value()?).is_some() {
                        dup(&mut problem, "result");
                    }
                }
                "error" => {
                    if error.replace(map.next_value()?).is_some() {
                        dup(&mut problem, "error");
                    }
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }

        let at = params.map_or(0..0, |raw| {
            let start = (raw.get().as_ptr() as usize).wrapping_sub(self.base);
            start..start + raw.get().len()
        });
        Ok(build_message(
            jsonrpc,
            id,
            method,
            params.map(RawValue::get),
            result,
            error,
            problem,
        )
        .map(|message| (message, at)))
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Err(EnvelopeError::invalid("a batch is not allowed here")))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Err(EnvelopeError::invalid(
            "a JSON-RPC message must be an object",
        )))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        self.visit_bool(false)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        self.visit_bool(false)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        self.visit_bool(false)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        self.visit_bool(false)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.visit_bool(false)
    }
}

fn build_message(
    jsonrpc: Option<()>,
    id: Option<IdMember>,
    method: Option<String>,
    params: Option<&str>,
    result: Option<Box<RawValue>>,
    error: Option<Box<RawValue>>,
    problem: Option<String>,
) -> Result<Message, EnvelopeError> {
    let known_id = match &id {
        Some(IdMember::Id(id)) => Some(id.clone()),
        _ => None,
    };
    let fail = |message: String| {
        Err(EnvelopeError {
            kind: EnvelopeErrorKind::InvalidRequest,
            id: known_id.clone(),
            message,
        })
    };
    if let Some(problem) = problem {
        return fail(format!("invalid request: {problem}"));
    }
    if jsonrpc.is_none() {
        return fail("invalid request: missing `jsonrpc` member".into());
    }
    let params_text = params;
    let result_text = result.as_deref().map(RawValue::get);
    for raw in [params_text, result_text].into_iter().flatten() {
        if nesting_exceeds(raw, MAX_NESTING) {
            return Err(EnvelopeError {
                kind: EnvelopeErrorKind::Parse,
                id: known_id,
                message: format!("parse error: JSON nested deeper than {MAX_NESTING} levels"),
            });
        }
    }
    if let Some(params) = params_text {
        let first = params.as_bytes().first();
        if !matches!(first, Some(b'{') | Some(b'[')) {
            return fail("invalid request: `params` must be an object or an array".into());
        }
    }
    let params = params.map(|_| Params::placeholder());
    match (method, result, error) {
        (Some(method), None, None) => match id {
            None => Ok(Message::Notification(Notification { method, params })),
            Some(IdMember::Id(id)) => Ok(Message::Request(Request { id, method, params })),
            Some(IdMember::Null) => fail("invalid request: a request id must not be null".into()),
        },
        (None, Some(result), None) => match id {
            Some(IdMember::Id(id)) if params.is_none() => {
                Ok(Message::Response(Response { id, result }))
            }
            Some(IdMember::Id(_)) => {
                fail("invalid request: a response cannot carry `params`".into())
            }
            _ => fail("invalid request: a result response needs a string or integer `id`".into()),
        },
        (None, None, Some(error)) => {
            let error: ErrorObject = match serde_json::from_str(error.get()) {
                Ok(e) => e,
                Err(e) => return fail(format!("invalid request: malformed `error` object: {e}")),
            };
            let id = match id {
                Some(IdMember::Id(id)) => Some(id),
                _ => None,
            };
            Ok(Message::Error(ErrorResponse { id, error }))
        }
        (None, Some(_), Some(_)) => {
            fail("invalid request: a response cannot carry both `result` and `error`".into())
        }
        (Some(_), _, _) => {
            fail("invalid request: a message cannot carry `method` with `result` or `error`".into())
        }
        (None, None, None) => {
            fail("invalid request: the message has no `method`, `result` or `error`".into())
        }
    }
}

/// The deepest nesting of arrays and objects accepted in `params` or `result`: the same
/// limit serde_json applies when it builds values, so a message the envelope accepts never
/// fails later for its depth alone.
pub const MAX_NESTING: usize = 127;

/// Whether the JSON text `raw` (already known to be valid JSON) nests deeper than `limit`.
/// serde_json skips raw values without a depth limit, so the envelope checks it itself; a
/// linear scan that steps over strings.
fn nesting_exceeds(raw: &str, limit: usize) -> bool {
    let bytes = raw.as_bytes();
    // Depth never exceeds the number of openers, and looking for them is one SIMD pass:
    // large messages (file contents, query results) are mostly strings and never nest deep.
    // Short ones are scanned at once.
    if bytes.len() > 512 && crate::bytes::nth2(b'[', b'{', bytes, limit).is_none() {
        return false;
    }
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                // To the closing quote, jumping from one quote or backslash to the next.
                i += 1;
                loop {
                    let rest = bytes.get(i..).unwrap_or_default();
                    match crate::bytes::find2(b'"', b'\\', rest) {
                        Some(at) if rest[at] == b'\\' => i += at + 2,
                        Some(at) => {
                            i += at;
                            break;
                        }
                        // Unterminated: not valid JSON, which the parser has ruled out.
                        None => return false,
                    }
                }
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn single(bytes: &str) -> Message {
        match parse(bytes.as_bytes()).unwrap() {
            Incoming::Single(m) => m,
            Incoming::Batch(_) => panic!("unexpected batch"),
        }
    }

    fn err(bytes: &str) -> EnvelopeError {
        parse(bytes.as_bytes()).unwrap_err()
    }

    #[test]
    fn classifies_the_four_message_kinds() {
        let Message::Request(r) =
            single(r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"a"}}"#)
        else {
            panic!()
        };
        assert_eq!(r.id, RequestId::from("x"));
        assert_eq!(r.params.unwrap().get(), r#"{"name":"a"}"#);

        let Message::Notification(n) =
            single(r#"{"method":"notifications/initialized","jsonrpc":"2.0"}"#)
        else {
            panic!()
        };
        assert_eq!(n.method, "notifications/initialized");

        let Message::Response(r) = single(r#"{"jsonrpc":"2.0","id":3,"result":{"a":[1,2]}}"#)
        else {
            panic!()
        };
        assert_eq!(r.id, RequestId::Number(3));
        assert_eq!(r.result.get(), r#"{"a":[1,2]}"#);

        let Message::Error(e) =
            single(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad"}}"#)
        else {
            panic!()
        };
        assert_eq!(e.id, None);
        assert_eq!(e.error.code, ErrorCode::INVALID_REQUEST);
    }

    #[test]
    fn parse_errors_are_told_from_invalid_requests() {
        for bad in [
            "",
            "garbage",
            "{",
            r#"{"jsonrpc":"2.0","id":1,"method":"x""#,
            "[",
            "{sds}",
        ] {
            assert_eq!(err(bad).kind, EnvelopeErrorKind::Parse, "{bad:?}");
            assert_eq!(err(bad).code(), ErrorCode::PARSE_ERROR);
        }
        // A structural problem early in the input must not hide a later syntax error.
        assert_eq!(
            err(r#"{"jsonrpc":"1.0","id":1,"method": }"#).kind,
            EnvelopeErrorKind::Parse
        );
        for bad in [
            "{}",
            "[]",
            "1",
            "\"str\"",
            "null",
            r#"{"id":1,"method":"x"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"x"}"#,
            r#"{"jsonrpc":2.0,"id":1,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":{},"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":"str"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","result":{}}"#,
            r#"{"jsonrpc":"2.0","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1}"#,
        ] {
            assert_eq!(err(bad).kind, EnvelopeErrorKind::InvalidRequest, "{bad}");
            assert_eq!(err(bad).code(), ErrorCode::INVALID_REQUEST);
        }
    }

    #[test]
    fn invalid_utf8_is_a_parse_error_wherever_it_is() {
        // Found by fuzz/envelope: a byte that is not UTF-8 in a member the envelope skips
        // was accepted, so a message that is not JSON passed as a valid notification.
        for bad in [
            &b"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"junk\":\"\xf4\"}"[..],
            b"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"\xff\":1}",
            b"[{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"junk\":\"\xc3\"}]",
        ] {
            assert_eq!(parse(bad).unwrap_err().kind, EnvelopeErrorKind::Parse);
            assert_eq!(
                parse_message(bad).unwrap_err().kind,
                EnvelopeErrorKind::Parse
            );
        }
        assert!(parse("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"é\":\"✓\"}".as_bytes()).is_ok());
    }

    #[test]
    fn duplicate_envelope_keys_are_rejected_without_picking_a_winner() {
        for bad in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call"}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{},"params":{}}"#,
        ] {
            let e = err(bad);
            assert_eq!(e.kind, EnvelopeErrorKind::InvalidRequest, "{bad}");
            assert!(e.message.contains("duplicate"), "{}", e.message);
        }
        // Look-alike keys are not the envelope keys; they are ignored.
        let Message::Request(r) =
            single(r#"{"jsonrpc":"2.0","id":1,"method":"a","Method":"b","method\u0000":"c"}"#)
        else {
            panic!()
        };
        assert_eq!(r.method, "a");
    }

    #[test]
    fn invalid_requests_echo_the_id_when_it_can_be_read() {
        assert_eq!(
            err(r#"{"jsonrpc":"1.0","id":42,"method":"x"}"#).id,
            Some(RequestId::Number(42))
        );
        assert_eq!(
            err(r#"{"id":"k","method":"x"}"#).id,
            Some(RequestId::from("k"))
        );
        assert_eq!(err("garbage").id, None);
    }

    #[test]
    fn batches_are_reported_element_by_element() {
        let Incoming::Batch(items) = parse(
            br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}, 5, {"jsonrpc":"2.0","method":"n"}]"#,
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(items.len(), 3);
        assert!(matches!(items[0], Ok(Message::Request(_))));
        assert_eq!(
            items[1].as_ref().unwrap_err().kind,
            EnvelopeErrorKind::InvalidRequest
        );
        assert!(matches!(items[2], Ok(Message::Notification(_))));
        assert_eq!(err("[]").kind, EnvelopeErrorKind::InvalidRequest);
        assert_eq!(err("[1,").kind, EnvelopeErrorKind::Parse);
        assert_eq!(
            parse_message(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#)
                .unwrap_err()
                .kind,
            EnvelopeErrorKind::InvalidRequest
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"x","params":{{"a":{}{}}}}}"#,
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        let e = err(&deep);
        assert_eq!(e.kind, EnvelopeErrorKind::Parse);
        assert_eq!(e.id, Some(RequestId::Number(1)));
        let at_limit = |depth: usize| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"x","params":{{"s":"[[[{{\"]]","a":{}{}}}}}"#,
                "[".repeat(depth - 1),
                "]".repeat(depth - 1)
            )
        };
        // `params` itself is one level; brackets inside strings do not count.
        assert!(parse(at_limit(MAX_NESTING).as_bytes()).is_ok());
        assert_eq!(
            err(&at_limit(MAX_NESTING + 1)).kind,
            EnvelopeErrorKind::Parse
        );
        let Message::Request(r) = single(&at_limit(MAX_NESTING)) else {
            panic!()
        };
        assert!(serde_json::from_str::<serde_json::Value>(r.params.unwrap().get()).is_ok());
    }

    #[test]
    fn an_owned_buffer_is_kept_and_params_point_into_it() {
        let line = br#" {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a long text"}},"x":1}"#;
        let buffer = line.to_vec();
        let span = buffer.as_ptr() as usize..buffer.as_ptr() as usize + buffer.len();
        let Ok(Incoming::Single(Message::Request(r))) = parse_owned(buffer) else {
            panic!()
        };
        let params = r.params.unwrap();
        assert_eq!(
            params.get(),
            r#"{"name":"echo","arguments":{"text":"a long text"}}"#
        );
        // Not a copy: the text lies in the buffer that was given.
        assert!(span.contains(&(params.get().as_ptr() as usize)));
        // A clone or a borrowed parse holds only the value.
        let clone = params.clone();
        assert_eq!(clone, params);
        assert!(!span.contains(&(clone.get().as_ptr() as usize)));
        let Message::Request(borrowed) = single(std::str::from_utf8(line).unwrap()) else {
            panic!()
        };
        assert_eq!(borrowed.params.as_ref(), Some(&params));
        assert!(!span.contains(&(borrowed.params.unwrap().get().as_ptr() as usize)));
    }

    #[test]
    fn a_buffer_mostly_not_params_is_not_kept() {
        let pad = "p".repeat(100_000);
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"x"}},"pad":"{pad}"}}"#
        );
        let buffer = line.clone().into_bytes();
        let span = buffer.as_ptr() as usize..buffer.as_ptr() as usize + buffer.len();
        let Ok(Incoming::Single(Message::Request(r))) = parse_owned(buffer) else {
            panic!()
        };
        let params = r.params.unwrap();
        assert_eq!(params.get(), r#"{"name":"x"}"#);
        assert!(!span.contains(&(params.get().as_ptr() as usize)));
        // Spare room counts as not params too.
        let mut roomy = Vec::with_capacity(64 * 1024);
        roomy.extend_from_slice(br#"{"jsonrpc":"2.0","id":1,"method":"a","params":[1]}"#);
        let start = roomy.as_ptr() as usize;
        let Ok(Incoming::Single(Message::Request(r))) = parse_owned(roomy) else {
            panic!()
        };
        assert_ne!(r.params.unwrap().get().as_ptr() as usize, start + 46);
    }

    #[test]
    fn owned_and_borrowed_reads_agree() {
        let cases: &[&[u8]] = &[
            br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#,
            br#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#,
            br#"{"jsonrpc":"2.0","id":1,"result":{"ok":true}}"#,
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}"#,
            br#"  [{"jsonrpc":"2.0","id":1,"method":"a","params":[1]},{"jsonrpc":"1.0"}]"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"a","params":3}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"a","params":{},"params":{}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"a","params":{"#,
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
            b"[]",
            b"",
        ];
        for case in cases {
            assert_eq!(
                format!("{:?}", parse_owned(case.to_vec())),
                format!("{:?}", parse(case)),
                "{}",
                String::from_utf8_lossy(case)
            );
        }
        let Ok(Incoming::Single(Message::Notification(n))) = parse_owned(cases[0].to_vec()) else {
            panic!()
        };
        assert_eq!(n.params.unwrap().get(), r#"{"progress":1}"#);
    }
}
