//! What a `#[tool]` parameter is, decided by its type's traits rather than its name: an
//! extractor when it implements [`FromContext`], else a tool argument when it implements
//! `Deserialize` and `JsonSchema`, else a compile error at the parameter naming both ways
//! out. A type alias or a re-export is therefore what it names, and a type of your own
//! called `Context` is an argument like any other.
//!
//! The generated code asks once per parameter, in a hidden function spanned at the
//! parameter's type: `(&&&Param::<T>::new()).ops()`. Method resolution tries the three
//! impls in order (autoref specialization, sound here because the macros only name concrete
//! types), and the answer, a [`ParamOps`], both describes the parameter in the input schema
//! and takes its value from a call.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::ops::ControlFlow;
use std::str::FromStr;

use ferromcp_core::types::JSONObject;
use schemars::JsonSchema;
use serde::de::{self, DeserializeOwned, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::context::Context;
use crate::extract::FromContext;
use crate::member::Member;
use crate::result::HandlerError;
use crate::scan;
use crate::schema::argument_schema_for;

/// What the macro knows about a parameter that may be an argument.
#[derive(Debug)]
pub struct ArgSpec {
    /// The name on the wire.
    pub name: &'static str,
    /// From the doc comment, the `# Arguments` section or `#[arg(description)]`.
    pub description: Option<&'static str>,
    /// The `#[arg(default = …)]` value as JSON, when it has one.
    pub default: Option<fn() -> Value>,
    /// `#[arg(header = "…")]`: the `x-mcp-header` annotation of its property.
    pub header: Option<&'static str>,
}

/// Why a parameter has no value: an argument the model must correct (an `isError: true`
/// result) or an extractor's protocol error.
#[derive(Debug)]
pub enum ParamError {
    Argument(String),
    Rpc(HandlerError),
}

/// Takes a parameter's value for one call: the arguments, the request, the parameter, its
/// `#[arg(default)]`.
pub(crate) type Take<T> =
    fn(&mut ToolArguments<'_>, &Context, &ArgSpec, Option<fn() -> T>) -> Result<T, ParamError>;

/// How one parameter enters the input schema and gets its value.
#[derive(Debug)]
pub struct ParamOps<T> {
    /// Whether the parameter is an argument (else an extractor).
    pub argument: bool,
    pub describe: fn(&mut ArgumentsSchema, &ArgSpec),
    pub take: Take<T>,
}

/// The probe the generated code calls `ops()` on, through two references (see the module
/// docs).
#[derive(Debug)]
pub struct Param<T>(PhantomData<T>);

impl<T> Param<T> {
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Param(PhantomData)
    }
}

/// First choice: the parameter is filled from the request.
pub trait ExtractorParam<T> {
    fn ops(&self) -> ParamOps<T>;
}

impl<T: FromContext> ExtractorParam<T> for &&Param<T> {
    fn ops(&self) -> ParamOps<T> {
        ParamOps {
            argument: false,
            describe: |_, _| {},
            take: |_, ctx, _, _| T::from_context(ctx).map_err(|e| ParamError::Rpc(e.into())),
        }
    }
}

/// Second choice: the parameter is an argument of the tool.
pub trait ArgumentParam<T> {
    fn ops(&self) -> ParamOps<T>;
}

impl<T: DeserializeOwned + JsonSchema> ArgumentParam<T> for &Param<T> {
    fn ops(&self) -> ParamOps<T> {
        ParamOps {
            argument: true,
            describe: |schema, spec| {
                let mut property = argument_schema_for::<T>();
                if let Some(d) = spec.description {
                    property.insert("description".into(), Value::String(d.to_owned()));
                }
                if let Some(default) = spec.default {
                    property.insert("default".into(), default());
                }
                if let Some(header) = spec.header {
                    property = mirrorable(property);
                    property.insert("x-mcp-header".into(), Value::String(header.to_owned()));
                }
                let required = spec.default.is_none() && T::deserialize(Missing).is_err();
                schema.add(spec.name, property, required);
            },
            take: |arguments, _, spec, default| arguments.take(spec.name, default),
        }
    }
}

/// The property of an argument mirrored into a header: an optional one's `anyOf` of its
/// type and `null` (how an `Option<T>` is described) becomes that type, as the transport's
/// rules want a parameter of one primitive type. Leaving the header out stays the way to
/// send no value, and `null` is still read as none.
fn mirrorable(mut property: JSONObject) -> JSONObject {
    let Some(Value::Array(alternatives)) = property.get("anyOf") else {
        return property;
    };
    let is_null = |v: &Value| v.get("type").and_then(Value::as_str) == Some("null");
    let [a, b] = alternatives.as_slice() else {
        return property;
    };
    let inner = match (is_null(a), is_null(b), a, b) {
        (false, true, Value::Object(inner), _) | (true, false, _, Value::Object(inner)) => {
            inner.clone()
        }
        _ => return property,
    };
    property.remove("anyOf");
    for (key, value) in inner {
        property.entry(key).or_insert(value);
    }
    property
}

/// Neither: the bound below has no impl, so rustc reports its message at the parameter.
pub trait UnusableParam<T> {
    fn ops(&self) -> ParamOps<T>
    where
        T: ToolParameter;
}

impl<T> UnusableParam<T> for Param<T> {
    fn ops(&self) -> ParamOps<T>
    where
        T: ToolParameter,
    {
        T::ops()
    }
}

/// Implemented for no type: a parameter type that is neither an extractor nor an argument
/// lands here, and this message is the one compile error about it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is neither a tool argument nor an extractor",
    label = "derive `serde::Deserialize` and `schemars::JsonSchema` for `{Self}` to make it an argument",
    note = "an argument's type implements `Deserialize` (its value comes from the client) and `JsonSchema` (its schema is published); an extractor's implements `ferromcp::extract::FromContext` (`Context`, `State<T>`, your own)"
)]
pub trait ToolParameter: Sized {
    fn ops() -> ParamOps<Self>;
}

