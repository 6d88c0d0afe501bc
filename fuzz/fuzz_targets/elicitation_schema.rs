//! The elicitation types (`ferromcp_core::types`): the requested schema and its field schemas
//! (string, number, boolean, the five enum shapes), the request params of both modes, and
//! the result, read from arbitrary JSON.
//!
//! Properties, for each type:
//! - reading from JSON text and reading from the same JSON as a `Value` agree;
//! - what was read round-trips: written out and read back, it is equal, and writing it again
//!   gives the same JSON (nothing is lost or invented on the way).
#![no_main]

use std::fmt::Debug;

use ferromcp_core::types::{
    ElicitRequestFormParams, ElicitRequestParams, ElicitRequestURLParams, ElicitRequestedSchema,
    ElicitResult, EnumSchema, PrimitiveSchemaDefinition,
};
use libfuzzer_sys::fuzz_target;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

fn round_trip<T: DeserializeOwned + Serialize + PartialEq + Debug>(
    data: &[u8],
    parsed: &Option<Value>,
) {
    let direct = serde_json::from_slice::<T>(data);
    if let Some(value) = parsed {
        // The text of the parsed value rather than `data`: a repeated key is an error for a
        // derived struct reading text but not for a `Value`, which keeps the last.
        let via_text = serde_json::from_str::<T>(&value.to_string());
        let via_value = serde_json::from_value::<T>(value.clone());
        match (&via_text, &via_value) {
            (Ok(a), Ok(b)) => assert_eq!(a, b),
            (Err(_), Err(_)) => {}
            (a, b) => panic!(
                "{}: from text {a:?}, from a Value {b:?}",
                std::any::type_name::<T>()
            ),
        }
    }
    let Ok(read) = direct else { return };
    let written = serde_json::to_value(&read).expect("serializes");
    let again: T = serde_json::from_value(written.clone()).unwrap_or_else(|e| {
        panic!(
            "{} does not read back {written}: {e}",
            std::any::type_name::<T>()
        )
    });
    assert_eq!(again, read, "{written}");
    assert_eq!(serde_json::to_value(&again).expect("serializes"), written);
}

fuzz_target!(|data: &[u8]| {
    let parsed = serde_json::from_slice::<Value>(data).ok();
    round_trip::<PrimitiveSchemaDefinition>(data, &parsed);
    round_trip::<EnumSchema>(data, &parsed);
    round_trip::<ElicitRequestedSchema>(data, &parsed);
    round_trip::<ElicitRequestFormParams>(data, &parsed);
    round_trip::<ElicitRequestURLParams>(data, &parsed);
    round_trip::<ElicitRequestParams>(data, &parsed);
    round_trip::<ElicitResult>(data, &parsed);
});
