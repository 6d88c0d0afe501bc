//! The OAuth resource server (feature `auth`) through the axum router.
//!
//! Two authorization servers: the real one, oidc-provider, which `scripts/auth-server.sh
//! start` runs and names in `MCP_AUTH_ISSUER` (the tests against it are `#[ignore]`d and run
//! with `--include-ignored` after eval "$(scripts/auth-server.sh start)"; without the variable
//! they fail); and, for the tokens no real
//! server would issue (expired, `alg: none`, HS256 keyed with the public key, tampered,
//! unknown keys), a small key server in this file that publishes keys the test holds.

#![cfg(feature = "auth")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support {
    pub mod http;
}

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::body::Body;
use axum::response::IntoResponse;
use base64::Engine as _;
use ferromcp::auth::{AuthConfig, AuthLayer, IntrospectionValidator, JwtValidator, TokenValidator};
use ferromcp::extract::FromContext;
use ferromcp::http::HttpOptions;
use ferromcp::prelude::tool;
use ferromcp::registry::tool_fn;
use ferromcp::testing::{ClientOptions, HttpTestClient, TestClientError};
use ferromcp::types::{CreateMessageRequestParams, SamplingMessage, Tool};
use ferromcp::{Context, Principal, Server, ServerBuilder};
use http::StatusCode;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use support::http::INIT;

const RESOURCE: &str = "http://localhost/mcp";

fn server() -> Server {
    let server = ServerBuilder::new("auth-test", "1.0.0").build();
    let schema = json!({"type": "object"}).as_object().cloned().unwrap();
    server
        .registry()
        .add_tool(
            Tool::new("whoami", schema),
            tool_fn(|_: Value, ctx: Context| async move {
                let caller = Principal::from_context(&ctx).map_err(|e| e.message)?;
                assert_eq!(ctx.principal(), Some(&caller));
                Ok::<_, String>(format!(
                    "{} via {} with {}",
                    caller.subject(),
                    caller.issuer().unwrap_or("?"),
                    caller.scopes().join(" ")
                ))
            }),
            None,
        )
        .unwrap();
    let schema = json!({"type": "object"}).as_object().cloned().unwrap();
    server
        .registry()
        .add_tool(
            Tool::new("needs_sampling", schema),
            tool_fn(|_: Value, ctx: Context| async move {
                let params =
                    CreateMessageRequestParams::new(vec![SamplingMessage::user_text("x")], 5);
                ctx.sample(params)
                    .await
                    .map(|_| "sampled")
                    .map_err(|e| e.to_string())
            }),
            None,
        )
        .unwrap();
    server
}

fn app(config: AuthConfig, validator: impl TokenValidator) -> axum::Router {
    axum::Router::new()
        .nest_service(
            "/mcp",
            server().http_router(HttpOptions::default(), CancellationToken::new()),
        )
        .layer(AuthLayer::new(config, validator))
}

/// A legacy client of `app`, in process, without a token.
fn client(app: &axum::Router) -> HttpTestClient {
    HttpTestClient::new(app.clone(), ClientOptions::legacy())
}

/// A legacy session opened with `token`: the client on it.
async fn open_session(app: &axum::Router, token: &str) -> HttpTestClient {
    let client = client(app).with_bearer(token);
    let answer = client.send_initialize().await;
    assert_eq!(answer.status(), StatusCode::OK, "{}", answer.text());
    assert!(client.session_id().is_some());
    client
}

// --- the real authorization server ----------------------------------------------------------

/// `MCP_AUTH_ISSUER`, which `scripts/auth-server.sh start` exports; the tests that need it
/// are `#[ignore]`d, so running one without it is a mistake to report, not to pass.
fn issuer() -> String {
    match std::env::var("MCP_AUTH_ISSUER") {
        Ok(url) if !url.is_empty() => url,
        _ => panic!("MCP_AUTH_ISSUER is not set: eval \"$(scripts/auth-server.sh start)\" first"),
    }
}

/// A client-credentials token from the authorization server.
async fn token(issuer: &str, client: (&str, &str), scope: &str, resource: &str) -> String {
    let answer: Value = reqwest::Client::new()
        .post(format!("{issuer}/token"))
        .basic_auth(client.0, Some(client.1))
        .form(&[
            ("grant_type", "client_credentials"),
            ("scope", scope),
            ("resource", resource),
        ])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    answer["access_token"]
        .as_str()
        .unwrap_or_else(|| panic!("no token: {answer}"))
        .to_owned()
}

const FULL: (&str, &str) = ("mcp-full", "full-secret");
const BASIC: (&str, &str) = ("mcp-basic", "basic-secret");

fn jwt_app(issuer: &str, scopes: &[&str]) -> axum::Router {
    let config = AuthConfig::new(RESOURCE, issuer)
        .unwrap()
        .required_scopes(scopes.iter().copied())
        .scopes_supported(["mcp", "sql:query"]);
    app(config, JwtValidator::new(issuer).unwrap())
}

#[tokio::test]
#[ignore = "needs the authorization server: eval \"$(scripts/auth-server.sh start)\""]
async fn the_metadata_names_the_authorization_server() {
    let issuer = issuer();
    let app = jwt_app(&issuer, &["mcp"]);
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let answer = client(&app).get(path).await;
        assert_eq!(answer.status(), StatusCode::OK, "{path}");
        assert_eq!(answer.header("content-type"), Some("application/json"));
        let doc: Value = serde_json::from_slice(answer.body()).unwrap();
        assert_eq!(
            doc,
            json!({
                "resource": RESOURCE,
                "authorization_servers": [issuer],
                "scopes_supported": ["mcp", "sql:query"],
                "bearer_methods_supported": ["header"],
            })
        );
    }
}

