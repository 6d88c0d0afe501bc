//! The `data` payloads of error codes whose shape names schema types, and the constructor
//! that builds one; re-exported at [`crate::error`] with the other codes' payloads.

use serde::{Deserialize, Serialize};

use crate::rpc_error::{ErrorCode, ErrorObject};
use crate::types::{ClientCapabilities, ElicitRequestURLParams};

impl ErrorObject {
    /// -32021 with `data.requiredCapabilities`.
    pub fn missing_required_client_capability(required: ClientCapabilities) -> Self {
        Self::new(
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
            "missing required client capability",
        )
        .with_data(MissingRequiredClientCapabilityData {
            required_capabilities: required,
        })
    }
}

/// `data` of -32021.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MissingRequiredClientCapabilityData {
    /// The capabilities the server needs from the client to process the request.
    pub required_capabilities: ClientCapabilities,
}

/// `data` of -32042 (2025-11-25): the URL elicitations to complete before retrying.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UrlElicitationRequiredData {
    /// The elicitations the client must complete.
    pub elicitations: Vec<ElicitRequestURLParams>,
}
