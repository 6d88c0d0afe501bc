//! Thin wrappers around internal parsers for the fuzz targets in `fuzz/` (feature `fuzzing`).
//!
//! Not API: nothing here is stable, and the feature is never enabled by a normal build. Each
//! wrapper hands its input to the very code the transports run, so a target exercises the
//! server's own parsing and checking rather than a copy of it.

use std::collections::BTreeMap;
use std::time::Duration;

use ferromcp_core::error::ErrorObject;
use ferromcp_core::jsonrpc::{self, Message};
use ferromcp_core::types::JSONObject;
use serde_json::Value;
use tokio::io::AsyncRead;

use crate::engine;
use crate::observe;
use crate::transport::http::{endpoint, resume};
use crate::transport::stdio::{Line, LineReader};

/// One line as the stdio framer delivers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FramedLine {
    /// A complete line (without its `\n`) of at most the limit's length.
    Text(Vec<u8>),
    /// A line longer than the limit, skipped up to its newline.
    TooLong,
}

/// Runs the stdio transport's line framer over `input` to its end, with a read buffer of
/// `buffer` bytes (the transport uses 64 KiB) and a line limit of `max` bytes.
///
/// # Errors
///
/// An I/O error of `input`.
pub async fn frame_lines<R: AsyncRead + Unpin>(
    input: R,
    buffer: usize,
    max: usize,
) -> std::io::Result<Vec<FramedLine>> {
    let mut reader = LineReader::new(input, buffer, max);
    let mut lines = Vec::new();
    loop {
        match reader.next().await? {
            Line::Text(text) => lines.push(FramedLine::Text(text)),
            Line::TooLong => lines.push(FramedLine::TooLong),
            Line::Eof => return Ok(lines),
        }
    }
}

/// Decodes a header value as the 2026 header checks do: `=?base64?…?=` is decoded, any other
/// value is returned unchanged.
///
/// # Errors
///
/// A sentinel whose content is not Base64 of UTF-8 (-32020).
pub fn decode_header(name: &str, value: &str) -> Result<String, ErrorObject> {
    engine::headers::decode(name, value)
}

/// Checks the 2026 request headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
/// `Mcp-Param-*`) of an HTTP request against its body `message`, as the HTTP transport does
/// before dispatch; `tool_schema` is the input schema of the tool a `tools/call` names.
/// `Ok(false)` when `message` is not a request, its `_meta` cannot be read (the engine
/// answers those before any header check), or the registry would refuse the schema's
/// `x-mcp-header` annotations.
///
/// # Errors
///
/// The header check's error (-32020).
pub fn check_modern_headers(
    headers: &http::HeaderMap,
    message: &[u8],
    tool_schema: Option<&JSONObject>,
) -> Result<bool, ErrorObject> {
    let Ok(Message::Request(request)) = jsonrpc::parse_message(message) else {
        return Ok(false);
    };
    let Ok(probe) = engine::Probe::read(request.params.as_ref()) else {
        return Ok(false);
    };
    let Ok(mirrored) = tool_schema.map_or(Ok(Box::default()), crate::registry::mirrored_params)
    else {
        return Ok(false);
    };
    engine::headers::validate_modern(
        &request,
        probe.meta.as_ref(),
        probe.mirrored.target(),
        headers,
        &mirrored,
    )?;
    Ok(true)
}

/// The `Mcp-Session-Id` of a request as the HTTP transport reads it: `Err(())` when repeated
/// or not visible ASCII.
#[allow(clippy::result_unit_err)]
pub fn session_id(headers: &http::HeaderMap) -> Result<Option<&str>, ()> {
    endpoint::session_id(headers)
}

/// The resumable event log of the HTTP transport's SSE streams, with one open stream whose
/// client stays connected.
#[derive(Debug)]
pub struct EventLog {
    log: resume::EventLog,
    stream: u64,
    _live: tokio::sync::mpsc::Receiver<bytes::Bytes>,
}

/// What resuming with a `Last-Event-ID` gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resumed {
    /// The id is malformed (400).
    Malformed,
    /// The id is well-formed but names no stream of this log.
    Unknown,
    /// The replayed SSE frames, oldest first.
    Replayed(Vec<String>),
}

