//! The command line of `everything` and its HTTP set-up: shared sessions through Redis,
//! `requestState` keys from the environment, an OAuth resource server.

use std::process::ExitCode;

use ferromcp::Server;

/// The `requestState` keys replicas share: `MCP_REQUEST_STATE_KEYS`, hex keys separated by
/// commas, the first sealing and every one opening (rotation: put the new key first, drop
/// the old one once its states have expired). Unset: a random key of this process.
pub(crate) fn keys_from_env() -> Result<Option<Vec<Vec<u8>>>, String> {
    let Ok(text) = std::env::var("MCP_REQUEST_STATE_KEYS") else {
        return Ok(None);
    };
    let hex = |key: &str| -> Option<Vec<u8>> {
        let key = key.trim();
        if !key.len().is_multiple_of(2) {
            return None;
        }
        (0..key.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(key.get(i..i + 2)?, 16).ok())
            .collect()
    };
    text.split(',')
        .map(|key| hex(key).ok_or_else(|| "MCP_REQUEST_STATE_KEYS: a key is not hex".to_owned()))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

pub(crate) fn usage() -> ExitCode {
    eprintln!(
        "usage: everything [--http 127.0.0.1:PORT [--redis redis://HOST:PORT] [--auth-issuer URL [--auth-audience URL]]] [--metrics 127.0.0.1:PORT]\n\
         MCP_REQUEST_STATE_KEYS: requestState keys, hex, comma-separated (the first seals)"
    );
    ExitCode::from(2)
}

/// `--http ADDR`, the Redis that shares legacy sessions, and the authorization server and
/// audience when given.
pub(crate) struct HttpArgs {
    addr: String,
    redis: Option<String>,
    issuer: Option<String>,
    audience: Option<String>,
}

/// `--http` and its options, and `--metrics ADDR` (Prometheus text at `http://ADDR/metrics`).
pub(crate) fn parse_args(args: &[String]) -> Option<(Option<HttpArgs>, Option<String>)> {
    let mut http: Option<HttpArgs> = None;
    let mut metrics = None;
    let mut rest = args.iter();
    while let Some(flag) = rest.next() {
        let value = rest.next()?.clone();
        match (flag.as_str(), &mut http) {
            ("--metrics", _) if metrics.is_none() => metrics = Some(value),
            ("--http", None) => {
                http = Some(HttpArgs {
                    addr: value,
                    redis: None,
                    issuer: None,
                    audience: None,
                })
            }
            ("--redis", Some(h)) if h.redis.is_none() => h.redis = Some(value),
            ("--auth-issuer", Some(h)) => h.issuer = Some(value),
            ("--auth-audience", Some(h)) if h.issuer.is_some() => h.audience = Some(value),
            _ => return None,
        }
    }
    Some((http, metrics))
}

/// With `--redis`, the store the replicas share their tasks in.
pub(crate) async fn task_store(
    http: Option<&HttpArgs>,
) -> Result<Option<ferromcp::http::RedisTaskStore>, String> {
    match http.and_then(|h| h.redis.as_deref()) {
        Some(url) => ferromcp::http::RedisTaskStore::connect(url)
            .await
            .map(Some)
            .map_err(|e| format!("--redis {url}: {e}")),
        None => Ok(None),
    }
}

/// Serves HTTP; with an issuer, behind an `AuthLayer` accepting any scope.
pub(crate) async fn serve_http(server: &Server, http: HttpArgs) -> std::io::Result<()> {
    let mut options = ferromcp::http::HttpOptions::default();
    if let Some(url) = &http.redis {
        // Several replicas behind a load balancer share legacy sessions and change
        // notifications through Redis.
        let unreachable = |e| std::io::Error::new(std::io::ErrorKind::ConnectionRefused, e);
        let store = ferromcp::http::RedisSessionStore::connect(url)
            .await
            .map_err(unreachable)?;
        let bus = ferromcp::http::RedisNotificationBus::connect(url)
            .await
            .map_err(unreachable)?;
        options = options
            .session_store(std::sync::Arc::new(store))
            .notification_bus(std::sync::Arc::new(bus));
    }
    if let Some(issuer) = &http.issuer {
        use ferromcp::auth::{AuthConfig, AuthLayer, JwtValidator};
        let audience = http
            .audience
            .clone()
            .unwrap_or_else(|| format!("http://{}/mcp", http.addr));
        let invalid = |e: ferromcp::auth::AuthConfigError| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string())
        };
        let config = AuthConfig::new(audience, issuer).map_err(invalid)?;
        let validator = JwtValidator::new(issuer).map_err(invalid)?;
        options = options.auth(AuthLayer::new(config, validator));
    }
    server
        .serve_http(http.addr).options(options)
        .await
}
