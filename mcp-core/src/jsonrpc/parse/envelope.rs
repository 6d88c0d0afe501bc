//! The one-pass visit of the envelope object, and the message its members make.

use std::fmt;
use std::ops::Range;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use super::{MAX_NESTING, nesting_exceeds};
use crate::jsonrpc::{
    EnvelopeError, EnvelopeErrorKind, ErrorResponse, Message, Notification, Params, Request,
    RequestId, Response,
};
use crate::rpc_error::ErrorObject;

/// Drives the one-pass envelope visit. The inner `Result` carries structural problems found
/// after the JSON itself was read completely (so they are never mistaken for syntax errors).
/// `base` is the address of the text being read, from which the place of `params` in it is
/// told (serde_json hands a raw value out as a slice of that text).
pub(super) struct EnvelopeSeed {
    pub(super) base: usize,
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

/// The envelope's members as read, and the first problem seen among them.
#[derive(Default)]
struct Members<'de> {
    jsonrpc: Option<()>,
    id: Option<IdMember>,
    method: Option<String>,
    params: Option<&'de RawValue>,
    result: Option<Box<RawValue>>,
    error: Option<Box<RawValue>>,
    problem: Option<String>,
}

impl<'de> Members<'de> {
    /// Reads the value of the member `key`.
    #[inline]
    fn read<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "jsonrpc" => {
                let v = map.next_value::<Box<RawValue>>()?;
                if self.jsonrpc.replace(()).is_some() {
                    self.dup("jsonrpc");
                } else if v.get() != "\"2.0\"" {
                    self.problem.get_or_insert_with(|| {
                        format!("`jsonrpc` must be \"2.0\" (found {})", v.get())
                    });
                }
            }
            "id" => self.read_id(&map.next_value::<Box<RawValue>>()?),
            "method" => self.read_method(&map.next_value::<Box<RawValue>>()?),
            "params" => {
                if self.params.replace(map.next_value()?).is_some() {
                    self.dup("params");
                }
            }
            "result" => {
                if self.result.replace(map.next_value()?).is_some() {
                    self.dup("result");
                }
            }
            "error" => {
                if self.error.replace(map.next_value()?).is_some() {
                    self.dup("error");
                }
            }
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }

    #[inline]
    fn read_id(&mut self, raw: &RawValue) {
        match serde_json::from_str::<IdMember>(raw.get()) {
            Ok(v) => {
                if self.id.replace(v).is_some() {
                    self.dup("id");
                }
            }
            Err(_) => {
                self.problem.get_or_insert_with(|| {
                    format!("`id` must be a string or an integer (found {})", raw.get())
                });
                if self.id.replace(IdMember::Null).is_some() {
                    self.dup("id");
                }
            }
        }
    }

    #[inline]
    fn read_method(&mut self, raw: &RawValue) {
        match serde_json::from_str::<String>(raw.get()) {
            Ok(m) => {
                if self.method.replace(m).is_some() {
                    self.dup("method");
                }
            }
            Err(_) => {
                self.problem.get_or_insert_with(|| {
                    format!("`method` must be a string (found {})", raw.get())
                });
            }
        }
    }

    fn dup(&mut self, key: &str) {
        self.problem
            .get_or_insert_with(|| format!("duplicate `{key}` member"));
    }

    /// The message the members make, or why they make none.
    #[inline]
    fn build(self) -> Result<Message, EnvelopeError> {
        let known_id = match &self.id {
            Some(IdMember::Id(id)) => Some(id.clone()),
            _ => None,
        };
        let invalid = |message: String| EnvelopeError {
            kind: EnvelopeErrorKind::InvalidRequest,
            id: known_id.clone(),
            message,
        };
        if let Some(problem) = self.problem {
            return Err(invalid(format!("invalid request: {problem}")));
        }
        if self.jsonrpc.is_none() {
            return Err(invalid("invalid request: missing `jsonrpc` member".into()));
        }
        let params = self.params.map(RawValue::get);
        let result_text = self.result.as_deref().map(RawValue::get);
        for raw in [params, result_text].into_iter().flatten() {
            if nesting_exceeds(raw, MAX_NESTING) {
                return Err(EnvelopeError {
                    kind: EnvelopeErrorKind::Parse,
                    id: known_id,
                    message: format!("parse error: JSON nested deeper than {MAX_NESTING} levels"),
                });
            }
        }
        if let Some(params) = params {
            let first = params.as_bytes().first();
            if !matches!(first, Some(b'{') | Some(b'[')) {
                return Err(invalid(
                    "invalid request: `params` must be an object or an array".into(),
                ));
            }
        }
        let params = params.map(|_| Params::placeholder());
        message(self.id, self.method, params, self.result, self.error).map_err(invalid)
    }
}

/// The kind of message the members make; `Err` holds what is wrong with it.
#[inline]
fn message(
    id: Option<IdMember>,
    method: Option<String>,
    params: Option<Params>,
    result: Option<Box<RawValue>>,
    error: Option<Box<RawValue>>,
) -> Result<Message, String> {
    let fail = |message: &str| Err(format!("invalid request: {message}"));
    match (method, result, error) {
        (Some(method), None, None) => match id {
            None => Ok(Message::Notification(Notification { method, params })),
            Some(IdMember::Id(id)) => Ok(Message::Request(Request { id, method, params })),
            Some(IdMember::Null) => fail("a request id must not be null"),
        },
        (None, Some(result), None) => match id {
            Some(IdMember::Id(id)) if params.is_none() => {
                Ok(Message::Response(Response { id, result }))
            }
            Some(IdMember::Id(_)) => fail("a response cannot carry `params`"),
            _ => fail("a result response needs a string or integer `id`"),
        },
        (None, None, Some(error)) => {
            let error: ErrorObject = match serde_json::from_str(error.get()) {
                Ok(e) => e,
                Err(e) => return Err(format!("invalid request: malformed `error` object: {e}")),
            };
            let id = match id {
                Some(IdMember::Id(id)) => Some(id),
                _ => None,
            };
            Ok(Message::Error(ErrorResponse { id, error }))
        }
        (None, Some(_), Some(_)) => fail("a response cannot carry both `result` and `error`"),
        (Some(_), _, _) => fail("a message cannot carry `method` with `result` or `error`"),
        (None, None, None) => fail("the message has no `method`, `result` or `error`"),
    }
}

impl<'de> Visitor<'de> for EnvelopeVisitor {
    type Value = Result<(Message, Range<usize>), EnvelopeError>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC 2.0 message object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = Members::default();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            members.read(key.as_ref(), &mut map)?;
        }
        let at = members.params.map_or(0..0, |raw| {
            let start = (raw.get().as_ptr() as usize).wrapping_sub(self.base);
            start..start + raw.get().len()
        });
        Ok(members.build().map(|message| (message, at)))
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
