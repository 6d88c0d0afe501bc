//! A request's envelope: its `_meta`, read once, which decides its era — from the body alone
//! (stdio) or together with the 2026 HTTP headers, checked against the body and the tool
//! (HTTP).

use std::borrow::Cow;
use std::sync::{Arc, LazyLock};

#[cfg(feature = "http")]
use ferromcp_core::ProtocolVersion;
use ferromcp_core::bytes;
use ferromcp_core::error::ErrorObject;
use ferromcp_core::jsonrpc::{Params, Request};
use ferromcp_core::types::RequestMetaObject;
use memchr::memmem::Finder;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;

#[cfg(feature = "http")]
use super::{Engine, headers};

/// The text of `params` when it has to be read for a `_meta`. Params that are not an object
/// have none (the method handler rejects them if it needs an object); without the text
/// `"_meta"`, and without a `\u` escape that could spell it, params have no `_meta` member:
/// two SIMD searches instead of a pass of the parser over what may be a large argument.
fn to_read(params: Option<&Params>) -> Option<&str> {
    params
        .map(Params::get)
        .filter(|p| p.starts_with('{') && may_have_meta(p))
}

/// What one pass of the parser over a request's params reads: its `_meta`, and the members
/// that the 2026 HTTP headers mirror (`name`, `uri`, `taskId`, `arguments`), kept as the raw
/// JSON text they came as. The HTTP checks read them from here, so a 2026 request's params
/// are not parsed again for each check.
pub(crate) struct Probe<'a> {
    pub(crate) meta: Option<RequestMetaObject>,
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) mirrored: Mirrored<'a>,
}

impl<'a> Probe<'a> {
    /// Reads `params`, if they may have a `_meta` ([`to_read`]); else there is nothing to
    /// read.
    ///
    /// # Errors
    ///
    /// A malformed `_meta` (-32602).
    pub(crate) fn read(params: Option<&'a Params>) -> Result<Probe<'a>, ErrorObject> {
        match to_read(params) {
            Some(p) => Probe::parse(p),
            None => Ok(Probe {
                meta: None,
                mirrored: Mirrored::default(),
            }),
        }
    }

    /// Reads the JSON object text `params` in one pass.
    ///
    /// # Errors
    ///
    /// A malformed `_meta` (-32602): nothing else in valid JSON can fail.
    pub(crate) fn parse(params: &'a str) -> Result<Probe<'a>, ErrorObject> {
        serde_json::from_str(params)
            .map_err(|e| ErrorObject::invalid_params(format!("invalid `_meta`: {e}")))
    }
}

/// One member of params as read by [`Probe`].
#[derive(Default, Clone, Copy)]
enum Slot<'a> {
    #[default]
    Absent,
    Once(&'a RawValue),
    /// The member came more than once: params that no typed reading accepts.
    Repeated,
}

impl<'a> Slot<'a> {
    fn fill(&mut self, raw: &'a RawValue) {
        *self = match self {
            Slot::Absent => Slot::Once(raw),
            _ => Slot::Repeated,
        };
    }

    /// The member as an optional string (`null` is absent); `Err` when it is repeated or
    /// another JSON type.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    fn string(self) -> Result<Option<Cow<'a, str>>, ()> {
        match self {
            Slot::Absent => Ok(None),
            Slot::Repeated => Err(()),
            Slot::Once(raw) => {
                let text = raw.get();
                if text == "null" {
                    Ok(None)
                } else if let Some(inner) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"'))
                    && !inner.contains('\\')
                {
                    // Valid JSON text: a string without escapes is its contents.
                    Ok(Some(Cow::Borrowed(inner)))
                } else {
                    serde_json::from_str::<String>(text)
                        .map(|s| Some(Cow::Owned(s)))
                        .map_err(|_| ())
                }
            }
        }
    }
}

/// The members of params that the 2026 HTTP headers mirror, as [`Probe`] found them.
#[derive(Default)]
pub(crate) struct Mirrored<'a> {
    name: Slot<'a>,
    uri: Slot<'a>,
    task_id: Slot<'a>,
    arguments: Slot<'a>,
}

