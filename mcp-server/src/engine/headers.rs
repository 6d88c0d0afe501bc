//! The era rules of request metadata a transport carries beside the message (HTTP headers):
//! which era a request belongs to, and, for 2026-07-28, that `MCP-Protocol-Version`,
//! `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` are present where required and match the body,
//! so that an intermediary routing on a header and the server executing the body agree. Any
//! failure is 400 with -32020 (`HeaderMismatch`).
//!
//! The engine sees no HTTP type: the transport implements [`Headers`]. Names are
//! case-insensitive; values are case-sensitive, surrounding whitespace is trimmed, and
//! `=?base64?…?=` values are decoded before comparing.

use std::borrow::Cow;

use base64::Engine as _;
use ferromcp_core::error::ErrorObject;
use ferromcp_core::jsonrpc::Request;
use ferromcp_core::types::RequestMetaObject;
use ferromcp_core::{Era, ProtocolVersion};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::registry::MirroredParam;

pub(crate) const PROTOCOL_VERSION: &str = "mcp-protocol-version";
pub(crate) const METHOD: &str = "mcp-method";
pub(crate) const NAME: &str = "mcp-name";

/// Request metadata beside the message, as the transport received it.
pub(crate) trait Headers {
    /// The one value of header `name` (lowercase), whitespace-trimmed: `Ok(None)` when
    /// absent; an error when repeated or not visible ASCII.
    fn single(&self, name: &str) -> Result<Option<&str>, ErrorObject>;
}

/// Decodes a `=?base64?…?=` value; other values are returned as they are.
pub(crate) fn decode(name: &str, value: &str) -> Result<String, ErrorObject> {
    match value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    {
        Some(encoded) => base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .ok_or_else(|| {
                ErrorObject::header_mismatch(format_args!("{name} is not valid Base64 UTF-8"))
            }),
        None => Ok(value.to_owned()),
    }
}

/// The members of a request's params that the headers mirror (read by
/// [`Probe`](super::envelope::Probe), in the same pass as `_meta`).
pub(crate) struct Target<'a> {
    pub(crate) name: Member<Cow<'a, str>>,
    pub(crate) uri: Member<Cow<'a, str>>,
    pub(crate) arguments: Member<&'a RawValue>,
    pub(crate) task_id: Member<Cow<'a, str>>,
}

/// A member of params as the checks see it: absent (or `null`), one value, or `Err` when
/// it is repeated or of the wrong type.
pub(crate) type Member<T> = Result<Option<T>, ()>;

fn value_at<'v>(mut value: &'v Value, path: &[String]) -> Option<&'v Value> {
    for key in path {
        value = value.get(key)?;
    }
    Some(value)
}

fn header_matches(header: &str, body: &Value) -> bool {
    match body {
        Value::String(s) => header == s,
        Value::Bool(b) => header == if *b { "true" } else { "false" },
        Value::Number(n) => match (header.parse::<f64>(), n.as_f64()) {
            (Ok(h), Some(b)) => h == b,
            _ => false,
        },
        _ => false,
    }
}

/// Whether a request belongs to the modern era: its `_meta` envelope says so, or its
/// `MCP-Protocol-Version` header names a modern revision (a modern request that forgot its
/// envelope then gets the envelope error, not a legacy session error).
pub(crate) fn is_modern_request(
    meta: Option<&RequestMetaObject>,
    headers: &(impl Headers + ?Sized),
) -> bool {
    super::is_modern(meta)
        || headers
            .single(PROTOCOL_VERSION)
            .ok()
            .flatten()
            .and_then(|v| v.parse::<ProtocolVersion>().ok())
            .is_some_and(|v| v.era() == Era::Modern)
}

/// Validates the headers of a modern-era request against its body; `target` are the members
/// of its params the headers mirror, `mirrored_params` the parameters of the tool a
/// `tools/call` names that its `Mcp-Param-*` headers carry. Without a body version there is
/// nothing to compare (the envelope check answers, -32602).
pub(crate) fn validate_modern(
    request: &Request,
    meta: Option<&RequestMetaObject>,
    target: Target<'_>,
    headers: &(impl Headers + ?Sized),
    mirrored_params: &[MirroredParam],
) -> Result<(), ErrorObject> {
    let Some(version) = meta.and_then(|m| m.protocol_version.as_deref()) else {
        return Ok(());
    };
    validate(headers, &request.method, target, version, mirrored_params)
}

