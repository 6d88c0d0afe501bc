//! The primitives registered at run time: a tool, a prompt and a resource that appear after
//! start-up, and the toggles behind `test_trigger_tool_change` and
//! `test_trigger_prompt_change`.

use ferromcp::prelude::Server;
use ferromcp::registry::{prompt_fn, resource_fn, tool_fn};
use ferromcp::types::{Prompt, Resource, Tool};
use serde_json::{Value, json};

pub(super) fn toggle_dynamic_tool(server: &Server) {
    let registry = server.registry();
    if !registry.remove_tool("test_dynamic_tool") {
        add_dynamic_tool(server);
    }
}

pub(super) fn add_dynamic_tool(server: &Server) {
    let mut tool = Tool::new(
        "test_dynamic_tool",
        json!({"type": "object"})
            .as_object()
            .cloned()
            .unwrap_or_default(),
    );
    tool.description = Some("A tool registered at run time.".into());
    let _ = server.registry().add_tool(
        tool,
        tool_fn(|_: Value, _| async { "Dynamic tool executed" }),
        None,
    );
}

pub(super) fn toggle_dynamic_prompt(server: &Server) {
    let registry = server.registry();
    if !registry.remove_prompt("test_dynamic_prompt") {
        add_dynamic_prompt(server);
    }
}

pub(super) fn add_dynamic_prompt(server: &Server) {
    let mut prompt = Prompt::new("test_dynamic_prompt");
    prompt.description = Some("A prompt registered at run time.".into());
    let _ = server
        .registry()
        .add_prompt(prompt, prompt_fn(|_, _| async { "A dynamic prompt." }));
}

pub(super) fn add_dynamic_resource(server: &Server) {
    let mut resource = Resource::new("test://dynamic-resource", "dynamic-resource");
    resource.mime_type = Some("text/plain".into());
    let _ = server.registry().add_resource(
        resource,
        resource_fn(Some("text/plain"), |_, _, _| async {
            "A dynamic resource."
        }),
    );
}
