//! `testing::assert_conformant` accepts a correct server and catches a broken one; the
//! bundled schemas are the official ones.

#![cfg(feature = "conformance")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ferromcp::registry::{prompt_fn, resource_fn, tool_fn};
use ferromcp::testing::{assert_conformant, check_conformance, official_schema};
use ferromcp::types::{Prompt, PromptArgument, Resource, ResourceTemplate, Tool};
use ferromcp::{ProtocolVersion, ServerBuilder};
use serde_json::{Value, json};

fn object(v: Value) -> serde_json::Map<String, Value> {
    v.as_object().cloned().unwrap()
}

#[tokio::test]
async fn a_correct_server_conforms_in_every_revision() {
    let server = ServerBuilder::new("conformant", "1.0.0")
        .page_size(1)
        .build();
    let r = server.registry();
    let mut t = Tool::new(
        "add",
        object(json!({"type": "object", "properties": {"a": {"type": "integer"}}})),
    );
    t.description = Some("Adds.".into());
    t.output_schema = Some(object(
        json!({"type": "object", "properties": {"sum": {"type": "integer"}}}),
    ));
    r.add_tool(t, tool_fn(|_: Value, _| async { "x" }), None)
        .unwrap();
    r.add_tool(
        Tool::new("noop", object(json!({"type": "object"}))),
        tool_fn(|_: Value, _| async { "x" }),
        None,
    )
    .unwrap();
    r.add_resource(
        Resource::new("a://b", "b"),
        resource_fn(None, |_, _, _| async { "x" }),
    )
    .unwrap();
    r.add_resource_template(
        ResourceTemplate::new("a://{id}", "t"),
        resource_fn(None, |_, _, _| async { "x" }),
    )
    .unwrap();
    let mut p = Prompt::new("p");
    p.arguments = Some(vec![PromptArgument::new("x", true)]);
    r.add_prompt(p, prompt_fn(|_, _| async { "x" })).unwrap();
    assert_conformant(&server).await;
}

#[tokio::test]
async fn a_broken_tool_is_reported() {
    let server = ServerBuilder::new("broken", "1.0.0").build();
    // `inputSchema` must be an object schema: a hand-written descriptor got it wrong.
    let mut t = Tool::new("bad", object(json!({"type": "object"})));
    t.input_schema.insert("type".into(), json!(7));
    server
        .registry()
        .add_tool(t, tool_fn(|_: Value, _| async { "x" }), None)
        .unwrap();
    let problems = check_conformance(&server).await.unwrap_err();
    assert!(
        problems.iter().any(|p| p.contains("tools/list")),
        "{problems:?}"
    );
    for v in ProtocolVersion::ALL {
        assert!(
            problems.iter().any(|p| p.starts_with(v.as_str())),
            "{v}: {problems:?}"
        );
    }
}

#[test]
fn the_bundled_schemas_are_the_official_ones() {
    // The crate bundles its own copy (a published crate cannot reach the workspace's `spec/`);
    // it must stay byte-identical to the vendored official files.
    let vendored = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
    for v in ProtocolVersion::ALL {
        let official =
            std::fs::read_to_string(vendored.join(v.as_str()).join("schema.json")).unwrap();
        assert_eq!(official_schema(v).unwrap(), official, "{v}");
    }
}
