//! Private serde helpers behind the message macros.

use serde::Deserialize;

use crate::jsonrpc::{JsonRpcVersion, RequestId};

#[derive(Deserialize)]
pub(crate) struct RequestRepr<P> {
    #[allow(dead_code)]
    pub(crate) jsonrpc: JsonRpcVersion,
    pub(crate) id: RequestId,
    pub(crate) method: String,
    pub(crate) params: Option<P>,
}

/// A request that may come without `jsonrpc`/`id` (2026 embeds server-to-client requests in
/// `InputRequests` that way).
#[derive(Deserialize)]
pub(crate) struct EmbeddedRequestRepr<P> {
    #[serde(default)]
    pub(crate) jsonrpc: Option<JsonRpcVersion>,
    #[serde(default)]
    pub(crate) id: Option<RequestId>,
    pub(crate) method: String,
    pub(crate) params: Option<P>,
}

#[derive(Deserialize)]
pub(crate) struct NotificationRepr<P> {
    #[allow(dead_code)]
    pub(crate) jsonrpc: JsonRpcVersion,
    pub(crate) method: String,
    pub(crate) params: Option<P>,
}

#[derive(Deserialize)]
pub(crate) struct ResponseRepr<R> {
    #[allow(dead_code)]
    pub(crate) jsonrpc: JsonRpcVersion,
    pub(crate) id: RequestId,
    pub(crate) result: R,
}

pub(crate) fn check_method<E: serde::de::Error>(
    found: &str,
    expected: &'static str,
) -> Result<(), E> {
    if found == expected {
        Ok(())
    } else {
        Err(E::invalid_value(
            serde::de::Unexpected::Str(found),
            &expected,
        ))
    }
}
