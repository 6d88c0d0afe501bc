//! JSON-RPC error codes of both eras and their typed `data` payloads, in one place.
//!
//! | code | name | era | `data` |
//! |---|---|---|---|
//! | -32700 | parse error | both | |
//! | -32600 | invalid request | both | |
//! | -32601 | method not found | both | |
//! | -32602 | invalid params | both | 2026 resource not found: [`ResourceNotFoundData`] |
//! | -32603 | internal error | both | |
//! | -32002 | resource not found | legacy | [`ResourceNotFoundData`] |
//! | -32042 | URL elicitation required | 2025-11-25 | [`UrlElicitationRequiredData`] |
//! | -32020 | header mismatch | modern (HTTP) | |
//! | -32021 | missing required client capability | modern | [`MissingRequiredClientCapabilityData`] |
//! | -32022 | unsupported protocol version | modern | [`UnsupportedProtocolVersionData`] |

//! The code and the error object live below both [`crate::jsonrpc`] and [`crate::types`];
//! the payloads that name schema types live with those types. This module gathers them.

pub use crate::rpc_error::{
    ErrorCode, ErrorObject, ResourceNotFoundData, UnsupportedProtocolVersionData,
};
pub use crate::types::error_data::{
    MissingRequiredClientCapabilityData, UrlElicitationRequiredData,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ProtocolVersion;
    use crate::types::ClientCapabilities;

    #[test]
    fn typed_payloads_have_the_wire_shape() {
        let e = ErrorObject::unsupported_protocol_version(
            "1900-01-01",
            &[ProtocolVersion::V2026_07_28],
        );
        assert_eq!(e.code.0, -32022);
        assert_eq!(
            e.data,
            Some(serde_json::json!({"supported": ["2026-07-28"], "requested": "1900-01-01"}))
        );
        let data: UnsupportedProtocolVersionData = e.data_as().unwrap();
        assert_eq!(data.requested, "1900-01-01");

        let e = ErrorObject::missing_required_client_capability(ClientCapabilities {
            sampling: Some(Default::default()),
            ..Default::default()
        });
        assert_eq!(e.code.0, -32021);
        assert_eq!(
            e.data,
            Some(serde_json::json!({"requiredCapabilities": {"sampling": {}}}))
        );
        assert!(
            ErrorObject::invalid_params("x")
                .data_as::<ResourceNotFoundData>()
                .is_err()
        );
    }

    #[test]
    fn error_objects_round_trip() {
        let json = r#"{"code":-32020,"message":"Header mismatch: x","data":[1]}"#;
        let e: ErrorObject = serde_json::from_str(json).unwrap();
        assert_eq!(e.code, ErrorCode::HEADER_MISMATCH);
        assert_eq!(serde_json::to_string(&e).unwrap(), json);
        assert_eq!(
            e.to_string(),
            "-32020 (header mismatch): Header mismatch: x"
        );
    }
}
