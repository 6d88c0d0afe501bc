//! What a request records: its target, the attributes its span and its duration sample
//! share, and how it ended.

use ferromcp::ProtocolVersion;
use opentelemetry::{KeyValue, Value};

/// The method names the conventions list (and the 2026 ones), as static strings: an
/// attribute value that costs no allocation.
pub(crate) fn known_method(method: &str) -> Option<&'static str> {
    const KNOWN: [&str; 22] = [
        "tools/call",
        "tools/list",
        "resources/read",
        "resources/list",
        "resources/templates/list",
        "resources/subscribe",
        "resources/unsubscribe",
        "prompts/get",
        "prompts/list",
        "completion/complete",
        "initialize",
        "ping",
        "logging/setLevel",
        "server/discover",
        "subscriptions/listen",
        "tasks/get",
        "tasks/result",
        "tasks/list",
        "tasks/cancel",
        "tasks/update",
        "notifications/initialized",
        "notifications/cancelled",
    ];
    KNOWN.into_iter().find(|m| *m == method)
}

/// What a request is about: the tool or prompt it names.
#[derive(Clone, Copy)]
pub(crate) enum Target<'a> {
    Tool(&'a str),
    Prompt(&'a str),
}

/// [`Target`], owned by the request's telemetry.
pub(crate) enum Owned {
    Tool(String),
    Prompt(String),
}

impl From<Target<'_>> for Owned {
    fn from(target: Target<'_>) -> Owned {
        match target {
            Target::Tool(t) => Owned::Tool(t.to_owned()),
            Target::Prompt(p) => Owned::Prompt(p.to_owned()),
        }
    }
}

impl Owned {
    pub(crate) fn borrow(&self) -> Target<'_> {
        match self {
            Owned::Tool(t) => Target::Tool(t),
            Owned::Prompt(p) => Target::Prompt(p),
        }
    }
}

/// The attributes a request's span and its duration sample share: the method, the
/// transport, and the tool or prompt (room is left for the others).
pub(crate) fn shared_attributes(
    method: &str,
    transport: &'static str,
    target: Option<Target<'_>>,
) -> Vec<KeyValue> {
    let mut attributes = Vec::with_capacity(8);
    let method = known_method(method).map_or_else(|| Value::from(method.to_owned()), Value::from);
    attributes.push(KeyValue::new("mcp.method.name", method));
    attributes.push(KeyValue::new("network.transport", transport));
    match target {
        Some(Target::Tool(tool)) => {
            attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
            attributes.push(KeyValue::new("gen_ai.tool.name", tool.to_owned()));
        }
        Some(Target::Prompt(prompt)) => {
            attributes.push(KeyValue::new("gen_ai.prompt.name", prompt.to_owned()));
        }
        None => {}
    }
    attributes
}

/// How a request ended, as the duration histogram tells them apart.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Ending {
    Ok,
    /// A `tools/call` result with `isError: true`.
    ToolError,
    /// A JSON-RPC error response with this code.
    Code(i64),
}

/// The attributes of one duration sample, borrowed from the request.
#[derive(Clone, Copy)]
pub(crate) struct Sample<'a> {
    pub(crate) method: &'a str,
    pub(crate) target: Option<Target<'a>>,
    pub(crate) transport: &'static str,
    pub(crate) version: Option<ProtocolVersion>,
    pub(crate) ending: Ending,
}

impl Sample<'_> {
    /// The attributes the sample is recorded with.
    pub(crate) fn attributes(&self) -> Vec<KeyValue> {
        let mut attributes = shared_attributes(self.method, self.transport, self.target);
        self.ending_attributes(true, |kv| attributes.push(kv));
        attributes
    }

    /// The attributes known only when the request has ended: the protocol revision (unless
    /// not `with_version`) and the error, if any.
    pub(crate) fn ending_attributes(&self, with_version: bool, mut add: impl FnMut(KeyValue)) {
        if let (true, Some(version)) = (with_version, self.version) {
            add(KeyValue::new("mcp.protocol.version", version.as_str()));
        }
        match self.ending {
            Ending::Ok => {}
            Ending::ToolError => add(KeyValue::new("error.type", "tool_error")),
            Ending::Code(code) => {
                let code = code.to_string();
                add(KeyValue::new("error.type", code.clone()));
                add(KeyValue::new("rpc.response.status_code", code));
            }
        }
    }
}
