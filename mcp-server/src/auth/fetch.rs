//! Talking to the authorization server: its metadata (RFC 8414, OpenID Connect Discovery)
//! and bounded JSON fetches.

use std::time::Duration;

use serde_json::Value;

use super::validator::TokenError;

/// Metadata, key sets and introspection answers are small; anything larger is refused.
const MAX_DOCUMENT: usize = 1 << 20;
const TIMEOUT: Duration = Duration::from_secs(10);

pub(crate) fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(TIMEOUT)
        // An authorization server's documents are fetched where they were said to be.
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap_or_default()
}

/// `response`'s body as JSON, if the status is 2xx and the body is small.
pub(crate) async fn json(response: reqwest::Response, what: &str) -> Result<Value, TokenError> {
    let unavailable = |why: String| TokenError::Unavailable(format!("{what}: {why}"));
    if !response.status().is_success() {
        return Err(unavailable(format!("HTTP {}", response.status())));
    }
    if response
        .content_length()
        .is_some_and(|n| n > MAX_DOCUMENT as u64)
    {
        return Err(unavailable("too large".into()));
    }
    let mut response = response;
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| unavailable(e.to_string()))?
    {
        body.extend_from_slice(&chunk);
        if body.len() > MAX_DOCUMENT {
            return Err(unavailable("too large".into()));
        }
    }
    serde_json::from_slice(&body).map_err(|e| unavailable(e.to_string()))
}

pub(crate) async fn get_json(
    client: &reqwest::Client,
    url: &str,
    what: &str,
) -> Result<Value, TokenError> {
    let response = client
        .get(url)
        .header(http::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| TokenError::Unavailable(format!("{what}: {e}")))?;
    json(response, what).await
}

/// The authorization server's metadata: the RFC 8414 path-inserted URI first, then OpenID
/// Connect's (appended, then inserted). The document's `issuer` must be `issuer` exactly
/// (RFC 8414 §3.3), or a look-alike server could hand out its own keys.
pub(crate) async fn discover(client: &reqwest::Client, issuer: &str) -> Result<Value, TokenError> {
    let trimmed = issuer.trim_end_matches('/');
    let (origin, path) = match trimmed
        .find("://")
        .and_then(|i| trimmed[i + 3..].find('/').map(|j| i + 3 + j))
    {
        Some(split) => trimmed.split_at(split),
        None => (trimmed, ""),
    };
    let candidates = [
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{trimmed}/.well-known/openid-configuration"),
        format!("{origin}/.well-known/openid-configuration{path}"),
    ];
    let mut last = TokenError::Unavailable("no metadata".into());
    for url in candidates.iter().take(if path.is_empty() { 2 } else { 3 }) {
        match get_json(client, url, "authorization server metadata").await {
            Ok(doc) => {
                if doc.get("issuer").and_then(Value::as_str) != Some(issuer) {
                    return Err(TokenError::Unavailable(
                        "authorization server metadata names another issuer".into(),
                    ));
                }
                return Ok(doc);
            }
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// `value` as application/x-www-form-urlencoded.
pub(crate) fn form_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'*' | b'-' | b'.' | b'_' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_encoding() {
        assert_eq!(form_encode("a b+c/d=é"), "a+b%2Bc%2Fd%3D%C3%A9");
    }
}
