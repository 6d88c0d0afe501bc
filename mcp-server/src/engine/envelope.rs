//! A request's envelope: its `_meta`, read once, which decides its era — from the body alone
//! (stdio) or together with the 2026 HTTP headers, checked against the body and the tool
//! (HTTP).

use std::sync::LazyLock;

#[cfg(feature = "http")]
use mcp_core::ProtocolVersion;
use mcp_core::bytes;
use mcp_core::error::ErrorObject;
use mcp_core::jsonrpc::{Params, Request};
use mcp_core::types::RequestMetaObject;
use memchr::memmem::Finder;
use serde::Deserialize;

#[cfg(feature = "http")]
use super::{Engine, headers};

/// The parsed `_meta` of a request's params, read before dispatch.
#[derive(Deserialize, Default)]
struct MetaProbe {
    #[serde(rename = "_meta", default)]
    meta: Option<RequestMetaObject>,
}

/// Reads the `_meta` of `params`. Params that are not an object have no `_meta` (the method
/// handler rejects them if it needs an object).
pub(crate) fn probe_meta(
    params: Option<&Params>,
) -> Result<Option<RequestMetaObject>, ErrorObject> {
    match params.map(Params::get) {
        // Without the text `"_meta"`, and without a `\u` escape that could spell it, params
        // have no `_meta` member: two SIMD searches instead of a pass of the parser over
        // what may be a large argument.
        Some(p) if p.starts_with('{') && !may_have_meta(p) => Ok(None),
        Some(p) if p.starts_with('{') => serde_json::from_str::<MetaProbe>(p)
            .map(|p| p.meta)
            .map_err(|e| ErrorObject::invalid_params(format!("invalid `_meta`: {e}"))),
        _ => Ok(None),
    }
}

/// A request's `_meta`, read once: by the engine when the request arrives, or earlier when
/// a transport needs the era first ([`Engine::classify`]).
pub(crate) struct Envelope {
    meta: Option<RequestMetaObject>,
    /// The era, from `_meta` alone or (HTTP) from `_meta` and the headers together.
    modern: bool,
}

impl Envelope {
    /// Reads the envelope of `req`.
    ///
    /// # Errors
    ///
    /// A malformed `_meta` (-32602).
    pub(crate) fn read(req: &Request) -> Result<Envelope, ErrorObject> {
        probe_meta(req.params.as_ref()).map(|meta| Envelope {
            modern: is_modern(meta.as_ref()),
            meta,
        })
    }

    /// The request's `_meta`, if it has one.
    pub(crate) fn meta(&self) -> Option<&RequestMetaObject> {
        self.meta.as_ref()
    }

    /// Whether the request is a modern-era (2026-07-28) one.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn is_modern(&self) -> bool {
        self.modern
    }
}

#[cfg(feature = "http")]
impl Engine {
    /// The envelope of a request that came with metadata `headers` (HTTP), which decides its
    /// era; a modern request's headers are checked against its body and, for `tools/call`,
    /// against the tool's mirrored parameters.
    ///
    /// # Errors
    ///
    /// The headers contradict the body (-32020), or `_meta` is malformed (-32602): HTTP 400.
    pub(crate) fn classify(
        &self,
        req: &Request,
        headers: &impl headers::Headers,
    ) -> Result<Envelope, ErrorObject> {
        let mut envelope = Envelope::read(req)?;
        let meta = envelope.meta.as_ref();
        if !headers::is_modern_request(meta, headers) {
            return Ok(envelope);
        }
        // The headers alone can make a request modern: its missing envelope is then an
        // error of the modern era (-32602), not a legacy request without a session.
        envelope.modern = true;
        let meta = envelope.meta.as_ref();
        #[derive(Deserialize)]
        struct Named<'a> {
            #[serde(borrow)]
            name: std::borrow::Cow<'a, str>,
        }
        let tool = (req.method == "tools/call")
            .then_some(req.params.as_ref())
            .flatten()
            .and_then(|p| serde_json::from_str::<Named<'_>>(p.get()).ok())
            .and_then(|n| self.registry().tool(&n.name));
        headers::validate_modern(
            req,
            meta,
            headers,
            tool.as_ref().map(|t| &t.tool.input_schema),
        )?;
        Ok(envelope)
    }

    /// A legacy request's `MCP-Protocol-Version` header: absent means 2025-03-26; otherwise
    /// it must name a legacy revision this server serves.
    ///
    /// # Errors
    ///
    /// Another value (HTTP 400).
    pub(crate) fn check_legacy_version(
        &self,
        headers: &impl headers::Headers,
    ) -> Result<(), ErrorObject> {
        match headers.single(headers::PROTOCOL_VERSION)? {
            None => Ok(()),
            Some(v) => match v.parse::<ProtocolVersion>() {
                Ok(version) if self.config().versions.contains(&version) => Ok(()),
                _ => Err(ErrorObject::invalid_request(format!(
                    "Bad Request: unsupported MCP-Protocol-Version: {v}"
                ))),
            },
        }
    }
}

/// Whether the JSON object text `params` may have a `_meta` member.
fn may_have_meta(params: &str) -> bool {
    let raw = params.as_bytes();
    // Short params, as most are: found by their rare byte (`_`, the backslash), without
    // memchr's CPU-feature detection (`mcp_core::bytes`).
    if raw.len() < bytes::SHORT {
        return bytes::contains(raw, b"\"_meta\"", 1) || bytes::contains(raw, b"\\u", 0);
    }
    // Built once: `memmem::find` builds its searcher (choosing the rare bytes, the SIMD
    // routine) on every call, which cost more than both searches of a small request.
    static META: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"_meta\""));
    static ESCAPE: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\\u"));
    META.find(raw).is_some() || ESCAPE.find(raw).is_some()
}

/// Whether a request's envelope makes it a modern-era request.
pub(crate) fn is_modern(meta: Option<&RequestMetaObject>) -> bool {
    meta.is_some_and(|m| m.protocol_version.is_some())
}

#[cfg(test)]
mod tests {
    use serde_json::value::RawValue;

    use super::probe_meta;

    fn probe(params: &str) -> Option<String> {
        let raw = RawValue::from_string(params.to_owned()).unwrap();
        probe_meta(Some(&raw.into()))
            .unwrap()
            .and_then(|m| m.protocol_version)
    }

    #[test]
    fn meta_is_found_however_its_key_is_spelled() {
        let version = Some("2026-07-28".to_owned());
        let meta = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#;
        assert_eq!(probe(&format!(r#"{{"name":"x","_meta":{meta}}}"#)), version);
        // An escaped key is the same key to a JSON parser.
        assert_eq!(
            probe(&format!(r#"{{"name":"x","\u005fmeta":{meta}}}"#)),
            version
        );
        assert_eq!(
            probe(r#"{"name":"x","arguments":{"text":"no meta here"}}"#),
            None
        );
        // The text inside a value is not a member.
        assert_eq!(
            probe(r#"{"name":"x","arguments":{"text":"\"_meta\""}}"#),
            None
        );
    }

    #[test]
    fn a_malformed_meta_is_an_error() {
        let raw = RawValue::from_string(r#"{"_meta":5}"#.to_owned()).unwrap();
        assert!(probe_meta(Some(&raw.into())).is_err());
    }
}
