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

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use mcp_core::types::JSONObject;
use schemars::JsonSchema;
use serde::de::{self, DeserializeOwned, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::context::Context;
use crate::extract::FromContext;
use crate::result::HandlerError;
use crate::schema::argument_schema_for;

/// What the macro knows about a parameter that may be an argument.
pub struct ArgSpec {
    /// The name on the wire.
    pub name: &'static str,
    /// From the doc comment, the `# Arguments` section or `#[arg(description)]`.
    pub description: Option<&'static str>,
    /// The `#[arg(default = …)]` value as JSON, when it has one.
    pub default: Option<fn() -> Value>,
}

/// Why a parameter has no value: an argument the model must correct (an `isError: true`
/// result) or an extractor's protocol error.
pub enum ParamError {
    Argument(String),
    Rpc(HandlerError),
}

/// Takes a parameter's value for one call: the arguments, the request, the parameter, its
/// `#[arg(default)]`.
pub type Take<T> =
    fn(&mut ToolArguments, &Context, &ArgSpec, Option<fn() -> T>) -> Result<T, ParamError>;

/// How one parameter enters the input schema and gets its value.
pub struct ParamOps<T> {
    /// Whether the parameter is an argument (else an extractor).
    pub argument: bool,
    pub describe: fn(&mut ArgumentsSchema, &ArgSpec),
    pub take: Take<T>,
}

/// The probe the generated code calls `ops()` on, through two references (see the module
/// docs).
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
                let required = spec.default.is_none() && T::deserialize(Missing).is_err();
                schema.add(spec.name, property, required);
            },
            take: |arguments, _, spec, default| arguments.take(spec.name, default),
        }
    }
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
    note = "an argument's type implements `Deserialize` (its value comes from the client) and `JsonSchema` (its schema is published); an extractor's implements `mcp_server::extract::FromContext` (`Context`, `State<T>`, your own)"
)]
pub trait ToolParameter: Sized {
    fn ops() -> ParamOps<Self>;
}

/// The input schema of a tool, one argument at a time.
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
pub struct ToolArguments {
    members: BTreeMap<String, Box<RawValue>>,
}

impl ToolArguments {
    /// Splits `arguments` into its members (absent and `null` are an empty object: a tool
    /// without parameters may be called either way).
    ///
    /// # Errors
    ///
    /// The message for the model when `arguments` is not an object.
    pub fn parse(arguments: Option<&RawValue>) -> Result<Self, String> {
        let text = match arguments.map(RawValue::get) {
            None => "{}",
            Some(t) if t.trim() == "null" => "{}",
            Some(t) => t,
        };
        serde_json::from_str(text)
            .map(|members| ToolArguments { members })
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
            (Some(raw), _) => serde_json::from_str(raw.get()).map_err(|e| {
                // serde_json appends a position inside the member's value, which the model
                // cannot relate to anything it sent.
                let full = e.to_string();
                let at = format!(" at line {} column {}", e.line(), e.column());
                invalid(&full.strip_suffix(&at).unwrap_or(&full))
            }),
            (None, Some(default)) => Ok(default()),
            (None, None) => T::deserialize(Missing).map_err(|_| {
                ParamError::Argument(format!("invalid arguments: missing field `{name}`"))
            }),
        }
    }

    /// Succeeds when every member is one of the `known` arguments; checked before any is
    /// taken, so that a misspelled name is reported as such rather than as the missing one.
    ///
    /// # Errors
    ///
    /// The message for the model naming the first unknown member and the known ones.
    pub fn refuse_unknown(&self, known: &[&str]) -> Result<(), String> {
        match self.members.keys().find(|k| !known.contains(&k.as_str())) {
            None => Ok(()),
            Some(unknown) => Err(format!(
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

    fn arguments(json: &str) -> ToolArguments {
        let raw = RawValue::from_string(json.to_owned()).unwrap();
        ToolArguments::parse(Some(&raw)).unwrap()
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
    fn optional_by_type_not_by_name() {
        assert!(Option::<u8>::deserialize(Missing).is_ok());
        assert!(u8::deserialize(Missing).is_err());
        assert!(Value::deserialize(Missing).is_err());
    }

    use serde::Deserialize as _;
}
