//! Argument deserialization through a `#[tool]` the macros generate, called over the real
//! stdio transport in both eras, with structured arguments from `arbitrary` (then perhaps
//! damaged: a member removed, an unknown one added, a value replaced by any JSON).
//!
//! Properties, against plain serde on a struct with the same fields (`deny_unknown_fields`,
//! as the generated one):
//! - arguments serde accepts reach the tool intact: the tool echoes them, and the echo is
//!   what serde read;
//! - arguments serde refuses are an `isError: true` result naming an argument, never a
//!   protocol error, a panic or a hang; `arguments` that are not an object are -32602;
//! - the server keeps serving: every call gets its answer.
#![no_main]

use std::collections::BTreeMap;

use arbitrary::{Arbitrary, Unstructured};
use ferromcp::prelude::*;
use ferromcp::testing::{ClientOptions, TestClient, TestClientError};
use libfuzzer_sys::fuzz_target;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema, Arbitrary)]
enum Kind {
    Small,
    Large,
    Custom { size: u16 },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema, Arbitrary)]
#[serde(rename_all = "camelCase")]
struct Inner {
    max_items: Option<u8>,
    labels: BTreeMap<String, i32>,
}

/// What the tool takes, as serde alone reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema, Arbitrary)]
#[serde(deny_unknown_fields)]
struct Args {
    id: u32,
    tags: Vec<String>,
    kind: Kind,
    note: Option<String>,
    ratio: f64,
    inner: Inner,
}

struct Echo;

#[ferromcp::server(name = "fuzz-echo")]
impl Echo {
    /// Returns its arguments as it received them.
    #[tool]
    fn echo(
        &self,
        id: u32,
        tags: Vec<String>,
        kind: Kind,
        note: Option<String>,
        ratio: f64,
        inner: Inner,
    ) -> Json<Args> {
        Json(Args {
            id,
            tags,
            kind,
            note,
            ratio,
            inner,
        })
    }
}

#[derive(Debug, Arbitrary)]
enum Damage {
    None,
    Remove(u8),
    AddUnknown(String),
    Replace(u8),
    NotAnObject,
}

const FIELDS: [&str; 6] = ["id", "tags", "kind", "note", "ratio", "inner"];

fn arguments(u: &mut Unstructured<'_>) -> arbitrary::Result<Value> {
    let args: Args = u.arbitrary()?;
    let mut v = serde_json::to_value(&args).expect("arguments serialize");
    let Value::Object(o) = &mut v else {
        unreachable!()
    };
    match u.arbitrary()? {
        Damage::None => {}
        Damage::Remove(i) => {
            o.remove(FIELDS[usize::from(i) % FIELDS.len()]);
        }
        Damage::AddUnknown(k) => {
            o.insert(k, mcp_fuzz::json_value(u, 2)?);
        }
        Damage::Replace(i) => {
            o.insert(
                FIELDS[usize::from(i) % FIELDS.len()].into(),
                mcp_fuzz::json_value(u, 3)?,
            );
        }
        Damage::NotAnObject => loop {
            let other = mcp_fuzz::json_value(u, 2)?;
            if !other.is_object() {
                return Ok(other);
            }
        },
    }
    Ok(v)
}

thread_local! {
    static CLIENTS: [TestClient; 2] = mcp_fuzz::block_on(async {
        let server = Server::new(Echo).expect("the server builds");
        let legacy = TestClient::connect(&server, ClientOptions::legacy()).await.expect("connects");
        let modern = TestClient::connect(&server, ClientOptions::modern()).await.expect("connects");
        [legacy, modern]
    });
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(modern) = u.arbitrary::<bool>() else {
        return;
    };
    let Ok(args) = arguments(&mut u) else { return };
    let expected = match &args {
        // An absent `arguments` and `{}` alike lack every required argument.
        Value::Null => Some(serde_json::from_value::<Args>(serde_json::json!({}))),
        Value::Object(_) => Some(serde_json::from_value::<Args>(args.clone())),
        _ => None,
    };
    let got = CLIENTS
        .with(|c| mcp_fuzz::block_on(c[usize::from(modern)].call_tool("echo", args.clone())));
    match (expected, got) {
        (Some(Ok(read)), Ok(result)) => {
            assert_ne!(result.is_error, Some(true), "{args} refused: {result:?}");
            let echoed = result
                .structured_content
                .expect("a Json result is structured");
            let echoed: Args = serde_json::from_value(echoed).expect("an echo");
            assert_eq!(echoed, read, "{args}");
        }
        (Some(Err(e)), Ok(result)) => {
            assert_eq!(
                result.is_error,
                Some(true),
                "{args} accepted, but serde says {e}"
            );
            let text = result
                .content
                .first()
                .and_then(|c| c.as_text())
                .unwrap_or_default();
            assert!(text.contains("argument"), "{args}: {text}");
        }
        (None, Err(TestClientError::Rpc(e))) => assert_eq!(e.code.0, -32602, "{args}: {e:?}"),
        (expected, got) => panic!("{args}: expected {expected:?}, got {got:?}"),
    }
});