/// The fallback of a parameter marked `#[arg]` (its probe skips the extractor impl): the
/// bound below has no impl, so a type that is no argument gets this message.
pub trait MarkedParam<T> {
    fn ops(&self) -> ParamOps<T>
    where
        T: MarkedArgument;
}

impl<T> MarkedParam<T> for Param<T> {
    fn ops(&self) -> ParamOps<T>
    where
        T: MarkedArgument,
    {
        T::ops()
    }
}

/// Implemented for no type; see [`MarkedParam`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is marked #[arg] but is not a tool argument",
    label = "an argument's type implements `serde::Deserialize` and `schemars::JsonSchema`",
    note = "#[arg] describes an argument the client sends; an extractor (`ferromcp::extract::FromContext`) takes no #[arg]: remove it"
)]
pub trait MarkedArgument: Sized {
    fn ops() -> ParamOps<Self>;
}

/// How a prompt parameter gets its value: from the prompt's string arguments (parsed with
/// `FromStr`) or, for an extractor, from the request.
#[derive(Debug)]
pub struct PromptOps<T> {
    /// Whether the parameter is a prompt argument (else an extractor).
    pub argument: bool,
    /// The value from the arguments (by the parameter's name) or from the request.
    pub take: TakePrompt<T>,
}

/// Takes a prompt parameter's value: the arguments, the request, the parameter's name.
pub(crate) type TakePrompt<T> =
    fn(&BTreeMap<String, String>, &Context, &str) -> Result<T, HandlerError>;

/// The probe a `#[prompt]` parameter's type is asked through, as [`Param`] is for tools:
/// `(&&&PromptParam::<T>::new()).ops()`.
#[derive(Debug)]
pub struct PromptParam<T>(PhantomData<T>);

impl<T> PromptParam<T> {
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        PromptParam(PhantomData)
    }
}

/// First choice: an extractor.
pub trait PromptExtractParam<T> {
    fn ops(&self) -> PromptOps<T>;
}

impl<T: FromContext> PromptExtractParam<T> for &&PromptParam<T> {
    fn ops(&self) -> PromptOps<T> {
        PromptOps {
            argument: false,
            take: |_, ctx, _| T::from_context(ctx).map_err(HandlerError::Rpc),
        }
    }
}

/// Second choice: a required argument, parsed with `FromStr`.
pub trait PromptArgParam<T> {
    fn ops(&self) -> PromptOps<T>;
}

impl<T> PromptArgParam<T> for &PromptParam<T>
where
    T: FromStr,
    T::Err: fmt::Display,
{
    fn ops(&self) -> PromptOps<T> {
        PromptOps {
            argument: true,
            take: |arguments, _, name| prompt_arg(arguments, name),
        }
    }
}

/// A required prompt argument, parsed with `FromStr`.
///
/// # Errors
///
/// -32602 naming the argument: missing, or not a valid value.
pub fn prompt_arg<T>(arguments: &BTreeMap<String, String>, name: &str) -> Result<T, HandlerError>
where
    T: FromStr,
    T::Err: fmt::Display,
{
    match arguments.get(name) {
        Some(v) => v.parse().map_err(|e| {
            HandlerError::Rpc(ferromcp_core::error::ErrorObject::invalid_params(format!(
                "invalid value for argument `{name}`: {e}"
            )))
        }),
        None => Err(crate::registry::missing_prompt_argument(name)),
    }
}

/// Neither: the bound has no impl, so rustc reports its message at the parameter.
pub trait UnusablePromptParam<T> {
    fn ops(&self) -> PromptOps<T>
    where
        T: PromptParameter;
}

