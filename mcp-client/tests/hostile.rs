//! Servers that misbehave (tiny `sh` scripts): the client reports a clear error of the
//! right kind and never hangs past its timeout.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use ferromcp_client::{Client, ClientOptions, Error, ProtocolVersion, StdioCommand};

/// The legacy handshake a script plays: it refuses `server/discover` (id 0), answers
/// `initialize` (id 1), and reads `notifications/initialized`.
const HANDSHAKE: &str = r#"
read -r line
echo '{"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"no"}}'
read -r line
echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}'
read -r line
"#;

fn script(body: &str) -> StdioCommand {
    StdioCommand::new("sh").args(["-c", body])
}

async fn connect(body: &str, options: ClientOptions) -> Result<Client, Error> {
    Client::connect_stdio(script(body), options).await
}

#[tokio::test]
async fn a_missing_program_is_a_spawn_error() {
    let e = Client::connect_stdio(
        StdioCommand::new("/nonexistent/mcp-server"),
        ClientOptions::new(),
    )
    .await
    .unwrap_err();
    assert!(matches!(e, Error::Spawn { .. }), "{e:?}");
    assert!(e.is_connection());
    assert!(e.to_string().contains("/nonexistent/mcp-server"), "{e}");
}

#[tokio::test]
async fn invalid_json_closes_the_connection_with_an_invalid_message_error() {
    let e = connect(
        "read -r line; echo 'this is not json'; sleep 30",
        ClientOptions::new(),
    )
    .await
    .unwrap_err();
    assert!(matches!(e, Error::InvalidMessage(_)), "{e:?}");
    assert!(e.to_string().contains("this is not json"), "{e}");
}

#[tokio::test]
async fn a_huge_message_is_refused_at_the_limit() {
    // 100 MB of one line; the default limit is 64 MiB.
    let e = connect(
        "read -r line; head -c 100000000 /dev/zero | tr '\\0' a; echo; sleep 30",
        ClientOptions::new(),
    )
    .await
    .unwrap_err();
    assert!(matches!(e, Error::InvalidMessage(_)), "{e:?}");
    assert!(e.to_string().contains("longer than the limit"), "{e}");
}

#[tokio::test(start_paused = true)]
async fn a_server_that_never_answers_times_out() {
    let options = ClientOptions::new().request_timeout(Duration::from_secs(5));
    let e = connect("cat >/dev/null", options).await.unwrap_err();
    assert!(
        matches!(e, Error::Timeout(d) if d == Duration::from_secs(5)),
        "{e:?}"
    );
    assert!(!e.is_connection());
}

#[tokio::test]
async fn a_server_that_dies_mid_call_fails_the_call_with_its_exit_and_stderr() {
    let body = format!("{HANDSHAKE}\nread -r line\necho 'boom: out of cheese' >&2\nexit 3");
    let client = connect(&body, ClientOptions::new()).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    let e = client
        .call_tool("anything", serde_json::Value::Null)
        .await
        .unwrap_err();
    assert!(e.is_connection(), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains("exit status: 3"), "{msg}");
    assert!(msg.contains("out of cheese"), "{msg}");
    // Every later request fails at once with the same reason.
    let again = client.ping().await.unwrap_err();
    assert!(again.is_connection(), "{again:?}");
    assert!(client.is_closed());
}

#[tokio::test]
async fn a_json_rpc_error_is_a_protocol_error_and_a_tool_error_is_a_result() {
    let body = format!(
        r#"{HANDSHAKE}
read -r line
echo '{{"jsonrpc":"2.0","id":2,"error":{{"code":-32602,"message":"unknown tool"}}}}'
read -r line
echo '{{"jsonrpc":"2.0","id":3,"result":{{"content":[{{"type":"text","text":"bad"}}],"isError":true}}}}'
sleep 30"#
    );
    let client = connect(&body, ClientOptions::new()).await.unwrap();
    let e = client
        .call_tool("nope", serde_json::Value::Null)
        .await
        .unwrap_err();
    assert_eq!(e.rpc().map(|r| r.code.0), Some(-32602), "{e:?}");
    assert!(!e.is_connection());
    let result = client
        .call_tool("fails", serde_json::Value::Null)
        .await
        .unwrap();
    assert!(result.is_error());
}

