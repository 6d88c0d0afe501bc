//! Asking the client: the requested schema of an elicitation, the one-field question the
//! input-required tools ask, and the answers of sampling and elicitation as text.

use ferromcp::prelude::{Context, ContextError};
use ferromcp::types::{ElicitRequestFormParams, ElicitRequestedSchema};
use serde_json::{Value, json};

pub(super) fn schema(value: Value) -> ElicitRequestedSchema {
    serde_json::from_value(value).unwrap_or_default()
}

/// The `text` of the first text block of a sampling result.
pub(super) fn sampled_text(result: &ferromcp::types::CreateMessageResult) -> String {
    result
        .content
        .blocks()
        .iter()
        .find_map(|b| {
            serde_json::to_value(b)
                .ok()?
                .get("text")?
                .as_str()
                .map(str::to_owned)
        })
        .unwrap_or_default()
}

pub(super) fn elicited(result: &ferromcp::types::ElicitResult) -> String {
    serde_json::to_string(result).unwrap_or_default()
}

/// Asks the user for one string field, `name`, under the input key `key`.
pub(super) async fn ask_name(
    ctx: &Context,
    key: &str,
    message: &str,
) -> Result<String, ContextError> {
    let requested = schema(json!({
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"]
    }));
    let result = ctx
        .input(Some(key))
        .elicit_form(ElicitRequestFormParams::new(message, requested))
        .await?;
    let content = result.content.unwrap_or_default();
    let value = content
        .get("name")
        .and_then(|v| v.as_str())
        .unwrap_or("anonymous");
    Ok(value.to_owned())
}