impl<T> UnusablePromptParam<T> for PromptParam<T> {
    fn ops(&self) -> PromptOps<T>
    where
        T: PromptParameter,
    {
        T::ops()
    }
}

/// Implemented for no type: a prompt parameter type that is neither an argument nor an
/// extractor lands here.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is neither a prompt argument nor an extractor",
    label = "implement `std::str::FromStr` for `{Self}` to make it an argument (prompt arguments are strings)",
    note = "a prompt argument's type implements `FromStr` (`String`, numbers, your own); an extractor's implements `ferromcp::extract::FromContext` (`Context`, `State<T>`, your own)"
)]
pub trait PromptParameter: Sized {
    fn ops() -> PromptOps<Self>;
}

/// The input schema of a tool, one argument at a time.
#[derive(Debug)]
pub struct ArgumentsSchema {
    properties: JSONObject,
    required: Vec<Value>,
}

impl ArgumentsSchema {
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        ArgumentsSchema {
            properties: JSONObject::new(),
            required: Vec::new(),
        }
    }

    fn add(&mut self, name: &str, schema: JSONObject, required: bool) {
        self.properties
            .insert(name.to_owned(), Value::Object(schema));
        if required {
            self.required.push(Value::String(name.to_owned()));
        }
    }

    /// `{"type": "object", "properties": …, "required": […], "additionalProperties": false}`.
    pub fn finish(self) -> JSONObject {
        let mut schema = JSONObject::new();
        schema.insert("type".into(), Value::String("object".into()));
        schema.insert("properties".into(), Value::Object(self.properties));
        if !self.required.is_empty() {
            schema.insert("required".into(), Value::Array(self.required));
        }
        schema.insert("additionalProperties".into(), Value::Bool(false));
        schema
    }
}

/// The members of a call's `arguments` object, each taken by the parameter of its name;
/// what is left over was not asked for.
///
/// Borrowed from the request: a member's value (a file's contents, say) is read in place by
/// its parameter's `Deserialize`, never copied out first.
pub struct ToolArguments<'a> {
    /// Each member's value as its JSON text.
    members: BTreeMap<MemberName<'a>, &'a str>,
}

impl std::fmt::Debug for ToolArguments<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolArguments")
            .field("members", &self.members.len())
            .finish()
    }
}

/// A member's name: borrowed from the request, or unescaped when it has an escape.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct MemberName<'a>(Cow<'a, str>);

// Ordered as its text, so a map of names is searched by `&str`.
impl std::borrow::Borrow<str> for MemberName<'_> {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for MemberName<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Name;
        impl<'de> Visitor<'de> for Name {
            type Value = MemberName<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }

            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(MemberName(Cow::Borrowed(v)))
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(MemberName(Cow::Owned(v.to_owned())))
            }
        }
        deserializer.deserialize_str(Name)
    }
}

impl<'a> ToolArguments<'a> {
    /// Splits `arguments` into its members (absent and `null` are an empty object: a tool
    /// without parameters may be called either way).
    ///
    /// # Errors
    ///
    /// The message for the model when `arguments` is not an object.
    pub fn parse(arguments: Option<&'a RawValue>) -> Result<Self, String> {
        let text = match arguments.map(RawValue::get) {
            None => "{}",
            Some(t) if t.trim() == "null" => "{}",
            Some(t) => t,
        };
        // Split by a scan that skips each value (a `RawValue` is well formed): the parser
        // reads a value once, when its parameter takes it, however large it is.
        let mut members = BTreeMap::new();
        let mut escaped_name = false;
        let scanned = scan::each_member(text, |name, escaped, value| {
            if escaped {
                escaped_name = true;
            } else {
                // A later duplicate wins, as when serde fills a map.
                members.insert(MemberName(Cow::Borrowed(&name[1..name.len() - 1])), value);
            }
            ControlFlow::Continue(())
        });
        if scanned.is_some() && !escaped_name {
            return Ok(ToolArguments { members });
        }
        // Not an object, or a name with an escape: serde reads it (and decodes the names).
        serde_json::from_str::<BTreeMap<MemberName<'a>, &'a RawValue>>(text)
            .map(|members| ToolArguments {
                members: members.into_iter().map(|(k, v)| (k, v.get())).collect(),
            })
            .map_err(|_| "invalid arguments: expected an object of arguments".to_owned())
    }

    fn take<T: DeserializeOwned>(
        &mut self,
        name: &str,
        default: Option<fn() -> T>,
    ) -> Result<T, ParamError> {
        let invalid =
            |e: &dyn fmt::Display| ParamError::Argument(format!("invalid argument `{name}`: {e}"));
        match (self.members.remove(name), default) {
            (Some(raw), _) => T::deserialize(Member::new(raw)).map_err(|e| invalid(&e)),
            (None, Some(default)) => Ok(default()),
            (None, None) => T::deserialize(Missing).map_err(|_| {
                ParamError::Argument(format!("invalid arguments: missing field `{name}`"))
            }),
        }
    }

