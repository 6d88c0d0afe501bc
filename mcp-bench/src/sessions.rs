//! The sessions mode: how much memory an idle legacy session costs the server, and how much
//! of it comes back when the sessions are deleted.

use std::time::Duration;

use bytes::Bytes;
use hyper::{Method, StatusCode};
use serde_json::{Value, json};

use crate::calls::Era;
use crate::http::{Connection, Spawned};
use crate::report::{round, status_kb};

type Error = Box<dyn std::error::Error + Send + Sync>;

/// Opens `count` sessions, measures, deletes them, measures again.
pub async fn run(
    label: String,
    command: Vec<String>,
    port: u16,
    count: usize,
) -> Result<Value, Error> {
    let server = Spawned::start(&command, port).await?;
    let pid = server.pid();
    let mut connection = Connection::open(port, Era::Legacy).await?;
    let rss = || status_kb(pid, "VmRSS").ok_or("cannot read the server's VmRSS");

    // Warm up: the first sessions pay for lazily built state (the runtime's threads, the
    // tool list, allocator arenas); the baseline is taken after a few are opened and deleted.
    let warm = open(&mut connection, 50).await?;
    delete(&mut connection, warm).await?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let base = rss()?;

    let sessions = open(&mut connection, count).await?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let opened = rss()?;

    delete(&mut connection, sessions).await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = rss()?;

    // Open and delete the same number again: memory the allocator kept for reuse (rather
    // than leaked) shows as no new growth.
    let again = open(&mut connection, count).await?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let reopened = rss()?;
    delete(&mut connection, again).await?;

    let grown = opened.saturating_sub(base);
    Ok(json!({
        "label": label,
        "mode": "sessions",
        "count": count,
        "rss_base_kb": base,
        "rss_open_kb": opened,
        "kb_per_session": round(grown as f64 / count as f64, 2),
        "rss_after_delete_kb": after,
        "rss_reopen_kb": reopened,
        "reopen_growth_kb": reopened.saturating_sub(opened.max(after)),
        "returned_pct": if grown == 0 { 100.0 } else { round(100.0 * opened.saturating_sub(after) as f64 / grown as f64, 1) },
        "errors": 0,
    }))
}

/// Opens `count` sessions over one connection (initialize + initialized each).
async fn open(
    connection: &mut Connection,
    count: usize,
) -> Result<Vec<hyper::header::HeaderValue>, Error> {
    let mut ids = Vec::with_capacity(count);
    for _ in 0..count {
        connection.set_session(None);
        connection.handshake().await?;
        let answer = connection
            .send(
                Method::POST,
                Bytes::from_static(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
                None,
            )
            .await?;
        if answer.status != StatusCode::OK {
            return Err(format!("ping in a new session: {}", answer.status).into());
        }
        ids.push(session_of(connection)?);
    }
    Ok(ids)
}

fn session_of(connection: &Connection) -> Result<hyper::header::HeaderValue, Error> {
    connection
        .session()
        .cloned()
        .ok_or_else(|| "the server gave no Mcp-Session-Id".into())
}

/// Deletes the sessions (each must answer 200, 202 or 204).
async fn delete(
    connection: &mut Connection,
    ids: Vec<hyper::header::HeaderValue>,
) -> Result<(), Error> {
    for id in ids {
        connection.set_session(Some(id));
        let answer = connection.send(Method::DELETE, Bytes::new(), None).await?;
        if !answer.status.is_success() {
            return Err(format!("DELETE of a session: {}", answer.status).into());
        }
    }
    connection.set_session(None);
    Ok(())
}