/// The checks of a modern request with body version `body_version`.
pub(super) fn validate(
    headers: &(impl Headers + ?Sized),
    method: &str,
    target: Target<'_>,
    body_version: &str,
    mirrored: &[MirroredParam],
) -> Result<(), ErrorObject> {
    validate_version_and_method(headers, method, body_version)?;
    validate_name(headers, method, &target)?;
    if method == "tools/call" && !mirrored.is_empty() {
        validate_mirrored(headers, &target, mirrored)?;
    }
    Ok(())
}

/// `MCP-Protocol-Version` and `Mcp-Method` against the body's.
#[inline]
fn validate_version_and_method(
    headers: &(impl Headers + ?Sized),
    method: &str,
    body_version: &str,
) -> Result<(), ErrorObject> {
    match headers.single(PROTOCOL_VERSION)? {
        Some(v) if v == body_version => {}
        Some(v) => {
            return Err(ErrorObject::header_mismatch(format_args!(
                "MCP-Protocol-Version header value '{v}' does not match body value '{body_version}'"
            )));
        }
        None => {
            return Err(ErrorObject::header_mismatch(
                "MCP-Protocol-Version header is missing",
            ));
        }
    }
    match headers.single(METHOD)? {
        Some(m) if m == method => {}
        Some(m) => {
            return Err(ErrorObject::header_mismatch(format_args!(
                "Mcp-Method header value '{m}' does not match body value '{method}'"
            )));
        }
        None => return Err(ErrorObject::header_mismatch("Mcp-Method header is missing")),
    }
    Ok(())
}

/// `Mcp-Name` against what the method is routed by (a name, a URI or a task id).
#[inline]
fn validate_name(
    headers: &(impl Headers + ?Sized),
    method: &str,
    target: &Target<'_>,
) -> Result<(), ErrorObject> {
    let routed = match method {
        "tools/call" | "prompts/get" => Some(("name", &target.name)),
        "resources/read" => Some(("uri", &target.uri)),
        // The tasks extension routes its requests by task.
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some(("taskId", &target.task_id)),
        _ => None,
    };
    let body_name = match routed {
        None => None,
        Some((_, Ok(value))) => value.as_deref(),
        // What the request is routed by must be readable to be compared: a repeated member
        // or one of another type is refused here, not left for the method to notice.
        Some((member, Err(()))) => {
            return Err(ErrorObject::invalid_params(format!(
                "`{member}` must be one string"
            )));
        }
    };
    let header_name = headers
        .single(NAME)?
        .map(|v| decode("Mcp-Name", v))
        .transpose()?;
    match (body_name, header_name) {
        (Some(body), Some(header)) if body == header => {}
        (Some(body), Some(header)) => {
            return Err(ErrorObject::header_mismatch(format_args!(
                "Mcp-Name header value '{header}' does not match body value '{body}'"
            )));
        }
        (Some(_), None) => return Err(ErrorObject::header_mismatch("Mcp-Name header is missing")),
        (None, _) => {}
    }
    Ok(())
}

/// A `tools/call`'s `Mcp-Param-*` headers against the arguments they mirror.
fn validate_mirrored(
    headers: &(impl Headers + ?Sized),
    target: &Target<'_>,
    mirrored: &[MirroredParam],
) -> Result<(), ErrorObject> {
    let Ok(arguments) = target.arguments else {
        return Err(ErrorObject::invalid_params("`arguments` is repeated"));
    };
    let arguments: Value = arguments
        .and_then(|a| serde_json::from_str(a.get()).ok())
        .unwrap_or(Value::Null);
    for param in mirrored {
        let display = &param.display;
        let header = headers
            .single(&param.key)?
            .map(|v| decode(display, v))
            .transpose()?;
        let body = value_at(&arguments, &param.path).filter(|v| !v.is_null());
        match (header, body) {
            (None, None) => {}
            (Some(h), Some(b)) if header_matches(&h, b) => {}
            (Some(h), Some(b)) => {
                return Err(ErrorObject::header_mismatch(format_args!(
                    "{display} header value '{h}' does not match body value {b}"
                )));
            }
            (None, Some(_)) => {
                return Err(ErrorObject::header_mismatch(format_args!(
                    "{display} header is missing"
                )));
            }
            (Some(h), None) => {
                return Err(ErrorObject::header_mismatch(format_args!(
                    "{display} header value '{h}' has no value in the body"
                )));
            }
        }
    }
    Ok(())
}
