//! Choosing the era: 2026-07-28 `server/discover` first, the legacy `initialize` handshake
//! when the server does not speak it (or the revision pinned by the options).

use std::sync::Arc;

use ferromcp_core::types::{
    DiscoverResult, Implementation, InitializeResult, META_CLIENT_CAPABILITIES, META_CLIENT_INFO,
    META_PROTOCOL_VERSION, ServerCapabilities,
};
use ferromcp_core::{Era, ProtocolVersion};
use serde_json::{Map, Value, json};

use crate::error::{Error, Result};
use crate::options::ClientOptions;
use crate::peer::Shared;

/// What the handshake learned about the server.
#[derive(Debug, Clone)]
pub(crate) struct ServerSession {
    pub(crate) version: ProtocolVersion,
    pub(crate) info: Option<Implementation>,
    pub(crate) capabilities: ServerCapabilities,
    pub(crate) instructions: Option<String>,
}

fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

fn parse<T: serde::de::DeserializeOwned>(method: &str, v: Value) -> Result<T> {
    serde_json::from_value(v).map_err(|e| Error::InvalidMessage(format!("{method} result: {e}")))
}

/// Whether a failed `server/discover` means "not a 2026 server" (try `initialize`) rather
/// than a broken connection.
fn is_not_modern(e: &Error) -> bool {
    match e {
        Error::Protocol(_) | Error::UnsupportedVersion(_) => true,
        Error::Http { status, .. } => (400..500).contains(status),
        _ => false,
    }
}

/// Runs the handshake the options call for.
pub(crate) async fn negotiate(
    shared: &Arc<Shared>,
    options: &ClientOptions,
) -> Result<ServerSession> {
    match options.version {
        Some(v) if v.era() == Era::Modern => discover(shared, options).await,
        Some(v) => initialize(shared, options, v).await,
        None => match discover(shared, options).await {
            Err(e) if is_not_modern(&e) => {
                tracing::debug!(error = %e, "server/discover failed; trying initialize");
                initialize(shared, options, ProtocolVersion::LATEST_LEGACY).await
            }
            other => other,
        },
    }
}

async fn discover(shared: &Arc<Shared>, options: &ClientOptions) -> Result<ServerSession> {
    let version = ProtocolVersion::V2026_07_28;
    let mut envelope = Map::new();
    envelope.insert(META_PROTOCOL_VERSION.into(), json!(version.as_str()));
    envelope.insert(
        META_CLIENT_CAPABILITIES.into(),
        to_value(&options.capabilities),
    );
    envelope.insert(META_CLIENT_INFO.into(), to_value(&options.client_info));
    shared.set_envelope(Some(envelope));
    shared.sink.set_protocol_version(version);
    let out = shared
        .request("server/discover", None, options.request_timeout, None)
        .await
        .and_then(|v| parse::<DiscoverResult>("server/discover", v));
    let result = match out {
        Ok(r) if r.supported_versions.iter().any(|v| v == version.as_str()) => r,
        Ok(r) => Err(Error::UnsupportedVersion(format!(
            "the server supports {:?}",
            r.supported_versions
        )))?,
        Err(e) => {
            shared.set_envelope(None);
            return Err(e);
        }
    };
    Ok(ServerSession {
        version,
        info: result.meta.and_then(|m| m.server_info),
        capabilities: result.capabilities,
        instructions: result.instructions,
    })
}

async fn initialize(
    shared: &Arc<Shared>,
    options: &ClientOptions,
    offered: ProtocolVersion,
) -> Result<ServerSession> {
    shared.set_envelope(None);
    shared.sink.clear_protocol_version();
    let params = json!({
        "protocolVersion": offered.as_str(),
        "capabilities": to_value(&options.capabilities),
        "clientInfo": to_value(&options.client_info),
    });
    let v = shared
        .request("initialize", Some(params), options.request_timeout, None)
        .await?;
    let result: InitializeResult = parse("initialize", v)?;
    let version = result
        .protocol_version
        .parse::<ProtocolVersion>()
        .ok()
        .filter(|v| v.era() == Era::Legacy && *v <= offered)
        .ok_or_else(|| {
            Error::UnsupportedVersion(format!(
                "the server answered `initialize` with {:?}",
                result.protocol_version
            ))
        })?;
    shared.sink.set_protocol_version(version);
    shared.notify("notifications/initialized", None).await?;
    Ok(ServerSession {
        version,
        info: Some(result.server_info),
        capabilities: result.capabilities,
        instructions: result.instructions,
    })
}