#[tokio::test]
async fn dropping_the_client_kills_the_server() {
    let dir = std::env::temp_dir().join(format!("ferromcp-client-kill-{}", std::process::id()));
    let pid_file = dir.with_extension("pid");
    let body = format!("echo $$ > {}\n{HANDSHAKE}\nsleep 300", pid_file.display());
    let client = connect(&body, ClientOptions::new()).await.unwrap();
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let pid = pid.trim().to_owned();
    drop(client);
    // The process is gone (killed and reaped) soon after: poll /proc, bounded.
    let proc = std::path::PathBuf::from(format!("/proc/{pid}"));
    let mut gone = false;
    for _ in 0..200 {
        if !proc.exists() {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let _ = std::fs::remove_file(&pid_file);
    assert!(
        gone,
        "server {pid} still running after the client was dropped"
    );
}

/// An HTTP server that answers every request with `status` and the JSON `body`, closing
/// each connection; its URL.
async fn http_server(status: &'static str, body: &'static str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buf = [0u8; 4096];
                // Read the head and as much body as Content-Length says.
                loop {
                    let n = socket.read(&mut buf).await.unwrap_or(0);
                    request.extend_from_slice(&buf[..n]);
                    let text = String::from_utf8_lossy(&request).to_ascii_lowercase();
                    if let Some(end) = text.find("\r\n\r\n") {
                        let length = text
                            .lines()
                            .find_map(|l| l.strip_prefix("content-length:"))
                            .and_then(|v| v.trim().parse::<usize>().ok())
                            .unwrap_or(0);
                        if request.len() >= end + 4 + length {
                            break;
                        }
                    }
                    if n == 0 {
                        return;
                    }
                }
                let reply = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(reply.as_bytes()).await;
            });
        }
    });
    url
}

#[tokio::test]
async fn an_http_error_status_with_a_json_rpc_error_fails_the_request_at_once() {
    // As a 2025 server without a session answers: 400, and the error's id is null.
    let url = http_server(
        "400 Bad Request",
        r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}"#,
    )
    .await;
    let options = ClientOptions::new()
        .protocol_version(ProtocolVersion::V2026_07_28)
        .request_timeout(Duration::from_secs(600));
    let e = Client::connect_http(ferromcp_client::HttpTransport::new(url), options)
        .await
        .unwrap_err();
    assert_eq!(e.rpc().map(|r| r.code.0), Some(-32000), "{e:?}");
}

#[tokio::test]
async fn an_http_error_status_without_json_rpc_is_an_http_error() {
    let url = http_server("503 Service Unavailable", r#"{"oops":true}"#).await;
    let e = Client::connect_http(
        ferromcp_client::HttpTransport::new(url),
        ClientOptions::new(),
    )
    .await
    .unwrap_err();
    assert!(matches!(e, Error::Http { status: 503, .. }), "{e:?}");
    assert!(e.is_connection());
}

#[tokio::test]
async fn a_cancelled_call_fails_at_once_and_the_server_is_told() {
    // After the call, the script reads the next line; if it is the cancellation, it says so
    // in a log message.
    let body = format!(
        r#"{HANDSHAKE}
read -r line
read -r line
case "$line" in
  *notifications/cancelled*'"requestId":2'*) echo '{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"got cancel"}}}}' ;;
esac
sleep 30"#
    );
    let client = connect(&body, ClientOptions::new()).await.unwrap();
    let mut events = client.events();
    let token = ferromcp_client::CancellationToken::new();
    let options = ferromcp_client::CallOptions::new().cancel_on(token.clone());
    let params = ferromcp_client::types::CallToolRequestParams::new("slow");
    let call = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool_with(params, options).await }
    });
    token.cancel();
    let e = call.await.unwrap().unwrap_err();
    assert!(matches!(e, Error::Cancelled), "{e:?}");
    let event = events.next().await;
    let Some(ferromcp_client::Event::Notification(n)) = event else {
        panic!("{event:?}")
    };
    let ferromcp_client::types::ServerNotification::LoggingMessage(log) = *n else {
        panic!("{n:?}")
    };
    assert_eq!(log.params.data, "got cancel");
}

#[tokio::test]
async fn a_flood_of_notifications_is_bounded_and_counted() {
    // 100 notifications, then the answer to the call.
    let body = format!(
        r#"{HANDSHAKE}
read -r line
i=0
while [ $i -lt 100 ]; do
  echo '{{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}}'
  i=$((i + 1))
done
echo '{{"jsonrpc":"2.0","id":2,"result":{{"content":[]}}}}'
sleep 30"#
    );
    let client = connect(&body, ClientOptions::new().event_capacity(8))
        .await
        .unwrap();
    let mut events = client.events();
    client
        .call_tool("flood", serde_json::Value::Null)
        .await
        .unwrap();
    let mut kept = 0;
    while events.try_next().is_some() {
        kept += 1;
    }
    assert_eq!(kept, 8, "only the newest are kept");
    assert_eq!(events.dropped(), 92);
}
