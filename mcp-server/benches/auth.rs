//! Bearer-token validation (feature `auth`).
//!
//! - `jwt_first_seen/{RS256,ES256,EdDSA}`: `JwtValidator::validate` of a signed access
//!   token whose key set is already fetched: header, key lookup, signature, claims, the
//!   principal. The validator keeps no tokens, so each iteration is what a token the layer
//!   has not seen costs. Keys are made by `openssl` for this run (RSA 2048, P-256,
//!   Ed25519) and served from a key server on 127.0.0.1.
//! - `layer_repeated_token`: a request through `AuthLayer` around a service that answers at
//!   once, with a token the layer has validated before: the SHA-256 and the cache lookup,
//!   plus the layer's own work.

// Like tests, benchmarks stop loudly on a broken setup.
#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use std::hint::black_box;
use std::time::{SystemTime, UNIX_EPOCH};

use axum::body::Body;
use criterion::{Criterion, criterion_group, criterion_main};
use ferromcp::auth::{AuthConfig, AuthLayer, JwtValidator, TokenValidator};
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::json;
use tower::ServiceExt;

const RESOURCE: &str = "http://localhost/mcp";

/// A private key made by `openssl genpkey` with these arguments, as PEM.
fn openssl_key(args: &[&str]) -> Vec<u8> {
    let out = std::process::Command::new("openssl")
        .arg("genpkey")
        .args(args)
        .output()
        .expect("openssl is needed to make the benchmark's keys");
    assert!(out.status.success(), "openssl genpkey {args:?} failed");
    out.stdout
}

struct Signer {
    alg: Algorithm,
    key: EncodingKey,
    jwk: serde_json::Value,
}

fn signers() -> Vec<Signer> {
    let rsa = openssl_key(&["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]);
    let ec = openssl_key(&["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]);
    let ed = openssl_key(&["-algorithm", "ED25519"]);
    [
        (Algorithm::RS256, EncodingKey::from_rsa_pem(&rsa).unwrap()),
        (Algorithm::ES256, EncodingKey::from_ec_pem(&ec).unwrap()),
        (Algorithm::EdDSA, EncodingKey::from_ed_pem(&ed).unwrap()),
    ]
    .into_iter()
    .map(|(alg, key)| {
        let mut jwk = match alg {
            // jsonwebtoken derives RSA and EC public keys, not Ed25519 ones: the last 32
            // bytes of the public key's DER (SubjectPublicKeyInfo) are the point.
            Algorithm::EdDSA => {
                let x = &ed_public_der(&ed)[12..];
                json!({"kty": "OKP", "crv": "Ed25519", "alg": "EdDSA",
                       "x": base64::Engine::encode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, x)})
            }
            _ => serde_json::to_value(Jwk::from_encoding_key(&key, alg).unwrap()).unwrap(),
        };
        jwk["kid"] = json!(format!("{alg:?}"));
        Signer { alg, key, jwk }
    })
    .collect()
}

/// The public half of an Ed25519 PEM private key, as DER (44 bytes).
fn ed_public_der(private_pem: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut child = std::process::Command::new("openssl")
        .args(["pkey", "-pubout", "-outform", "DER"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(private_pem).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success() && out.stdout.len() == 44,
        "openssl pkey -pubout failed"
    );
    out.stdout
}

fn token(signer: &Signer, issuer: &str) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let mut header = Header::new(signer.alg);
    header.kid = Some(format!("{:?}", signer.alg));
    let claims = json!({"iss": issuer, "sub": "bench", "aud": RESOURCE, "exp": now + 3600,
                        "iat": now, "scope": "mcp sql:query", "client_id": "bench"});
    jsonwebtoken::encode(&header, &claims, &signer.key).unwrap()
}

/// Serves `keys` at `/jwks` on 127.0.0.1; returns the issuer (`http://127.0.0.1:PORT`).
async fn key_server(keys: Vec<serde_json::Value>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let issuer = format!("http://{}", listener.local_addr().unwrap());
    let body = json!({ "keys": keys }).to_string();
    let router = axum::Router::new().route(
        "/jwks",
        axum::routing::get(move || {
            let body = body.clone();
            async move { ([(http::header::CONTENT_TYPE, "application/json")], body) }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    issuer
}

fn validation(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let signers = signers();
    let issuer = rt.block_on(key_server(signers.iter().map(|s| s.jwk.clone()).collect()));
    let validator = JwtValidator::new(&issuer)
        .unwrap()
        .jwks_uri(format!("{issuer}/jwks"))
        .unwrap();
    let mut group = c.benchmark_group("jwt_first_seen");
    for signer in &signers {
        let token = token(signer, &issuer);
        // The first validation fetches the key set; the measured ones do not.
        rt.block_on(validator.validate(&token)).unwrap();
        group.bench_function(format!("{:?}", signer.alg), |b| {
            b.iter(|| black_box(rt.block_on(validator.validate(black_box(&token))).unwrap()));
        });
    }
    group.finish();

    let layer = AuthLayer::new(
        AuthConfig::new(RESOURCE, &issuer).unwrap(),
        JwtValidator::new(&issuer)
            .unwrap()
            .jwks_uri(format!("{issuer}/jwks"))
            .unwrap(),
    );
    let service = tower::ServiceBuilder::new()
        .layer(layer)
        .service_fn(|_req| async {
            Ok::<_, std::convert::Infallible>(axum::response::Response::new(Body::empty()))
        });
    let bearer = format!("Bearer {}", token(&signers[0], &issuer));
    let call = || {
        let request = http::Request::post("/mcp")
            .header("authorization", &bearer)
            .body(Body::empty())
            .unwrap();
        let response = rt.block_on(service.clone().oneshot(request)).unwrap();
        assert_eq!(response.status(), http::StatusCode::OK);
    };
    call();
    c.bench_function("layer_repeated_token", |b| b.iter(call));
}

criterion_group!(benches, validation);
criterion_main!(benches);
