//! The 2026 header checks ([`crate::engine::headers`]) run on the members of params that the
//! request's one pass over them ([`Probe`]) read.

use base64::Engine as _;
use ferromcp_core::error::ErrorObject;
use ferromcp_core::jsonrpc::Params;
use serde_json::{Value, json};

use super::Probe;
use crate::engine::headers::*;
use crate::registry::mirrored_params;

/// Headers as a client sent them: names case-insensitive, values as given.
struct Sent(Vec<(String, String)>);

impl Headers for Sent {
    fn single(&self, name: &str) -> Result<Option<&str>, ErrorObject> {
        let mut values = self
            .0
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str());
        let first = values.next();
        if values.next().is_some() {
            return Err(ErrorObject::header_mismatch(format_args!(
                "{name} is repeated"
            )));
        }
        Ok(first.map(|v| v.trim_matches([' ', '\t'])))
    }
}

fn headers(pairs: &[(&str, &str)]) -> Sent {
    Sent(
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
    )
}

fn raw(v: Value) -> Params {
    serde_json::value::to_raw_value(&v).unwrap().into()
}

const V: &str = "2026-07-28";

/// The checks of a request with body version `V` and these params, as read by the
/// request's one pass over them.
fn check(
    headers: &Sent,
    method: &str,
    params: &Params,
    tool_schema: Option<&ferromcp_core::types::JSONObject>,
) -> Result<(), ErrorObject> {
    let probe = Probe::parse(params.get()).unwrap();
    let mirrored = tool_schema
        .map(|s| mirrored_params(s).unwrap())
        .unwrap_or_default();
    validate(headers, method, probe.mirrored.target(), V, &mirrored)
}

