//! The request and response an observer sees, made from plain facts: what the engine and
//! the connection tell, without either.

use ferromcp_core::ProtocolVersion;
use ferromcp_core::jsonrpc::{Request, RequestId};
use ferromcp_core::types::RequestMetaObject;
use serde_json::value::RawValue;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{
    ConnectionFacts, Outcome, ReplyFacts, RequestInfo, RequestObserver, ResponseInfo, Target,
    Transport, Watch,
};

/// A connection in a legacy HTTP session that negotiated `version`, or outside one.
struct Conn(Option<Option<ProtocolVersion>>);

impl ConnectionFacts for Conn {
    fn session_id(&self) -> Option<&str> {
        self.0.map(|_| "session-1")
    }

    fn transport(&self) -> Transport {
        Transport::Tcp
    }

    fn legacy_version(&self) -> Option<Option<ProtocolVersion>> {
        self.0
    }
}

/// An error response with this JSON text.
struct Failed(&'static str);

impl ReplyFacts for Failed {
    fn outcome(&self) -> Outcome {
        Outcome::Error(-32602)
    }

    fn error_json(&self) -> Option<&str> {
        Some(self.0)
    }
}

fn call(params: &str) -> Request {
    let raw: Box<RawValue> = serde_json::from_str(params).unwrap();
    Request {
        id: RequestId::Number(7),
        method: "tools/call".to_owned(),
        params: Some(raw.into()),
    }
}

fn meta(version: &str) -> RequestMetaObject {
    serde_json::from_value(serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    }))
    .unwrap()
}

#[test]
fn a_request_reads_its_connection_and_params() {
    let req = call(r#"{"name":"add","arguments":{"a":1}}"#);
    let meta = meta("2026-07-28");
    let legacy = Conn(Some(Some(ProtocolVersion::V2025_06_18)));
    let info = RequestInfo {
        req: &req,
        meta: Some(&meta),
        conn: &legacy,
    };
    assert_eq!(info.method(), "tools/call");
    assert_eq!(info.id(), &RequestId::Number(7));
    assert_eq!(info.target(), Some(Target::Tool("add")));
    assert_eq!(info.session_id(), Some("session-1"));
    assert_eq!(info.transport(), Transport::Tcp);
    // The legacy session's revision wins over what `_meta` names.
    assert_eq!(info.protocol_version(), Some(ProtocolVersion::V2025_06_18));
    assert!(
        info.meta("traceparent")
            .is_some_and(|t| t.starts_with("00-"))
    );

    let modern = Conn(None);
    let info = RequestInfo {
        req: &req,
        meta: Some(&meta),
        conn: &modern,
    };
    assert_eq!(info.session_id(), None);
    assert_eq!(info.protocol_version(), Some(ProtocolVersion::V2026_07_28));
}

#[test]
fn a_response_reads_its_outcome_and_error_message() {
    let failed = Failed(r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"no tool"}}"#);
    let uninitialized = Conn(Some(None));
    let req = call(r#"{"name":"nope"}"#);
    let info = ResponseInfo {
        request: RequestInfo {
            req: &req,
            meta: None,
            conn: &uninitialized,
        },
        reply: &failed,
        duration: Duration::from_millis(3),
    };
    assert_eq!(info.request().target(), Some(Target::Tool("nope")));
    assert_eq!(info.request().session_id(), Some("session-1"));
    assert_eq!(info.duration(), Duration::from_millis(3));
    assert_eq!(info.outcome(), Outcome::Error(-32602));
    assert_eq!(info.error_message().as_deref(), Some("no tool"));
    assert_eq!(info.protocol_version(), None);
}

/// Writes what it hears, under its name, to a shared log.
struct Heard(&'static str, Arc<Mutex<Vec<String>>>);

impl RequestObserver for Heard {
    fn in_scope(&self, poll: &mut dyn FnMut()) {
        self.1.lock().unwrap().push(format!("{} enters", self.0));
        poll();
    }

    fn on_response(&self, response: &ResponseInfo<'_>) {
        let heard = format!("{} heard {}", self.0, response.request().method());
        self.1.lock().unwrap().push(heard);
    }

    fn on_abandoned(&self) {
        self.1.lock().unwrap().push(format!("{} abandoned", self.0));
    }
}

#[test]
fn a_watch_tells_its_observers_the_end_once_outer_scope_first_and_last() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let shared: Arc<dyn RequestObserver> = Arc::new(Heard("shared", log.clone()));
    let watch = Watch::shared(shared.clone())
        .and(Watch::off())
        .and(Watch::owned(Heard("owned", log.clone())));
    watch.in_scope(&mut || log.lock().unwrap().push("poll".to_owned()));
    let (req, reply, conn) = (call("{}"), Failed("{}"), Conn(None));
    watch.end(&ResponseInfo {
        request: RequestInfo {
            req: &req,
            meta: None,
            conn: &conn,
        },
        reply: &reply,
        duration: Duration::ZERO,
    });
    assert_eq!(
        *log.lock().unwrap(),
        [
            "shared enters",
            "owned enters",
            "poll",
            "owned heard tools/call",
            "shared heard tools/call",
        ]
    );
    // Only the engine's copy of the shared observer is left.
    assert_eq!(Arc::strong_count(&shared), 1);
}

#[test]
fn a_watch_dropped_before_the_end_tells_its_observers_the_request_was_abandoned() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let watch = Watch::owned(Heard("owned", log.clone()))
        .and(Watch::shared(Arc::new(Heard("shared", log.clone()))));
    drop(watch);
    assert_eq!(
        *log.lock().unwrap(),
        ["owned abandoned", "shared abandoned"]
    );
    assert!(Watch::off().and(Watch::off()).is_off());
}
