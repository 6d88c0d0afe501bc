//! Registry changes, in place and on a copy, and the pages they leave.

use ferromcp_core::ProtocolVersion;
use ferromcp_core::types::{CacheHints, CacheScope};

use super::*;

fn registry() -> Registry {
    Registry::new(ListSettings { page_size: 100 })
}

fn add(registry: &Registry, name: &str) -> Result<(), RegistryError> {
    let schema = serde_json::json!({"type": "object"});
    let tool = Tool::new(name, schema.as_object().unwrap().clone());
    let tag = name.to_owned();
    registry.add_tool(
        tool,
        tool_fn(move |_: Value, _ctx| std::future::ready(tag.clone())),
        None,
    )
}

/// The name of the tool `tools/call` would run for `name`.
fn found(registry: &Registry, name: &str) -> Option<String> {
    registry.tool(name).map(|t| t.tool.name.clone())
}

fn listed(registry: &Registry) -> String {
    let hints = CacheHints {
        ttl_ms: 0,
        cache_scope: CacheScope::Private,
    };
    let page = registry.page(&PageRequest {
        kind: ListKind::Tools,
        version: ProtocolVersion::V2025_06_18,
        cursor: None,
        server_info: serde_json::value::RawValue::NULL,
        cache: hints,
        granted: None,
        shows: None,
    });
    page.unwrap().get().to_owned()
}

use serde_json::Value;

/// Every change, made in place (no reader) and on a copy (a reader holds the snapshot),
/// leaves the same entries, every name indexed at its own entry, and pages rebuilt.
#[test]
fn changes_in_place_and_on_a_copy_agree() {
    for held in [false, true] {
        let registry = registry();
        for name in ["a", "b", "c", "d"] {
            add(&registry, name).unwrap();
        }
        let reader = held.then(|| registry.current());
        assert!(listed(&registry).contains("\"d\""));
        assert!(registry.remove_tool("b"));
        assert!(registry.disable_tool("a"));
        add(&registry, "e").unwrap();
        assert!(registry.enable_tool("a"));
        assert_eq!(registry.tool_names(), ["c", "d", "e", "a"], "held: {held}");
        for name in ["a", "c", "d", "e"] {
            assert_eq!(
                found(&registry, name).as_deref(),
                Some(name),
                "held: {held}"
            );
        }
        assert_eq!(found(&registry, "b"), None);
        let page = listed(&registry);
        assert!(page.contains("\"e\"") && !page.contains("\"b\""), "{page}");
        assert!(registry.current().indexed());
        // A reader keeps the snapshot it took: nothing changed under it.
        if let Some(reader) = reader {
            let names: Vec<_> = reader.tools.iter().map(|t| t.tool.name.as_str()).collect();
            assert_eq!(names, ["a", "b", "c", "d"]);
            assert!(reader.indexed());
        }
    }
}

/// A refused change leaves the registry as it was, in place or not.
#[test]
fn a_refused_change_changes_nothing() {
    for held in [false, true] {
        let registry = registry();
        add(&registry, "a").unwrap();
        assert!(registry.disable_tool("a"));
        add(&registry, "b").unwrap();
        let _reader = held.then(|| registry.current());
        let before = listed(&registry);
        assert!(matches!(
            add(&registry, "a"),
            Err(RegistryError::DuplicateTool(_))
        ));
        assert!(matches!(
            add(&registry, "b"),
            Err(RegistryError::DuplicateTool(_))
        ));
        assert!(matches!(
            add(&registry, "no spaces"),
            Err(RegistryError::InvalidToolName(_))
        ));
        assert_eq!(registry.tool_names(), ["b"]);
        assert_eq!(listed(&registry), before);
        assert!(registry.enable_tool("a"));
        assert_eq!(found(&registry, "a").as_deref(), Some("a"));
    }
}

fn tool(name: &str) -> Tool {
    let schema = serde_json::json!({"type": "object"});
    Tool::new(name, schema.as_object().unwrap().clone())
}

/// A batch is published whole with one event per list it changed, or, when it fails
/// halfway, not at all and unannounced.
#[test]
fn a_batch_is_published_whole_or_not_at_all() {
    let registry = registry();
    add(&registry, "a").unwrap();
    let mut events = registry.subscribe();
    let handler = || tool_fn(|_: Value, _ctx| std::future::ready("x"));
    let failed = registry.batch(|b| {
        assert!(b.remove_tool("a"));
        b.add_tool(tool("b"), handler(), None)?;
        b.add_tool(tool("b"), handler(), None)
    });
    assert!(matches!(failed, Err(RegistryError::DuplicateTool(_))));
    assert_eq!(registry.tool_names(), ["a"]);
    assert!(events.try_recv().is_err());
    registry
        .batch(|b| {
            assert!(b.remove_tool("a"));
            b.add_tool(tool("b"), handler(), None)?;
            b.add_tool(tool("c"), handler(), None)
        })
        .unwrap();
    assert_eq!(registry.tool_names(), ["b", "c"]);
    assert!(listed(&registry).contains("\"c\""));
    assert_eq!(events.try_recv().unwrap(), RegistryEvent::ToolsChanged);
    assert!(events.try_recv().is_err());
}
