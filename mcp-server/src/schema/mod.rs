//! JSON Schemas for tool inputs and outputs, built with schemars (JSON Schema 2020-12) once
//! per type and process, with local references inlined: several clients drop `$ref` /
//! `$defs`. Recursive types cannot be inlined; their definitions stay in a root `$defs`.
//! Every schema is then made portable (no bare booleans, no `type` arrays, no schema that
//! constrains nothing, no non-standard `format`; an `Option<T>` argument is a plain,
//! optional `T`).

mod portable;

use std::any::TypeId;
use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use ferromcp_core::types::JSONObject;
use portable::{Direction, make_portable};
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

fn generator(serialize: bool) -> schemars::SchemaGenerator {
    let settings = SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true);
    let settings = if serialize {
        settings.for_serialize()
    } else {
        settings.for_deserialize()
    };
    settings.into_generator()
}

fn tidy(schema: schemars::Schema, direction: Direction) -> JSONObject {
    let mut object = match schema.to_value() {
        Value::Object(map) => map,
        // `true`/`false` schemas: accept anything / nothing.
        Value::Bool(true) => JSONObject::new(),
        other => {
            let mut map = JSONObject::new();
            map.insert("allOf".into(), Value::Array(vec![other]));
            map
        }
    };
    object.remove("$schema");
    object.remove("title");
    make_portable(&mut object, direction);
    object
}

/// The input schema of a tool whose arguments deserialize into `T`: an object schema (a
/// non-object `T` is wrapped as `{"type":"object"}` with no properties, which the macros
/// never produce).
pub fn input_schema_for<T: JsonSchema>() -> JSONObject {
    let mut object = tidy(
        generator(false).into_root_schema_for::<T>(),
        Direction::Input,
    );
    if object.get("type").and_then(Value::as_str) != Some("object") {
        object.insert("type".into(), Value::String("object".into()));
    }
    // Some clients require `properties` even when a tool takes no arguments.
    object
        .entry("properties")
        .or_insert_with(|| Value::Object(JSONObject::new()));
    object
}

/// The output schema of a tool returning `Json<T>`, as `T` serializes. Built once per type
/// and process, then copied.
pub fn output_schema_for<T: JsonSchema>() -> JSONObject {
    once_per_type::<T>(Use::Output, || {
        tidy(
            generator(true).into_root_schema_for::<T>(),
            Direction::Output,
        )
    })
}

/// The output schema of a tool returning a plain value of type `T` (a number or a `bool`),
/// which is published wrapped as `{"result": value}`: structured content is an object in
/// every revision before 2026.
pub fn result_schema_for<T: JsonSchema>() -> JSONObject {
    once_per_type::<T>(Use::Result, build_result_schema::<T>)
}

fn build_result_schema<T: JsonSchema>() -> JSONObject {
    let value = property_schema(
        generator(true).into_root_schema_for::<T>(),
        Direction::Output,
    );
    let mut object = JSONObject::new();
    object.insert("type".into(), Value::String("object".into()));
    object.insert(
        "properties".into(),
        Value::Object(std::iter::once(("result".to_owned(), Value::Object(value))).collect()),
    );
    object.insert("required".into(), serde_json::json!(["result"]));
    object
}

/// The schema of one value of type `T` (for a single argument), inlined. Built once per type
/// and process, then copied.
pub fn value_schema_for<T: JsonSchema>() -> Value {
    Value::Object(argument_schema_for::<T>())
}

/// The schema of a tool argument of type `T`: the property of the input object. Built once
/// per type and process ([`once_per_type`]).
pub(crate) fn argument_schema_for<T: JsonSchema>() -> JSONObject {
    once_per_type::<T>(Use::Argument, build_argument_schema::<T>)
}

/// Where a type's schema goes: each use has its own form (an argument's is a property, a
/// plain result's is wrapped in `{"result": …}`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Use {
    Argument,
    Output,
    Result,
}

/// The schema `build` makes of `T` for `kind`, built once per type and process and copied
/// from then on: the tools of a server share their argument types (`String`,
/// `Option<String>`, a struct of the server's) and often their result types, and a copy of
/// a built schema costs a small fraction of building it with schemars and making it
/// portable (a 50-tool server's start-up: `docs/benchmarks.md`).
///
/// Keyed by the type's id, not by schemars' `schema_id`, which a hand-written `JsonSchema`
/// impl defaults to its `schema_name`, so two types could share one. The id leaves out
/// lifetimes, as a schema does: no two `JsonSchema` impls can differ only in a lifetime.
fn once_per_type<T: ?Sized>(kind: Use, build: impl FnOnce() -> JSONObject) -> JSONObject {
    static BUILT: Mutex<BTreeMap<(TypeId, Use), JSONObject>> = Mutex::new(BTreeMap::new());
    let key = (typeid::of::<T>(), kind);
    let built = || BUILT.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(schema) = built().get(&key) {
        return schema.clone();
    }
    // Built outside the lock: a `JsonSchema` impl is the user's code and may panic.
    let schema = build();
    built().insert(key, schema.clone());
    schema
}