#[tokio::test]
#[ignore = "needs the authorization server: eval \"$(scripts/auth-server.sh start)\""]
async fn requests_without_a_usable_token_are_challenged() {
    let issuer = issuer();
    let app = jwt_app(&issuer, &["mcp", "offline_access"]);
    let metadata =
        "resource_metadata=\"http://localhost/.well-known/oauth-protected-resource/mcp\"";

    let anonymous = client(&app);
    let answer = anonymous.send_initialize().await;
    assert_eq!(answer.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        answer.challenge(),
        format!("Bearer {metadata}, scope=\"mcp\"")
    );

    let basic = anonymous
        .post_builder()
        .header("authorization", "Basic dXNlcjpwYXNz")
        .body(Body::from(INIT))
        .unwrap();
    let answer = anonymous.send(basic).await;
    assert_eq!(
        answer.status(),
        StatusCode::UNAUTHORIZED,
        "another scheme is no credentials"
    );
    assert!(!answer.challenge().contains("error="));

    for malformed in ["Bearer", "Bearer a b", "Bearer a\"b"] {
        let req = anonymous
            .post_builder()
            .header("authorization", malformed)
            .body(Body::from(INIT))
            .unwrap();
        let answer = anonymous.send(req).await;
        assert_eq!(answer.status(), StatusCode::BAD_REQUEST, "{malformed}");
        assert!(
            answer
                .challenge()
                .starts_with("Bearer error=\"invalid_request\"")
        );
        assert!(answer.challenge().contains(metadata));
    }

    // A good token is still refused when a copy rides in the query string.
    let good = token(&issuer, FULL, "mcp", RESOURCE).await;
    let answer = client(&app)
        .with_path(&format!("/mcp?access_token={good}"))
        .with_bearer(&good)
        .send_initialize()
        .await;
    assert_eq!(answer.status(), StatusCode::BAD_REQUEST);
    assert!(answer.challenge().contains("query string"));

    let answer = client(&app)
        .with_bearer("not-a-jwt")
        .send_initialize()
        .await;
    assert_eq!(answer.status(), StatusCode::UNAUTHORIZED);
    assert!(
        answer
            .challenge()
            .starts_with("Bearer error=\"invalid_token\"")
    );
    assert!(
        !answer.challenge().contains("not-a-jwt"),
        "the token is never echoed"
    );
}

#[tokio::test]
#[ignore = "needs the authorization server: eval \"$(scripts/auth-server.sh start)\""]
async fn a_token_issued_for_this_server_opens_a_session() {
    let issuer = issuer();
    let app = jwt_app(&issuer, &["mcp"]);
    let good = token(&issuer, FULL, "mcp", RESOURCE).await;
    let session = open_session(&app, &good).await;
    let answer = session.send_request("tools/list", None).await;
    assert_eq!(answer.status(), StatusCode::OK);
    assert!(answer.text().contains("whoami"), "{}", answer.text());
}