#[cfg(feature = "http")]
impl<'a> Mirrored<'a> {
    /// The tool a `tools/call` names: its `name` when that is one string.
    pub(crate) fn tool_name(&self) -> Option<Cow<'a, str>> {
        self.name.string().ok().flatten()
    }

    /// The members the header checks compare, each `Err` when it is repeated or of the
    /// wrong type. Each check looks only at the member its method names, so a malformed
    /// member that the method does not read cannot turn another's check off.
    pub(crate) fn target(&self) -> headers::Target<'a> {
        let arguments = match self.arguments {
            Slot::Absent => Ok(None),
            Slot::Once(raw) if raw.get() == "null" => Ok(None),
            Slot::Once(raw) => Ok(Some(raw)),
            Slot::Repeated => Err(()),
        };
        headers::Target {
            name: self.name.string(),
            uri: self.uri.string(),
            task_id: self.task_id.string(),
            arguments,
        }
    }
}

impl<'de> Deserialize<'de> for Probe<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ProbeVisitor;

        impl<'de> serde::de::Visitor<'de> for ProbeVisitor {
            type Value = Probe<'de>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("request params")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Probe<'de>, A::Error> {
                let mut meta: Option<Option<RequestMetaObject>> = None;
                let mut mirrored = Mirrored::default();
                while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
                    let slot = match &*key {
                        "_meta" => {
                            if meta.is_some() {
                                return Err(serde::de::Error::duplicate_field("_meta"));
                            }
                            meta = Some(map.next_value()?);
                            continue;
                        }
                        "name" => &mut mirrored.name,
                        "uri" => &mut mirrored.uri,
                        "taskId" => &mut mirrored.task_id,
                        "arguments" => &mut mirrored.arguments,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    slot.fill(map.next_value()?);
                }
                Ok(Probe {
                    meta: meta.flatten(),
                    mirrored,
                })
            }
        }

        deserializer.deserialize_map(ProbeVisitor)
    }
}

/// A member name of params, borrowed from the text unless it has escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;

        impl<'de> serde::de::Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a member name")
            }

            fn visit_borrowed_str<E: serde::de::Error>(self, key: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(key)))
            }

            fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(key.to_owned())))
            }
        }

        deserializer.deserialize_str(KeyVisitor)
    }
}