/// A member of the wrong type that the method does not read (`uri` in a `tools/call`)
/// does not turn the check of the one it does read off; that one malformed is refused.
#[test]
fn a_malformed_member_cannot_switch_a_check_off() {
    let sent = headers(&[
        ("MCP-Protocol-Version", V),
        ("mcp-method", "tools/call"),
        ("mcp-name", "harmless"),
    ]);
    for (decoy, member) in [("uri", json!(1)), ("taskId", json!({})), ("uri", json!([]))] {
        let p = raw(json!({"name": "dangerous", decoy: member}));
        let e = check(&sent, "tools/call", &p, None).unwrap_err();
        assert_eq!(e.code.0, -32020, "{decoy}: {e}");
    }
    let p = raw(json!({"name": "x", "uri": 1}));
    let sent = headers(&[("MCP-Protocol-Version", V), ("mcp-method", "prompts/get")]);
    assert_eq!(
        check(&sent, "prompts/get", &p, None).unwrap_err().code.0,
        -32020
    );
    let sent = headers(&[
        ("MCP-Protocol-Version", V),
        ("mcp-method", "resources/read"),
        ("mcp-name", "file:///a"),
    ]);
    let p = raw(json!({"uri": "file:///b", "name": 1}));
    assert_eq!(
        check(&sent, "resources/read", &p, None).unwrap_err().code.0,
        -32020
    );
    // The routed member itself of another type: refused, whatever the header says.
    let sent = headers(&[
        ("MCP-Protocol-Version", V),
        ("mcp-method", "tools/call"),
        ("mcp-name", "1"),
    ]);
    let p = raw(json!({"name": 1}));
    assert_eq!(
        check(&sent, "tools/call", &p, None).unwrap_err().code.0,
        -32602
    );
    // Mirrored arguments: a decoy elsewhere does not lift the Mcp-Param check.
    let schema = json!({"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}});
    let schema = schema.as_object().unwrap();
    let sent = headers(&[
        ("MCP-Protocol-Version", V),
        ("mcp-method", "tools/call"),
        ("mcp-name", "q"),
    ]);
    let p = raw(json!({"name": "q", "taskId": 7, "arguments": {"region": "eu"}}));
    let e = check(&sent, "tools/call", &p, Some(schema)).unwrap_err();
    assert!(e.message.contains("Region"), "{e}");
}

#[test]
fn standard_headers_must_match_the_body() {
    let p = raw(json!({"name": "get_weather"}));
    let ok = headers(&[
        ("MCP-Protocol-Version", V),
        ("mcp-method", "tools/call"),
        ("MCP-NAME", " get_weather\t"),
    ]);
    assert!(check(&ok, "tools/call", &p, None).is_ok());

    for (pairs, what) in [
        (
            vec![("mcp-method", "tools/call"), ("mcp-name", "get_weather")],
            "version missing",
        ),
        (
            vec![
                ("mcp-protocol-version", "2025-11-25"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "get_weather"),
            ],
            "version mismatch",
        ),
        (
            vec![("mcp-protocol-version", V), ("mcp-name", "get_weather")],
            "method missing",
        ),
        (
            vec![
                ("mcp-protocol-version", V),
                ("mcp-method", "prompts/list"),
                ("mcp-name", "get_weather"),
            ],
            "method mismatch",
        ),
        (
            vec![
                ("mcp-protocol-version", V),
                ("mcp-method", "Tools/Call"),
                ("mcp-name", "get_weather"),
            ],
            "values are case-sensitive",
        ),
        (
            vec![("mcp-protocol-version", V), ("mcp-method", "tools/call")],
            "name missing",
        ),
        (
            vec![
                ("mcp-protocol-version", V),
                ("mcp-method", "tools/call"),
                ("mcp-name", "other"),
            ],
            "name mismatch",
        ),
        (
            vec![
                ("mcp-protocol-version", V),
                ("mcp-method", "tools/call"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "get_weather"),
            ],
            "repeated",
        ),
        (
            vec![
                ("mcp-protocol-version", V),
                ("mcp-method", "tools/call"),
                ("mcp-name", "=?base64?!!!?="),
            ],
            "bad base64",
        ),
    ] {
        let e = check(&headers(&pairs), "tools/call", &p, None).unwrap_err();
        assert_eq!(e.code.0, -32020, "{what}");
        assert!(
            e.message.starts_with("Header mismatch: "),
            "{what}: {}",
            e.message
        );
    }
}

#[test]
fn base64_sentinel_values_are_decoded() {
    let p = raw(json!({"uri": "file:///日本.txt"}));
    let encoded = format!(
        "=?base64?{}?=",
        base64::engine::general_purpose::STANDARD.encode("file:///日本.txt")
    );
    let h = headers(&[
        ("mcp-protocol-version", V),
        ("mcp-method", "resources/read"),
        ("mcp-name", &encoded),
    ]);
    assert!(check(&h, "resources/read", &p, None).is_ok());
}

#[test]
fn mirrored_params_are_checked_against_arguments() {
    let schema = json!({
        "type": "object",
        "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "limit": {"type": "integer", "x-mcp-header": "Limit"},
            "opts": {"type": "object", "properties": {"dry": {"type": "boolean", "x-mcp-header": "Dry"}}}
        }
    });
    let schema = schema.as_object().unwrap();
    assert_eq!(mirrored_params(schema).unwrap().len(), 3);
    let p = raw(
        json!({"name": "q", "arguments": {"region": "us-west1", "limit": 42, "opts": {"dry": true}}}),
    );
    let base = [
        ("mcp-protocol-version", V),
        ("mcp-method", "tools/call"),
        ("mcp-name", "q"),
    ];
    let with = |extra: &[(&str, &str)]| {
        let mut all = base.to_vec();
        all.extend_from_slice(extra);
        headers(&all)
    };
    let good = with(&[
        ("mcp-param-region", "us-west1"),
        ("Mcp-Param-Limit", "42.0"),
        ("mcp-param-dry", "true"),
    ]);
    assert!(check(&good, "tools/call", &p, Some(schema)).is_ok());
    for bad in [
        with(&[("mcp-param-limit", "42"), ("mcp-param-dry", "true")]),
        with(&[
            ("mcp-param-region", "eu"),
            ("mcp-param-limit", "42"),
            ("mcp-param-dry", "true"),
        ]),
        with(&[
            ("mcp-param-region", "us-west1"),
            ("mcp-param-limit", "41"),
            ("mcp-param-dry", "true"),
        ]),
        with(&[
            ("mcp-param-region", "us-west1"),
            ("mcp-param-limit", "42"),
            ("mcp-param-dry", "True"),
        ]),
    ] {
        assert_eq!(
            check(&bad, "tools/call", &p, Some(schema))
                .unwrap_err()
                .code
                .0,
            -32020
        );
    }
    // A parameter absent from the arguments needs no header.
    let p = raw(json!({"name": "q", "arguments": {"region": "us-west1"}}));
    assert!(
        check(
            &with(&[("mcp-param-region", "us-west1")]),
            "tools/call",
            &p,
            Some(schema)
        )
        .is_ok()
    );
}
