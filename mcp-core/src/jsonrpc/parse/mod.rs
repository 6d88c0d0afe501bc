//! Reading the envelope: one strict pass over the outer object, then the checks that tell a
//! syntax error (-32700) from a structural one (-32600).

use std::ops::Range;

use serde::Deserialize;
use serde::de::{DeserializeSeed, IgnoredAny};
use serde_json::value::RawValue;

use super::{EnvelopeError, Incoming, Message, Params, RequestId};
use envelope::EnvelopeSeed;

mod envelope;

/// Parses one transport message (a stdio line or an HTTP body).
///
/// # Errors
///
/// Returns an [`EnvelopeError`] when the bytes are not JSON ([`EnvelopeErrorKind::Parse`](super::EnvelopeErrorKind::Parse)),
/// or are JSON but not a JSON-RPC 2.0 message or batch ([`EnvelopeErrorKind::InvalidRequest`](super::EnvelopeErrorKind::InvalidRequest):
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
/// As [`parse`], and a batch is refused with [`EnvelopeErrorKind::InvalidRequest`](super::EnvelopeErrorKind::InvalidRequest).
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
mod tests;