/// A request's `_meta`, read once: by the engine when the request arrives, or earlier when
/// a transport needs the era first ([`Engine::classify`]).
pub(crate) struct Envelope {
    /// Shared, not copied, with the request's context (`Context::meta`): one allocation
    /// when the request has a `_meta`, none otherwise.
    meta: Option<Arc<RequestMetaObject>>,
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
        // The empty envelope is written in place: mapping a probe's `_meta` instead
        // copied a whole `_meta` (some 400 bytes) on every request.
        match to_read(req.params.as_ref()) {
            Some(p) => Probe::parse(p).map(|p| Envelope {
                modern: is_modern(p.meta.as_ref()),
                meta: p.meta.map(Arc::new),
            }),
            None => Ok(Envelope {
                meta: None,
                modern: false,
            }),
        }
    }

    /// The request's `_meta`, if it has one.
    pub(crate) fn meta(&self) -> Option<&RequestMetaObject> {
        self.meta.as_deref()
    }

    /// The request's `_meta`, to share with its context.
    pub(crate) fn shared_meta(&self) -> Option<&Arc<RequestMetaObject>> {
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
        headers: &(impl headers::Headers + ?Sized),
    ) -> Result<Envelope, ErrorObject> {
        let probe = Probe::read(req.params.as_ref())?;
        let modern = headers::is_modern_request(probe.meta.as_ref(), headers);
        if modern {
            // A request the headers alone make modern has no body version to compare: its
            // missing envelope is then an error of the modern era (-32602), not a legacy
            // request without a session.
            let tool = (req.method == "tools/call" && is_modern(probe.meta.as_ref()))
                .then(|| probe.mirrored.tool_name())
                .flatten()
                .and_then(|name| self.registry().tool(&name));
            headers::validate_modern(
                req,
                probe.meta.as_ref(),
                probe.mirrored.target(),
                headers,
                tool.as_ref().map_or(&[], |t| &t.mirrored),
            )?;
        }
        Ok(Envelope {
            meta: probe.meta.map(Arc::new),
            modern,
        })
    }

    /// A legacy request's `MCP-Protocol-Version` header: absent means 2025-03-26; otherwise
    /// it must name a legacy revision this server serves.
    ///
    /// # Errors
    ///
    /// Another value (HTTP 400).
    pub(crate) fn check_legacy_version(
        &self,
        headers: &(impl headers::Headers + ?Sized),
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
    // memchr's CPU-feature detection (`ferromcp_core::bytes`).
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

/// The 2026 header checks run on what the request's one pass over its params read.
#[cfg(test)]
#[cfg(feature = "http")]
mod header_checks;

#[cfg(test)]
mod tests {
    use serde_json::value::RawValue;

    use super::Probe;

    fn probe(params: &str) -> Option<String> {
        let raw = RawValue::from_string(params.to_owned()).unwrap();
        Probe::read(Some(&raw.into()))
            .unwrap()
            .meta
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

    /// The mirrored members as the header checks see them: (`name`, `uri`, `taskId`,
    /// `arguments`), or `None` when any of them is repeated or of the wrong type.
    #[cfg(feature = "http")]
    #[allow(clippy::type_complexity)]
    fn target(
        params: &str,
    ) -> Option<(
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
    )> {
        let probe = super::Probe::parse(params).unwrap();
        let t = probe.mirrored.target();
        Some((
            t.name.ok()?.map(String::from),
            t.uri.ok()?.map(String::from),
            t.task_id.ok()?.map(String::from),
            t.arguments.ok()?.map(|a| a.get().to_owned()),
        ))
    }

    #[cfg(feature = "http")]
    #[test]
    fn the_mirrored_members_are_read_in_the_same_pass_as_meta() {
        let s = |v: &str| Some(v.to_owned());
        assert_eq!(
            target(
                r#"{"_meta":{"k":1},"name":"get","uri":"file:///a","taskId":"t1","arguments":{"x": [1, 2]}}"#
            ),
            Some((s("get"), s("file:///a"), s("t1"), s(r#"{"x": [1, 2]}"#)))
        );
        // Escapes are decoded, in names and values; `null` is absent.
        assert_eq!(
            target(r#"{"n\u0061me":"a\"b","uri":null,"arguments":null}"#),
            Some((s("a\"b"), None, None, None))
        );
        // A member of the wrong type or repeated is marked so.
        for params in [
            r#"{"name":5}"#,
            r#"{"uri":{"a":1}}"#,
            r#"{"taskId":true}"#,
            r#"{"name":"a","name":"a"}"#,
            r#"{"arguments":{},"arguments":{}}"#,
        ] {
            assert_eq!(target(params), None, "{params}");
        }
        // The tool's name is read on its own: another member's fault does not hide it.
        let probe = super::Probe::parse(r#"{"name":"t","uri":1}"#).unwrap();
        assert_eq!(probe.mirrored.tool_name().as_deref(), Some("t"));
        for params in [r#"{"name":"a","name":"b"}"#, r#"{"name":[]}"#, r#"{}"#] {
            let probe = super::Probe::parse(params).unwrap();
            assert_eq!(probe.mirrored.tool_name(), None, "{params}");
        }
    }

    #[test]
    fn a_repeated_meta_is_an_error() {
        let raw = RawValue::from_string(r#"{"_meta":{},"_meta":{}}"#.to_owned()).unwrap();
        let Err(e) = Probe::read(Some(&raw.into())) else {
            panic!("a repeated `_meta` was read");
        };
        assert!(
            e.message.contains("duplicate field `_meta`"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_malformed_meta_is_an_error() {
        let raw = RawValue::from_string(r#"{"_meta":5}"#.to_owned()).unwrap();
        assert!(Probe::read(Some(&raw.into())).is_err());
    }
}