fn build_argument_schema<T: JsonSchema>() -> JSONObject {
    property_schema(
        generator(false).into_root_schema_for::<T>(),
        Direction::Input,
    )
}

/// A root schema moved to the position of an object's property and made portable there (a
/// schema that constrains nothing, `true` for a `serde_json::Value`, names every type).
fn property_schema(schema: schemars::Schema, direction: Direction) -> JSONObject {
    let mut value = schema.to_value();
    if let Value::Object(root) = &mut value {
        root.remove("$schema");
        root.remove("title");
    }
    // Moved in, not through `json!`, which would serialize a copy of the whole schema.
    let mut properties = JSONObject::new();
    properties.insert("value".into(), value);
    let mut holder = JSONObject::new();
    holder.insert("properties".into(), Value::Object(properties));
    make_portable(&mut holder, direction);
    match holder.remove("properties") {
        Some(Value::Object(mut properties)) => match properties.remove("value") {
            Some(Value::Object(schema)) => schema,
            _ => JSONObject::new(),
        },
        _ => JSONObject::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Args {
        /// The title.
        title: String,
        tags: Vec<String>,
        body: Option<String>,
        address: Address,
    }

    #[derive(serde::Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Address {
        city: String,
    }

    #[test]
    fn input_schemas_are_closed_objects_with_inlined_definitions() {
        let s = input_schema_for::<Args>();
        assert_eq!(s["type"], "object");
        assert_eq!(s["additionalProperties"], false);
        assert_eq!(s["properties"]["title"]["description"], "The title.");
        assert_eq!(
            s["properties"]["address"]["properties"]["city"]["type"],
            "string"
        );
        let required: Vec<&str> = s["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(required, ["title", "tags", "address"]);
        assert!(!serde_json::to_string(&s).unwrap().contains("$ref"));
        assert!(s.get("$schema").is_none() && s.get("title").is_none());
    }

    #[derive(serde::Serialize, JsonSchema)]
    #[allow(dead_code)]
    struct Stats {
        count: usize,
        mean: f64,
        small: u8,
        #[schemars(url)]
        home: String,
    }

    #[test]
    fn only_standard_formats_are_kept() {
        let s = serde_json::to_string(&output_schema_for::<Stats>()).unwrap();
        for foreign in ["\"uint\"", "\"uint8\"", "\"double\""] {
            assert!(!s.contains(foreign), "{foreign} in {s}");
        }
        assert!(s.contains("\"minimum\":0"), "the bounds stay: {s}");
        assert!(
            s.contains("\"format\":\"uri\""),
            "standard formats stay: {s}"
        );
    }

    /// Two hand-written impls with one `schema_name` (and so, by default, one
    /// `schema_id`): each type keeps its own schema, the first build and the copies alike.
    #[test]
    fn argument_schemas_are_kept_per_type() {
        struct Digits;
        struct Word;
        impl JsonSchema for Digits {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                "Id".into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({"type": "string", "pattern": "^[0-9]+$"})
            }
        }
        impl JsonSchema for Word {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                "Id".into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({"type": "string", "pattern": "^[a-z]+$"})
            }
        }
        for _ in 0..2 {
            assert_eq!(argument_schema_for::<Digits>()["pattern"], "^[0-9]+$");
            assert_eq!(argument_schema_for::<Word>()["pattern"], "^[a-z]+$");
            assert_eq!(
                argument_schema_for::<Args>(),
                build_argument_schema::<Args>()
            );
        }
    }

    /// Each use of a type (argument, `Json<T>` output, plain result) is built once, however
    /// many tools use it so, and keeps its own form.
    #[test]
    fn each_use_of_a_type_is_built_once() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static BUILDS: AtomicUsize = AtomicUsize::new(0);
        struct Counted;
        impl JsonSchema for Counted {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                "Counted".into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                BUILDS.fetch_add(1, Ordering::Relaxed);
                schemars::json_schema!({"type": "integer"})
            }
        }
        for _ in 0..3 {
            assert_eq!(argument_schema_for::<Counted>()["type"], "integer");
            assert_eq!(output_schema_for::<Counted>()["type"], "integer");
            assert_eq!(
                result_schema_for::<Counted>()["properties"]["result"]["type"],
                "integer"
            );
        }
        assert_eq!(BUILDS.load(Ordering::Relaxed), 3);
    }

    /// A result type that borrows has its schema, the same for every lifetime.
    #[test]
    fn a_borrowing_output_type_has_its_schema() {
        #[derive(JsonSchema)]
        struct Named<'a> {
            #[allow(dead_code)]
            name: &'a str,
        }
        fn schema_of<'a>(_: &'a str) -> JSONObject {
            output_schema_for::<Named<'a>>()
        }
        let text = String::from("x");
        let schema = schema_of(&text);
        assert_eq!(schema["properties"]["name"]["type"], "string");
        assert_eq!(schema, output_schema_for::<Named<'static>>());
    }
}