impl EventLog {
    /// A log with one open stream.
    pub fn new() -> EventLog {
        let log = resume::EventLog::new();
        let (stream, live) = log.open();
        EventLog {
            log,
            stream,
            _live: live,
        }
    }

    /// The event id of the stream's priming event (sequence number 0).
    pub fn priming_id(&self) -> String {
        let frame = self.log.priming(self.stream);
        String::from_utf8_lossy(&frame)
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("id: "))
            .unwrap_or_default()
            .to_owned()
    }

    /// Appends a message to the stream.
    pub fn push(&self, json: &str) {
        self.log.push_local(self.stream, json);
    }

    /// Resumes after `last_event_id` (a `Last-Event-ID` header value).
    pub fn resume(&self, last_event_id: &str) -> Resumed {
        match self.log.resume(last_event_id) {
            Err(resume::MalformedEventId) => Resumed::Malformed,
            Ok(None) => Resumed::Unknown,
            Ok(Some(mut rx)) => {
                let mut frames = Vec::new();
                while let Ok(frame) = rx.try_recv() {
                    frames.push(String::from_utf8_lossy(&frame).into_owned());
                }
                Resumed::Replayed(frames)
            }
        }
    }
}

impl Default for EventLog {
    fn default() -> Self {
        Self::new()
    }
}

/// The most events a stream keeps for resumption.
pub const MAX_RESUMABLE_EVENTS: usize = resume::MAX_EVENTS;

/// Seals and opens 2026 `requestState` values as the engine does.
#[derive(Debug, Clone)]
pub struct Sealer(engine::seal::Sealer);

/// What an opened `requestState` carried besides its binding.
#[derive(Debug, Clone, PartialEq)]
pub struct Opened {
    /// Answers collected in earlier rounds.
    pub responses: BTreeMap<String, Value>,
    /// The handler's own state.
    pub state: Option<Value>,
}

impl Sealer {
    /// A sealer with this key ring (the first key seals) and time to live.
    pub fn new(keys: Vec<Vec<u8>>, ttl: Duration) -> Sealer {
        Sealer(engine::seal::Sealer::new(keys, ttl))
    }

    /// A fresh random key, as a server without configured keys uses.
    pub fn random_key() -> Vec<u8> {
        engine::seal::Sealer::random_key()
    }

    /// Seals `responses` and `state` for `method` on `name` of server `audience`.
    pub fn seal(
        &self,
        audience: &str,
        method: &str,
        name: &str,
        responses: BTreeMap<String, Value>,
        state: Option<Value>,
    ) -> Option<String> {
        self.0.seal(
            engine::seal::Target {
                audience,
                method,
                name,
                caller: None,
            },
            responses,
            state,
        )
    }

    /// Opens a sealed state for `method` on `name` of server `audience`.
    pub fn open(&self, sealed: &str, audience: &str, method: &str, name: &str) -> Option<Opened> {
        self.0
            .open(
                sealed,
                engine::seal::Target {
                    audience,
                    method,
                    name,
                    caller: None,
                },
            )
            .map(|p| Opened {
                responses: p.r,
                state: p.s,
            })
    }
}

/// A tool's `arguments` split into members as the generated code takes them: each name
/// (decoded) and its value's JSON text, in name order; `Err` with the model's message when
/// they are not an object.
pub fn argument_members(
    arguments: &serde_json::value::RawValue,
) -> Result<Vec<(String, String)>, String> {
    crate::params::ToolArguments::parse(Some(arguments)).map(|a| a.members())
}

/// The telemetry's scan for the top-level member `key` of `params`, a JSON object the
/// envelope parser let through: `Some(Some(text))` for a string without escapes,
/// `Some(None)` when absent or not a string, `None` when an escape leaves it to serde.
pub fn params_member<'a>(params: &'a str, key: &str) -> Option<Option<&'a str>> {
    match observe::target::member(params, key) {
        observe::target::Member::Str(s) => Some(Some(s)),
        observe::target::Member::Absent => Some(None),
        observe::target::Member::Unsure => None,
    }
}