#[tokio::test]
#[ignore = "needs the authorization server: eval \"$(scripts/auth-server.sh start)\""]
async fn a_token_for_another_resource_is_refused() {
    let issuer = issuer();
    let app = jwt_app(&issuer, &["mcp"]);
    let elsewhere = token(&issuer, FULL, "mcp", "http://localhost/other").await;
    let answer = client(&app).with_bearer(&elsewhere).send_initialize().await;
    assert_eq!(answer.status(), StatusCode::UNAUTHORIZED);
    assert!(
        answer.challenge().contains("not issued for this resource"),
        "{}",
        answer.challenge()
    );

    // The same server under another canonical URI refuses this server's tokens too.
    let ours = token(&issuer, FULL, "mcp", RESOURCE).await;
    let config = AuthConfig::new("http://localhost/elsewhere", &issuer).unwrap();
    let other = self::app(config, JwtValidator::new(&issuer).unwrap());
    let answer = client(&other).with_bearer(&ours).send_initialize().await;
    assert_eq!(answer.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
#[ignore = "needs the authorization server: eval \"$(scripts/auth-server.sh start)\""]
async fn a_token_without_the_required_scope_gets_the_step_up_challenge() {
    let issuer = issuer();
    let app = jwt_app(&issuer, &["mcp", "sql:query"]);
    let basic = token(&issuer, BASIC, "mcp", RESOURCE).await;
    let answer = client(&app).with_bearer(&basic).send_initialize().await;
    assert_eq!(answer.status(), StatusCode::FORBIDDEN);
    assert_eq!(
        answer.challenge(),
        "Bearer error=\"insufficient_scope\", scope=\"mcp sql:query\", resource_metadata=\"http://localhost/.well-known/oauth-protected-resource/mcp\""
    );
    let full = token(&issuer, FULL, "mcp sql:query", RESOURCE).await;
    open_session(&app, &full).await;
}

#[tokio::test]
#[ignore = "needs the authorization server: eval \"$(scripts/auth-server.sh start)\""]
async fn a_session_id_replayed_with_another_users_token_is_unknown() {
    let issuer = issuer();
    let app = jwt_app(&issuer, &["mcp"]);
    let alice = token(&issuer, FULL, "mcp", RESOURCE).await;
    let bob = token(&issuer, BASIC, "mcp", RESOURCE).await;
    let session = open_session(&app, &alice).await;
    let answer = session
        .with_bearer(&bob)
        .send_request("tools/list", None)
        .await;
    assert_eq!(answer.status(), StatusCode::NOT_FOUND);
    // A second token of the same client is the same principal.
    let alice_again = token(&issuer, FULL, "mcp sql:query", RESOURCE).await;
    assert_ne!(alice, alice_again);
    let answer = session
        .with_bearer(&alice_again)
        .send_request("tools/list", None)
        .await;
    assert_eq!(answer.status(), StatusCode::OK);
}

#[tokio::test]
#[ignore = "needs the authorization server: eval \"$(scripts/auth-server.sh start)\""]
async fn a_revoked_opaque_token_is_refused() {
    let issuer = issuer();
    let resource = "http://localhost/opaque";
    let config = AuthConfig::new(resource, &issuer).unwrap();
    let validator = IntrospectionValidator::new(&issuer, BASIC.0, BASIC.1)
        .unwrap()
        .cache_ttl(Duration::ZERO);
    let app = app(config, validator);
    let opaque = token(&issuer, FULL, "mcp", resource).await;
    assert_eq!(opaque.matches('.').count(), 0, "an opaque token: {opaque}");
    let answer = client(&app).with_bearer(&opaque).send_initialize().await;
    assert_eq!(answer.status(), StatusCode::OK, "{}", answer.text());

    let revoked = reqwest::Client::new()
        .post(format!("{issuer}/token/revocation"))
        .basic_auth(FULL.0, Some(FULL.1))
        .form(&[("token", opaque.as_str())])
        .send()
        .await
        .unwrap();
    assert!(revoked.status().is_success());
    let answer = client(&app).with_bearer(&opaque).send_initialize().await;
    assert_eq!(answer.status(), StatusCode::UNAUTHORIZED);
    assert!(answer.challenge().contains("not active"));
}

// --- forged tokens, against keys this test publishes -----------------------------------------

/// An Ed25519 key pair: the JWK to publish and the key to sign with.
struct Keys {
    kid: String,
    jwk: Value,
    signing: EncodingKey,
    public: Vec<u8>,
}

fn new_keys(kid: &str) -> Keys {
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed).unwrap();
    let public = ed25519_dalek::SigningKey::from_bytes(&seed)
        .verifying_key()
        .to_bytes()
        .to_vec();
    // PKCS#8 v1 for Ed25519 (RFC 8410): a fixed prefix, then the seed.
    let mut der = hex_bytes("302e020100300506032b657004220420");
    der.extend_from_slice(&seed);
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    Keys {
        kid: kid.to_owned(),
        jwk: json!({"kty": "OKP", "crv": "Ed25519", "x": b64.encode(&public), "kid": kid, "use": "sig", "alg": "EdDSA"}),
        signing: EncodingKey::from_ed_der(&der),
        public,
    }
}

fn hex_bytes(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

/// A key server: metadata at the RFC 8414 URI, the published keys at /jwks, and a count of
/// key-set fetches.
struct KeyServer {
    issuer: String,
    published: Arc<Mutex<Vec<Value>>>,
    fetches: Arc<AtomicUsize>,
    /// While set, the key set is answered 503 (the fetch still counts).
    failing: Arc<std::sync::atomic::AtomicBool>,
}

async fn key_server(keys: &[&Keys]) -> KeyServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let issuer = format!("http://{}", listener.local_addr().unwrap());
    let published = Arc::new(Mutex::new(
        keys.iter().map(|k| k.jwk.clone()).collect::<Vec<_>>(),
    ));
    let fetches = Arc::new(AtomicUsize::new(0));
    let failing = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let metadata = json!({"issuer": issuer, "jwks_uri": format!("{issuer}/jwks")});
    let (p, f, down) = (published.clone(), fetches.clone(), failing.clone());
    let router = axum::Router::new()
        .route(
            "/.well-known/oauth-authorization-server",
            axum::routing::get(move || async move { json_response(&metadata) }),
        )
        .route(
            "/jwks",
            axum::routing::get(move || async move {
                f.fetch_add(1, Ordering::SeqCst);
                if down.load(Ordering::SeqCst) {
                    return (StatusCode::SERVICE_UNAVAILABLE, "down").into_response();
                }
                let keys = p.lock().unwrap().clone();
                json_response(&json!({ "keys": keys })).into_response()
            }),
        );
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    KeyServer {
        issuer,
        published,
        fetches,
        failing,
    }
}

fn json_response(v: &Value) -> ([(http::HeaderName, &'static str); 1], String) {
    (
        [(http::header::CONTENT_TYPE, "application/json")],
        v.to_string(),
    )
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn claims(issuer: &str) -> Value {
    json!({"iss": issuer, "sub": "mallory", "aud": RESOURCE, "exp": now() + 300, "iat": now(), "scope": "mcp"})
}

fn sign(keys: &Keys, claims: &Value) -> String {
    let mut header = Header::new(Algorithm::EdDSA);
    header.kid = Some(keys.kid.clone());
    jsonwebtoken::encode(&header, claims, &keys.signing).unwrap()
}

fn b64(v: &Value) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string())
}

async fn status_of(app: &axum::Router, token: &str) -> (StatusCode, String) {
    let answer = client(app).with_bearer(token).send_initialize().await;
    (answer.status(), answer.challenge().to_owned())
}

#[tokio::test]
async fn forged_and_stale_tokens_are_refused() {
    let keys = new_keys("k1");
    let ks = key_server(&[&keys]).await;
    let validator = JwtValidator::new(&ks.issuer)
        .unwrap()
        .leeway(Duration::from_secs(5));
    let app = app(AuthConfig::new(RESOURCE, &ks.issuer).unwrap(), validator);

    // The control: a token signed properly is accepted, so each refusal below is the
    // refusal of one defect.
    assert_eq!(
        status_of(&app, &sign(&keys, &claims(&ks.issuer))).await.0,
        StatusCode::OK
    );

    let mut cases: Vec<(&str, String)> = Vec::new();
    let mut c = claims(&ks.issuer);
    c["exp"] = json!(now() - 10);
    cases.push(("expired", sign(&keys, &c)));
    let mut c = claims(&ks.issuer);
    c["nbf"] = json!(now() + 120);
    cases.push(("not valid yet", sign(&keys, &c)));
    cases.push(("wrong issuer", sign(&keys, &claims("http://127.0.0.1:1"))));
    let mut c = claims(&ks.issuer);
    c["aud"] = json!("http://localhost/other");
    cases.push(("wrong audience", sign(&keys, &c)));
    let mut c = claims(&ks.issuer);
    c.as_object_mut().unwrap().remove("exp");
    cases.push(("no expiry", sign(&keys, &c)));
    cases.push((
        "alg none",
        format!(
            "{}.{}.",
            b64(&json!({"alg": "none", "kid": "k1"})),
            b64(&claims(&ks.issuer))
        ),
    ));
    let mut hs = Header::new(Algorithm::HS256);
    hs.kid = Some("k1".into());
    cases.push((
        "HS256 keyed with the public key",
        jsonwebtoken::encode(
            &hs,
            &claims(&ks.issuer),
            &EncodingKey::from_secret(&keys.public),
        )
        .unwrap(),
    ));
    let good = sign(&keys, &claims(&ks.issuer));
    let parts: Vec<&str> = good.split('.').collect();
    let mut c = claims(&ks.issuer);
    c["sub"] = json!("admin");
    cases.push((
        "tampered payload",
        format!("{}.{}.{}", parts[0], b64(&c), parts[2]),
    ));
    let stranger = new_keys("k1");
    cases.push((
        "signed by another key with the same kid",
        sign(&stranger, &claims(&ks.issuer)),
    ));

    for (what, token) in cases {
        let (status, challenge) = status_of(&app, &token).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{what}");
        assert!(
            challenge.starts_with("Bearer error=\"invalid_token\""),
            "{what}: {challenge}"
        );
        assert!(challenge.contains("resource_metadata="), "{what}");
    }
    // The control again: nothing above poisoned the validator or the cache.
    assert_eq!(status_of(&app, &good).await.0, StatusCode::OK);
}

/// Moves tokio's clock `by` at once, as if that much time had passed: the validators' caches
/// and refetch intervals count on it. Time runs again afterwards, for the real sockets.
async fn pass(by: Duration) {
    tokio::time::pause();
    tokio::time::advance(by).await;
    tokio::time::resume();
}

#[tokio::test]
async fn rotated_keys_are_fetched_once_and_a_flood_of_unknown_kids_is_not() {
    let old = new_keys("old");
    let ks = key_server(&[&old]).await;
    let interval = Duration::from_millis(1000);
    let validator = JwtValidator::new(&ks.issuer)
        .unwrap()
        .min_refetch_interval(interval);
    let app = app(AuthConfig::new(RESOURCE, &ks.issuer).unwrap(), validator);
    assert_eq!(
        status_of(&app, &sign(&old, &claims(&ks.issuer))).await.0,
        StatusCode::OK
    );
    assert_eq!(ks.fetches.load(Ordering::SeqCst), 1);

    // The issuer rotates; once the refetch interval has passed, the new key is picked up
    // by one fetch.
    let new = new_keys("new");
    // Signed now, so that only the requests fall inside the interval that follows the fetch.
    let bogus: Vec<String> = (0..50)
        .map(|i| sign(&new_keys(&format!("bogus-{i}")), &claims(&ks.issuer)))
        .collect();
    ks.published.lock().unwrap().push(new.jwk.clone());
    pass(interval + Duration::from_millis(50)).await;
    assert_eq!(
        status_of(&app, &sign(&new, &claims(&ks.issuer))).await.0,
        StatusCode::OK
    );
    assert_eq!(ks.fetches.load(Ordering::SeqCst), 2);

    // Made-up key ids right after: refused, and the issuer is not asked again.
    for token in &bogus {
        let (status, _) = status_of(&app, token).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }
    assert_eq!(
        ks.fetches.load(Ordering::SeqCst),
        2,
        "a flood of unknown kids refetches nothing"
    );
}

/// An issuer that cannot be reached: the key set held goes on being used within its stale
/// allowance, and the issuer is not asked again before the refetch interval; with no
/// allowance, tokens get 503 (retry), again without a fetch per request.
#[tokio::test]
async fn an_unreachable_issuer_leaves_the_held_keys_in_use_for_a_while() {
    let keys = new_keys("k1");
    let ks = key_server(&[&keys]).await;
    // Distinct tokens: each is validated (a repeated one would come from the layer's cache).
    let serial = AtomicUsize::new(0);
    let token = || {
        let mut c = claims(&ks.issuer);
        c["jti"] = json!(serial.fetch_add(1, Ordering::SeqCst));
        sign(&keys, &c)
    };
    for (allowance, while_down) in [
        (None, StatusCode::OK),
        (Some(Duration::ZERO), StatusCode::SERVICE_UNAVAILABLE),
    ] {
        ks.failing.store(false, Ordering::SeqCst);
        let before = ks.fetches.load(Ordering::SeqCst);
        // Every validation finds the set expired and asks the issuer.
        let mut validator = JwtValidator::new(&ks.issuer)
            .unwrap()
            .jwks_ttl(Duration::ZERO);
        if let Some(allowance) = allowance {
            validator = validator.jwks_stale_if_error(allowance);
        }
        let app = app(AuthConfig::new(RESOURCE, &ks.issuer).unwrap(), validator);
        assert_eq!(status_of(&app, &token()).await.0, StatusCode::OK);
        assert_eq!(ks.fetches.load(Ordering::SeqCst), before + 1);

        ks.failing.store(true, Ordering::SeqCst);
        for _ in 0..5 {
            let (status, _) = status_of(&app, &token()).await;
            assert_eq!(status, while_down, "{allowance:?}");
        }
        assert_eq!(
            ks.fetches.load(Ordering::SeqCst),
            before + 2,
            "one failed fetch, then none within the refetch interval ({allowance:?})"
        );
    }
}

#[tokio::test]
async fn a_repeated_token_is_validated_once() {
    let keys = new_keys("k1");
    let ks = key_server(&[&keys]).await;
    struct Counting(JwtValidator, Arc<AtomicUsize>);
    impl TokenValidator for Counting {
        fn validate<'a>(&'a self, token: &'a str) -> ferromcp::auth::ValidateFuture<'a> {
            self.1.fetch_add(1, Ordering::SeqCst);
            self.0.validate(token)
        }
    }
    let calls = Arc::new(AtomicUsize::new(0));
    let validator = Counting(JwtValidator::new(&ks.issuer).unwrap(), calls.clone());
    let app = app(AuthConfig::new(RESOURCE, &ks.issuer).unwrap(), validator);
    let token = sign(&keys, &claims(&ks.issuer));
    for _ in 0..5 {
        assert_eq!(status_of(&app, &token).await.0, StatusCode::OK);
    }
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn handlers_see_the_caller() {
    let keys = new_keys("k1");
    let ks = key_server(&[&keys]).await;
    let app = app(
        AuthConfig::new(RESOURCE, &ks.issuer).unwrap(),
        JwtValidator::new(&ks.issuer).unwrap(),
    );
    let token = sign(&keys, &claims(&ks.issuer));
    let session = open_session(&app, &token).await;
    let call = json!({"name": "whoami", "arguments": {}});
    let answer = session.send_request("tools/call", Some(call.clone())).await;
    assert_eq!(answer.status(), StatusCode::OK);
    let text = format!("mallory via {} with mcp", ks.issuer);
    assert!(answer.text().contains(&text), "{}", answer.text());
    // The typed calls see the same.
    let typed = session.connect().await.unwrap();
    let result = typed.call_tool("whoami", json!({})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some(text.as_str()));

    // Without an authentication layer there is no caller, and the extractor says so.
    let plain = axum::Router::new().nest_service(
        "/mcp",
        server().http_router(HttpOptions::default(), CancellationToken::new()),
    );
    let plain = client(&plain);
    plain.send_initialize().await;
    let answer = plain.send_request("tools/call", Some(call)).await;
    assert!(
        answer.text().contains("no authenticated caller"),
        "{}",
        answer.text()
    );
}

/// A modern client of `app` that takes sampling, acting as `who` (put on each request as an
/// authentication layer would).
fn modern_caller(app: &axum::Router, who: &str) -> HttpTestClient {
    let options = ClientOptions::modern()
        .with_sampling(|_| unreachable!("answers are sent by hand"))
        .with_principal(Principal::new(who).with_issuer("https://as.example.com"));
    HttpTestClient::new(app.clone(), options)
}

/// A `tools/call needs_sampling`, with `requestState` when continuing: the JSON-RPC answer.
async fn needs_sampling(caller: &HttpTestClient, state: Option<&str>) -> Value {
    let mut params = json!({"name": "needs_sampling", "arguments": {}});
    if let Some(state) = state {
        params["requestState"] = json!(state);
    }
    let answer = caller.send_request("tools/call", Some(params)).await;
    assert_eq!(answer.status(), StatusCode::OK, "{}", answer.text());
    answer.message()
}

#[tokio::test]
async fn request_state_is_bound_to_the_caller() {
    let plain = axum::Router::new().nest_service(
        "/mcp",
        server().http_router(HttpOptions::default(), CancellationToken::new()),
    );
    let (alice, bob) = (modern_caller(&plain, "alice"), modern_caller(&plain, "bob"));
    let first = needs_sampling(&alice, None).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state = first["result"]["requestState"].as_str().unwrap();

    // Alice continues (and is asked again, having sent no answer).
    let again = needs_sampling(&alice, Some(state)).await;
    assert_eq!(again["result"]["resultType"], "input_required", "{again}");

    // Bob, holding Alice's state, gets what a forged state gets.
    let refused = needs_sampling(&bob, Some(state)).await;
    assert_eq!(
        refused["error"]["message"], "Invalid or expired requestState",
        "{refused}"
    );
}

/// A modern client of `app` that takes tasks, acting as `who` (`None`: unauthenticated),
/// put on each request as an authentication layer would.
fn task_client(app: &axum::Router, who: Option<&str>) -> HttpTestClient {
    let mut options = ClientOptions::modern().with_extension("io.modelcontextprotocol/tasks");
    if let Some(who) = who {
        options = options.with_principal(Principal::new(who).with_issuer("https://as.example.com"));
    }
    HttpTestClient::new(app.clone(), options)
}

#[tokio::test]
async fn tasks_of_2026_belong_to_the_caller_who_started_them() {
    let server = ServerBuilder::new("auth-tasks", "1.0.0").build();
    let mut slow = Tool::new(
        "slow",
        json!({"type": "object"}).as_object().cloned().unwrap(),
    );
    slow.execution = Some(ferromcp::types::ToolExecution {
        task_support: Some(ferromcp::types::ToolTaskSupport::Optional),
        ..Default::default()
    });
    server
        .registry()
        .add_tool(
            slow,
            tool_fn(|_: Value, ctx: Context| async move {
                ctx.begin_task().await;
                ctx.cancelled().await;
                "cancelled"
            }),
            None,
        )
        .unwrap();
    let app = axum::Router::new().nest_service(
        "/mcp",
        server.http_router(HttpOptions::default(), CancellationToken::new()),
    );
    let call = json!({"name": "slow", "arguments": {}});
    let answer = task_client(&app, Some("alice"))
        .send_request("tools/call", Some(call))
        .await;
    assert_eq!(answer.status(), StatusCode::OK, "{}", answer.text());
    let created = answer.message();
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();

    let get = |who: Option<&'static str>, method: &'static str| {
        let app = app.clone();
        let id = id.clone();
        async move {
            task_client(&app, who)
                .send_request(method, Some(json!({"taskId": id})))
                .await
                .message()
        }
    };
    // Bob and an unauthenticated client holding Alice's task id learn nothing and can
    // cancel nothing: the task is unknown to them.
    for who in [Some("bob"), None] {
        for method in ["tasks/get", "tasks/cancel"] {
            let refused = get(who, method).await;
            assert_eq!(
                refused["error"]["code"], -32602,
                "{who:?} {method}: {refused}"
            );
            let message = refused["error"]["message"].as_str().unwrap();
            assert!(message.contains("unknown task"), "{message}");
        }
    }
    let seen = get(Some("alice"), "tasks/get").await;
    assert_eq!(seen["result"]["status"], "working", "{seen}");
    let cancelled = get(Some("alice"), "tasks/cancel").await;
    assert!(cancelled.get("result").is_some(), "{cancelled}");
    let seen = get(Some("alice"), "tasks/get").await;
    assert_eq!(seen["result"]["status"], "cancelled", "{seen}");
}

struct Incidents;

#[ferromcp::server(name = "incidents")]
impl Incidents {
    /// Lists open incidents.
    #[tool(read_only)]
    fn list(&self) -> String {
        "none open".into()
    }

    /// Resolves an incident.
    #[tool(scopes = ["incidents:write"])]
    fn resolve(&self, id: u32) -> String {
        format!("resolved {id}")
    }
}

fn incidents_app(issuer: &str) -> axum::Router {
    let server = Server::new(Incidents).unwrap();
    axum::Router::new()
        .nest_service(
            "/mcp",
            server.http_router(HttpOptions::default(), CancellationToken::new()),
        )
        .layer(AuthLayer::new(
            AuthConfig::new(RESOURCE, issuer).unwrap(),
            JwtValidator::new(issuer).unwrap(),
        ))
}

fn with_scope(issuer: &str, scope: &str) -> Value {
    let mut c = claims(issuer);
    c["scope"] = json!(scope);
    c
}

/// The tools `client` is shown.
async fn listed(client: &HttpTestClient) -> Vec<String> {
    let v = client.send_request("tools/list", None).await.message();
    v["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{v}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn scoped_tools_are_hidden_and_refused_with_a_step_up_challenge() {
    let keys = new_keys("k1");
    let ks = key_server(&[&keys]).await;
    let app = incidents_app(&ks.issuer);
    let reader = sign(&keys, &with_scope(&ks.issuer, "mcp"));
    let writer = sign(&keys, &with_scope(&ks.issuer, "mcp incidents:write"));
    let call = json!({"name": "resolve", "arguments": {"id": 7}});

    let as_reader = open_session(&app, &reader).await;
    let as_writer = as_reader.with_bearer(&writer);
    assert_eq!(
        listed(&as_reader).await,
        ["list"],
        "the reader does not see `resolve`"
    );
    let answer = as_reader
        .send_request("tools/call", Some(call.clone()))
        .await;
    assert_eq!(answer.status(), StatusCode::FORBIDDEN, "{}", answer.text());
    assert_eq!(
        answer.challenge(),
        "Bearer error=\"insufficient_scope\", scope=\"incidents:write\", resource_metadata=\"http://localhost/.well-known/oauth-protected-resource/mcp\""
    );
    let error = answer.message();
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("incidents:write"),
        "{error}"
    );
    assert_eq!(
        error["error"]["data"]["missingScopes"],
        json!(["incidents:write"])
    );
    // The typed call reads the same refusal.
    let typed = as_reader.connect().await.unwrap();
    let refused = typed.call_tool("resolve", json!({"id": 7})).await;
    let Err(TestClientError::Rpc(e)) = refused else {
        panic!("{refused:?}")
    };
    assert_eq!(e.data.unwrap()["missingScopes"], json!(["incidents:write"]));

    // Step-up: a token with the scope, same caller, same session.
    assert_eq!(
        listed(&as_writer).await,
        ["list", "resolve"],
        "the page cache is per scope set"
    );
    let answer = as_writer
        .send_request("tools/call", Some(call.clone()))
        .await;
    assert_eq!(answer.status(), StatusCode::OK);
    assert!(answer.text().contains("resolved 7"), "{}", answer.text());
    assert_eq!(listed(&as_reader).await, ["list"]);

    // The modern era gets the same challenge.
    let modern = HttpTestClient::new(app.clone(), ClientOptions::modern()).with_bearer(&reader);
    let answer = modern.send_request("tools/call", Some(call)).await;
    assert_eq!(answer.status(), StatusCode::FORBIDDEN);
    assert!(answer.challenge().contains("scope=\"incidents:write\""));
}

#[tokio::test]
async fn without_authentication_scopes_bind_nothing() {
    let server = Server::new(Incidents).unwrap();
    let app = axum::Router::new().nest_service(
        "/mcp",
        server.http_router(HttpOptions::default(), CancellationToken::new()),
    );
    let anonymous = client(&app);
    anonymous.send_initialize().await;
    assert_eq!(listed(&anonymous).await, ["list", "resolve"]);
}

#[tokio::test]
async fn resources_and_prompts_take_scopes_from_the_registry() {
    use ferromcp::registry::{ScopedItem, prompt_fn, resource_fn};
    use ferromcp::types::{Prompt, Resource};
    let keys = new_keys("k1");
    let ks = key_server(&[&keys]).await;
    let server = Server::new(Incidents).unwrap();
    let r = server.registry();
    r.add_resource(
        Resource::new("memo://secret", "secret"),
        resource_fn(None, |_, _, _| async { "s3cret" }),
    )
    .unwrap();
    r.add_prompt(
        Prompt::new("triage"),
        prompt_fn(|_, _| async { "Triage it." }),
    )
    .unwrap();
    r.require_scopes(ScopedItem::Resource("memo://secret"), ["secret:read"]);
    r.set_default_scopes(["mcp"]);
    let app = axum::Router::new()
        .nest_service(
            "/mcp",
            server.http_router(HttpOptions::default(), CancellationToken::new()),
        )
        .layer(AuthLayer::new(
            AuthConfig::new(RESOURCE, &ks.issuer).unwrap(),
            JwtValidator::new(&ks.issuer).unwrap(),
        ));
    let nobody = sign(&keys, &with_scope(&ks.issuer, "incidents:write"));
    let reader = sign(&keys, &with_scope(&ks.issuer, "mcp"));
    let as_nobody = open_session(&app, &nobody).await;
    let (as_reader, as_both) = (
        as_nobody.with_bearer(&reader),
        as_nobody.with_bearer(&sign(&keys, &with_scope(&ks.issuer, "mcp secret:read"))),
    );
    assert_eq!(
        listed(&as_nobody).await,
        ["resolve"],
        "the default needs `mcp`; `resolve` has its own"
    );
    let get = || Some(json!({"name": "triage"}));
    let answer = as_nobody.send_request("prompts/get", get()).await;
    assert_eq!(answer.status(), StatusCode::FORBIDDEN);
    assert!(answer.challenge().contains("scope=\"mcp\""));
    let answer = as_reader.send_request("prompts/get", get()).await;
    assert_eq!(answer.status(), StatusCode::OK);

    let read = || Some(json!({"uri": "memo://secret"}));
    let answer = as_reader.send_request("resources/read", read()).await;
    assert_eq!(answer.status(), StatusCode::FORBIDDEN);
    assert!(answer.challenge().contains("scope=\"secret:read\""));
    let answer = as_reader.send_request("resources/list", None).await;
    assert!(
        !answer.text().contains("memo://secret"),
        "{}",
        answer.text()
    );
    let answer = as_both.send_request("resources/list", None).await;
    assert!(answer.text().contains("memo://secret"), "{}", answer.text());
    let answer = as_both.send_request("resources/read", read()).await;
    assert_eq!(answer.status(), StatusCode::OK);
    assert!(answer.text().contains("s3cret"), "{}", answer.text());
}

struct Vault;

#[ferromcp::server(name = "vault", scopes = ["vault"])]
impl Vault {
    /// The vault's rules.
    #[resource(uri = "vault://rules")]
    fn rules(&self) -> String {
        "be careful".into()
    }

    /// The master key.
    #[resource(uri = "vault://master", scopes = ["vault:admin"])]
    fn master(&self) -> String {
        "m4ster".into()
    }

    /// One secret.
    #[resource(uri = "vault://secrets/{name}", scopes = ["vault:secrets"])]
    fn secret(&self, name: String) -> String {
        format!("secret {name}")
    }

    /// How to rotate keys.
    #[prompt(scopes = ["vault:admin"])]
    fn rotate(&self) -> String {
        "Rotate every key.".into()
    }
}

#[tokio::test]
async fn the_macros_put_scopes_on_resources_templates_prompts_and_the_server() {
    let keys = new_keys("k1");
    let ks = key_server(&[&keys]).await;
    let app = axum::Router::new()
        .nest_service(
            "/mcp",
            Server::new(Vault)
                .unwrap()
                .http_router(HttpOptions::default(), CancellationToken::new()),
        )
        .layer(AuthLayer::new(
            AuthConfig::new(RESOURCE, &ks.issuer).unwrap(),
            JwtValidator::new(&ks.issuer).unwrap(),
        ));
    let outsider = sign(&keys, &with_scope(&ks.issuer, "other"));
    let member = sign(&keys, &with_scope(&ks.issuer, "vault"));
    let admin = sign(
        &keys,
        &with_scope(&ks.issuer, "vault vault:admin vault:secrets"),
    );
    let session = open_session(&app, &member).await;
    let rpc = |method: &'static str, params: Value| (method, params);
    let forbidden = async |token: &str, (method, params): &(&str, Value), scope: &str| {
        let answer = session
            .with_bearer(token)
            .send_request(method, Some(params.clone()))
            .await;
        assert_eq!(answer.status(), StatusCode::FORBIDDEN, "{}", answer.text());
        assert!(
            answer.challenge().contains(&format!("scope=\"{scope}\"")),
            "{:?}",
            answer.headers()
        );
    };
    let allowed = async |token: &str, (method, params): &(&str, Value)| {
        let answer = session
            .with_bearer(token)
            .send_request(method, Some(params.clone()))
            .await;
        assert_eq!(answer.status(), StatusCode::OK, "{}", answer.text());
        answer.text()
    };

    // The server-wide default covers the items without scopes of their own.
    let rules = rpc("resources/read", json!({"uri": "vault://rules"}));
    forbidden(&outsider, &rules, "vault").await;
    assert!(allowed(&member, &rules).await.contains("be careful"));

    let list = rpc("resources/list", json!({}));
    let body = allowed(&member, &list).await;
    assert!(
        body.contains("vault://rules") && !body.contains("vault://master"),
        "{body}"
    );
    assert!(allowed(&admin, &list).await.contains("vault://master"));
    let master = rpc("resources/read", json!({"uri": "vault://master"}));
    forbidden(&member, &master, "vault:admin").await;
    assert!(allowed(&admin, &master).await.contains("m4ster"));

    let templates = rpc("resources/templates/list", json!({}));
    assert!(!allowed(&member, &templates).await.contains("secrets"));
    assert!(
        allowed(&admin, &templates)
            .await
            .contains("vault://secrets/{name}")
    );
    let secret = rpc("resources/read", json!({"uri": "vault://secrets/db"}));
    forbidden(&member, &secret, "vault:secrets").await;
    assert!(allowed(&admin, &secret).await.contains("secret db"));

    let prompts = rpc("prompts/list", json!({}));
    assert!(!allowed(&member, &prompts).await.contains("rotate"));
    assert!(allowed(&admin, &prompts).await.contains("rotate"));
    let rotate = rpc("prompts/get", json!({"name": "rotate"}));
    forbidden(&member, &rotate, "vault:admin").await;
    assert!(allowed(&admin, &rotate).await.contains("Rotate every key."));
}

// --- one keep-alive connection to `serve_http_on` -------------------------------------------

/// Writes one 2026-era `tools/call whoami` on `stream` (with `authorization` when given)
/// and reads the answer: its status and body.
async fn whoami_on(
    stream: &mut tokio::net::TcpStream,
    authorization: Option<&str>,
) -> (u16, String) {
    whoami_on_host(stream, "127.0.0.1", authorization).await
}

/// [`whoami_on`] with this `Host`.
async fn whoami_on_host(
    stream: &mut tokio::net::TcpStream,
    host: &str,
    authorization: Option<&str>,
) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "whoami", "arguments": {},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    let auth = authorization.map_or(String::new(), |a| format!("authorization: {a}\r\n"));
    let request = format!(
        "POST /mcp HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\n\
         mcp-method: tools/call\r\nmcp-name: whoami\r\n{auth}content-length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut byte = [0u8; 1];
        assert_eq!(
            stream.read(&mut byte).await.unwrap(),
            1,
            "the connection closed"
        );
        head.push(byte[0]);
    }
    let head = String::from_utf8(head).unwrap().to_ascii_lowercase();
    let status = head[9..12].parse().unwrap();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length: "))
        .expect("answers here have a length")
        .trim()
        .parse()
        .unwrap();
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).await.unwrap();
    (status, String::from_utf8(body).unwrap())
}

#[tokio::test]
async fn a_keep_alive_connection_is_checked_on_every_token_it_sends() {
    const ISSUER: &str = "https://as.example";
    const RESOURCE_HERE: &str = "http://127.0.0.1/mcp";
    /// Fixed tokens: two people for a minute, one for 1.2 s (on tokio's clock) from its first
    /// validation.
    struct Fixed(Arc<AtomicUsize>, std::sync::OnceLock<tokio::time::Instant>);
    impl TokenValidator for Fixed {
        fn validate<'a>(&'a self, token: &'a str) -> ferromcp::auth::ValidateFuture<'a> {
            self.0.fetch_add(1, Ordering::SeqCst);
            let minute = SystemTime::now() + Duration::from_secs(60);
            let (who, expiry) = match token {
                "alice-token" => ("alice", minute),
                "bob-token" => ("bob", minute),
                "carol-token" => {
                    // The end of the 1.2 s, as a time of day seen from now.
                    let (now, wall) = (tokio::time::Instant::now(), SystemTime::now());
                    let end = *self.1.get_or_init(|| now + Duration::from_millis(1_200));
                    let expiry = match end.checked_duration_since(now) {
                        Some(left) => wall + left,
                        None => wall - now.duration_since(end),
                    };
                    ("carol", expiry)
                }
                _ => {
                    return Box::pin(async {
                        Err(ferromcp::auth::TokenError::Invalid("unknown token".into()))
                    });
                }
            };
            let principal = Principal::new(who)
                .with_issuer(ISSUER)
                .with_audiences([RESOURCE_HERE])
                .with_expiry(expiry);
            Box::pin(async move { Ok(principal) })
        }
    }
    let validations = Arc::new(AtomicUsize::new(0));
    let layer = AuthLayer::new(
        AuthConfig::new(RESOURCE_HERE, ISSUER).unwrap(),
        Fixed(validations.clone(), std::sync::OnceLock::new()),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let stopped = stop.clone();
    let served = tokio::spawn(async move {
        server()
            .serve_http_on(listener)
            .options(HttpOptions::default().auth(layer))
            .with_graceful_shutdown(stopped.cancelled_owned())
            .await
    });
    let mut conn = tokio::net::TcpStream::connect(addr).await.unwrap();
    let said = |answer: &(u16, String), who: &str| {
        answer.0 == 200 && answer.1.contains(&format!("{who} via {ISSUER}"))
    };
    let alice = whoami_on(&mut conn, Some("Bearer alice-token")).await;
    assert!(said(&alice, "alice"), "{alice:?}");
    // Another token on the same connection is another caller.
    let bob = whoami_on(&mut conn, Some("Bearer bob-token")).await;
    assert!(said(&bob, "bob"), "{bob:?}");
    let alice = whoami_on(&mut conn, Some("Bearer alice-token")).await;
    assert!(said(&alice, "alice"), "{alice:?}");
    // A bad token, a missing one and a malformed one are refused between good ones.
    assert_eq!(whoami_on(&mut conn, Some("Bearer mallory")).await.0, 401);
    assert_eq!(whoami_on(&mut conn, None).await.0, 401);
    assert_eq!(
        whoami_on(&mut conn, Some("Bearer alice token")).await.0,
        400
    );
    // A rebinding page's request is refused by its Host before its token is looked at.
    let (status, body) = whoami_on_host(&mut conn, "evil.example", Some("Bearer eve-token")).await;
    assert_eq!(status, 403, "{body}");
    let alice = whoami_on(&mut conn, Some("Bearer alice-token")).await;
    assert!(said(&alice, "alice"), "{alice:?}");
    assert_eq!(
        validations.load(Ordering::SeqCst),
        3,
        "alice, bob and mallory validated once each, eve never"
    );
    // A token that expires stops working on the connection that keeps sending it.
    let carol = whoami_on(&mut conn, Some("Bearer carol-token")).await;
    assert!(said(&carol, "carol"), "{carol:?}");
    assert!(said(
        &whoami_on(&mut conn, Some("Bearer carol-token")).await,
        "carol"
    ));
    pass(Duration::from_millis(1_500)).await;
    let (status, _) = whoami_on(&mut conn, Some("Bearer carol-token")).await;
    assert_eq!(status, 401, "expired");
    stop.cancel();
    drop(conn);
    served.await.unwrap().unwrap();
}

// --- the scopes the metadata and the 401 challenge offer ------------------------------------

/// `Vault` behind an authentication layer configured by `config`; `for_server` hands the
/// layer the server whose declared scopes it offers.
fn vault_app(config: AuthConfig, for_server: bool) -> (Server, HttpTestClient) {
    let server = Server::new(Vault).unwrap();
    let mut layer = AuthLayer::new(config, JwtValidator::new("https://as.example.com").unwrap());
    if for_server {
        layer = layer.for_server(&server);
    }
    let app = axum::Router::new()
        .nest_service(
            "/mcp",
            server.http_router(HttpOptions::default(), CancellationToken::new()),
        )
        .layer(layer);
    (server, client(&app))
}

fn vault_config() -> AuthConfig {
    AuthConfig::new(RESOURCE, "https://as.example.com").unwrap()
}

/// The metadata's `scopes_supported` and the 401 challenge's `scope`, if any.
async fn offered(client: &HttpTestClient) -> (Value, Option<String>) {
    let metadata = client
        .get("/.well-known/oauth-protected-resource/mcp")
        .await;
    assert_eq!(metadata.status(), StatusCode::OK);
    let doc: Value = serde_json::from_slice(metadata.body()).unwrap();
    let answer = client.send_initialize().await;
    assert_eq!(answer.status(), StatusCode::UNAUTHORIZED);
    let challenge = answer.challenge();
    let scope = challenge
        .split_once("scope=\"")
        .map(|(_, rest)| rest.split('"').next().unwrap().to_owned());
    (doc["scopes_supported"].clone(), scope)
}

#[tokio::test]
async fn the_metadata_offers_the_scopes_the_server_declares() {
    // Nothing configured: the declared scopes (the server's default and each item's),
    // sorted, in the metadata and in the challenge, which says where the metadata is too.
    let (server, vault) = vault_app(vault_config(), true);
    let (supported, scope) = offered(&vault).await;
    assert_eq!(supported, json!(["vault", "vault:admin", "vault:secrets"]));
    assert_eq!(scope.as_deref(), Some("vault vault:admin vault:secrets"));
    assert_eq!(
        vault.send_initialize().await.challenge(),
        "Bearer resource_metadata=\"http://localhost/.well-known/oauth-protected-resource/mcp\", scope=\"vault vault:admin vault:secrets\""
    );
    // Items added at run time count, and so does the root well-known path.
    server.registry().require_scopes(
        ferromcp::registry::ScopedItem::Tool("audit"),
        ["audit", "vault"],
    );
    let root = vault.get("/.well-known/oauth-protected-resource").await;
    let doc: Value = serde_json::from_slice(root.body()).unwrap();
    assert_eq!(
        doc["scopes_supported"],
        json!(["audit", "vault", "vault:admin", "vault:secrets"])
    );

    // Required scopes are offered too; the challenge names only them.
    let config = vault_config().required_scopes(["mcp", "offline_access"]);
    let (supported, scope) = offered(&vault_app(config, true).1).await;
    assert_eq!(
        supported,
        json!(["mcp", "vault", "vault:admin", "vault:secrets"])
    );
    assert_eq!(scope.as_deref(), Some("mcp"));

    // A configured list overrides the declared scopes, in the metadata and the challenge.
    let config = vault_config().scopes_supported(["vault", "offline_access"]);
    let (supported, scope) = offered(&vault_app(config, true).1).await;
    assert_eq!(supported, json!(["vault", "offline_access"]));
    assert_eq!(scope.as_deref(), Some("vault"));

    // A layer that was not handed the server knows no declared scopes.
    let (supported, scope) = offered(&vault_app(vault_config(), false).1).await;
    assert_eq!(supported, json!([]));
    assert_eq!(scope, None);
}

/// `serve_http*` hands the layer the server it serves: its declared scopes are offered
/// without `for_server`.
#[tokio::test]
async fn serve_http_offers_the_served_servers_scopes() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let layer = AuthLayer::new(
        AuthConfig::new("http://127.0.0.1/mcp", "https://as.example.com").unwrap(),
        JwtValidator::new("https://as.example.com").unwrap(),
    );
    let stop = CancellationToken::new();
    let stopped = stop.clone();
    let served = tokio::spawn(async move {
        Server::new(Vault)
            .unwrap()
            .serve_http_on(listener)
            .options(HttpOptions::default().auth(layer))
            .with_graceful_shutdown(stopped.cancelled_owned())
            .await
    });
    let http = reqwest::Client::new();
    let doc: Value = http
        .get(format!(
            "http://{addr}/.well-known/oauth-protected-resource/mcp"
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        doc["scopes_supported"],
        json!(["vault", "vault:admin", "vault:secrets"])
    );
    let refused = http
        .post(format!("http://{addr}/mcp"))
        .body(INIT)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    let challenge = refused.headers()["www-authenticate"].to_str().unwrap();
    assert!(
        challenge.ends_with(", scope=\"vault vault:admin vault:secrets\""),
        "{challenge}"
    );
    stop.cancel();
    served.await.unwrap().unwrap();
}