    /// Each member's name and value text, in name order.
    #[cfg(feature = "fuzzing")]
    pub(crate) fn members(&self) -> Vec<(String, String)> {
        self.members
            .iter()
            .map(|(k, v)| (k.0.clone().into_owned(), (*v).to_owned()))
            .collect()
    }

    /// Succeeds when every member is one of the `known` arguments; checked before any is
    /// taken, so that a misspelled name is reported as such rather than as the missing one.
    ///
    /// # Errors
    ///
    /// The message for the model naming the first unknown member and the known ones.
    pub fn refuse_unknown(&self, known: &[&str]) -> Result<(), String> {
        match self.members.keys().find(|k| !known.contains(&&*k.0)) {
            None => Ok(()),
            Some(MemberName(unknown)) => Err(format!(
                "invalid arguments: unknown field `{unknown}`, {}",
                match known {
                    [] => "this tool takes no arguments".to_owned(),
                    known => format!(
                        "expected {}",
                        known
                            .iter()
                            .map(|k| format!("`{k}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                }
            )),
        }
    }
}

/// An absent member, as serde's derive sees one: `Option<T>` deserializes to `None`,
/// anything else fails. Tells the required arguments from the optional ones, by type.
struct Missing;

#[derive(Debug)]
struct MissingError;

impl fmt::Display for MissingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("missing")
    }
}

impl std::error::Error for MissingError {}

impl de::Error for MissingError {
    fn custom<M: fmt::Display>(_: M) -> Self {
        MissingError
    }
}

impl<'de> de::Deserializer<'de> for Missing {
    type Error = MissingError;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, MissingError> {
        Err(MissingError)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, MissingError> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
        ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arguments(json: &str) -> ToolArguments<'static> {
        let raw = Box::leak(RawValue::from_string(json.to_owned()).unwrap());
        ToolArguments::parse(Some(raw)).unwrap()
    }

    fn message<T>(r: Result<T, ParamError>) -> String {
        match r {
            Err(ParamError::Argument(m)) => m,
            _ => panic!("not an argument error"),
        }
    }

    #[test]
    fn arguments_are_taken_by_name_and_errors_name_them() {
        let mut a = arguments(r#"{"count": "x", "title": "t", "extra": 1}"#);
        assert_eq!(
            a.refuse_unknown(&["title", "count"]).unwrap_err(),
            "invalid arguments: unknown field `extra`, expected `title`, `count`"
        );
        assert!(a.refuse_unknown(&["title", "count", "extra"]).is_ok());
        assert_eq!(a.take::<String>("title", None).ok(), Some("t".to_owned()));
        assert_eq!(
            message(a.take::<u32>("count", None)),
            "invalid argument `count`: invalid type: string \"x\", expected u32"
        );
        assert_eq!(
            message(a.take::<u32>("limit", None)),
            "invalid arguments: missing field `limit`"
        );
        assert_eq!(a.take::<Option<u32>>("limit", None).ok(), Some(None));
        assert_eq!(a.take::<u32>("limit", Some(|| 7)).ok(), Some(7));
        let raw = RawValue::from_string("[1]".to_owned()).unwrap();
        assert!(ToolArguments::parse(Some(&raw)).is_err());
        assert!(
            ToolArguments::parse(None)
                .unwrap()
                .refuse_unknown(&[])
                .is_ok()
        );
    }

    #[test]
    fn members_are_borrowed_and_escaped_names_unescaped() {
        let raw = Box::leak(
            RawValue::from_string(r#"{"text": "a long value", "t\u0069tle": "x"}"#.to_owned())
                .unwrap(),
        );
        let mut a = ToolArguments::parse(Some(raw)).unwrap();
        let text = *a.members.get("text").unwrap();
        // The member's value is the request's own text, not a copy of it.
        let within = raw.get().as_bytes().as_ptr_range();
        assert!(within.contains(&text.as_ptr()));
        assert_eq!(text, r#""a long value""#);
        assert!(a.refuse_unknown(&["text", "title"]).is_ok());
        assert_eq!(
            a.refuse_unknown(&["text"]).unwrap_err(),
            "invalid arguments: unknown field `title`, expected `text`"
        );
        assert_eq!(a.take::<String>("title", None).ok(), Some("x".to_owned()));
    }

    #[test]
    fn optional_by_type_not_by_name() {
        assert!(Option::<u8>::deserialize(Missing).is_ok());
        assert!(u8::deserialize(Missing).is_err());
        assert!(Value::deserialize(Missing).is_err());
    }
}
