//! The input-required (multi round-trip) scenarios whose asking takes more than a line: a
//! request state carried between rounds, several inputs at once, and asking only for what
//! the client declared.

use ferromcp::prelude::{Context, ContextError};
use ferromcp::types::{CreateMessageRequestParams, ElicitRequestFormParams, SamplingMessage};
use serde_json::json;

use super::client::{ask_name, elicited, sampled_text, schema};

/// Asks for confirmation, carrying its own state between rounds.
pub(super) async fn request_state(ctx: &Context) -> Result<String, ContextError> {
    let carried: Option<String> = ctx.request_state();
    ctx.set_request_state("state-ok");
    let requested = schema(json!({
        "type": "object",
        "properties": {"ok": {"type": "boolean"}},
        "required": ["ok"]
    }));
    let result = ctx
        .input(Some("confirm"))
        .elicit_form(ElicitRequestFormParams::new("Please confirm", requested))
        .await?;
    Ok(format!(
        "Confirmed ({}), request state: {}",
        elicited(&result),
        carried.unwrap_or_else(|| "missing".into())
    ))
}

/// Asks for a name, a greeting and the roots, all at once.
pub(super) async fn multiple_inputs(ctx: &Context) -> Result<String, ContextError> {
    ctx.set_request_state("multiple-inputs");
    let greeting = CreateMessageRequestParams::new(
        vec![SamplingMessage::user_text("Write a short greeting.")],
        50,
    );
    let (name, greeting, roots) = tokio::join!(
        ask_name(ctx, "user_name", "What is your name?"),
        ctx.input(Some("greeting")).sample(greeting),
        ctx.input(Some("client_roots")).roots(),
    );
    Ok(format!(
        "{} {} ({} roots)",
        sampled_text(&greeting?),
        name?,
        roots?.len()
    ))
}

/// Asks only for what the client declared it can do.
pub(super) async fn capabilities(ctx: &Context) -> Result<String, ContextError> {
    let caps = ctx.client_capabilities().clone();
    let mut parts = Vec::new();
    if caps.supports_elicitation_form() {
        parts.push(format!(
            "name={}",
            ask_name(ctx, "user_name", "What is your name?").await?
        ));
    }
    if caps.supports_sampling() {
        let params =
            CreateMessageRequestParams::new(vec![SamplingMessage::user_text("Say hello.")], 20);
        parts.push(format!(
            "sample={}",
            sampled_text(&ctx.input(Some("greeting")).sample(params).await?)
        ));
    }
    if caps.supports_roots() {
        parts.push(format!(
            "roots={}",
            ctx.input(Some("client_roots")).roots().await?.len()
        ));
    }
    Ok(if parts.is_empty() {
        "No client capabilities to use".into()
    } else {
        parts.join(", ")
    })
}
