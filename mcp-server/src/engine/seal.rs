//! Sealing of the 2026 `requestState`: what a multi round-trip request carries between
//! rounds travels through the client, so it is authenticated (HMAC-SHA256), bound to the
//! server, the method and the primitive it was issued for, and it expires.
//!
//! Format: `base64url(payload JSON) "." base64url(tag)`, the tag over the payload bytes with
//! the first key of the key ring; every key of the ring is accepted when opening, so keys can
//! be rotated and several instances behind a load balancer can share them.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// The shortest key accepted, in bytes.
pub(crate) const MIN_KEY_LEN: usize = 32;

/// What a sealed `requestState` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct StatePayload {
    /// Audience: the server's name.
    pub(crate) aud: String,
    /// The method (`tools/call`, `prompts/get`, `resources/read`).
    pub(crate) m: String,
    /// The tool or prompt name, or the resource URI.
    pub(crate) n: String,
    /// Expiry, seconds since the Unix epoch.
    pub(crate) exp: u64,
    /// Answers collected in earlier rounds.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) r: BTreeMap<String, Value>,
    /// The handler's own state; a state of `null` (`set_request_state(())`) is kept as set.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub(crate) s: Option<Value>,
    /// The caller it was issued to: a digest of the principal's issuer and subject, so that
    /// another caller cannot continue the request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) p: Option<String>,
}

/// The binding of sealed state to a caller: SHA-256 of issuer and subject (the payload is
/// readable by the client, and need not name the caller).
pub(crate) fn caller_binding(principal: Option<&crate::principal::Principal>) -> Option<String> {
    principal.map(|p| {
        let mut h = <Sha256 as sha2::Digest>::new();
        sha2::Digest::update(&mut h, p.issuer().unwrap_or_default().as_bytes());
        sha2::Digest::update(&mut h, [0u8]);
        sha2::Digest::update(&mut h, p.subject().as_bytes());
        URL_SAFE_NO_PAD.encode(sha2::Digest::finalize(h))
    })
}

/// What a sealed state is for: the server (audience), the method, the tool or prompt name
/// or resource URI, and the caller's [`caller_binding`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target<'a> {
    pub(crate) audience: &'a str,
    pub(crate) method: &'a str,
    pub(crate) name: &'a str,
    pub(crate) caller: Option<String>,
}

/// A member that is present is `Some`, even when it is `null` (serde would read `None`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// Seals and opens `requestState` values.
#[derive(Clone)]
pub(crate) struct Sealer {
    keys: Vec<Vec<u8>>,
    ttl: Duration,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sealer")
            .field("keys", &self.keys.len())
            .field("ttl", &self.ttl)
            .finish()
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl Sealer {
    /// A sealer with this key ring (the first key seals) and time to live.
    pub(crate) fn new(keys: Vec<Vec<u8>>, ttl: Duration) -> Sealer {
        Sealer { keys, ttl }
    }

    /// A fresh random 32-byte key from the OS CSPRNG.
    pub(crate) fn random_key() -> Vec<u8> {
        let mut key = vec![0u8; MIN_KEY_LEN];
        if getrandom::fill(&mut key).is_err() {
            // Without OS randomness there is no safe key; an all-zero key would be forgeable,
            // so fall back to something unguessable from this process's view of time and
            // address space, and say so.
            tracing::error!("the OS random number generator failed; requestState keys are weak");
            let seed = format!("{:?}{:p}", SystemTime::now(), &key);
            let digest = <Sha256 as sha2::Digest>::digest(seed.as_bytes());
            key.copy_from_slice(&digest);
        }
        key
    }

    fn mac(key: &[u8], data: &[u8]) -> Option<HmacSha256> {
        let mut mac = HmacSha256::new_from_slice(key).ok()?;
        mac.update(data);
        Some(mac)
    }

    /// Seals a payload for `method` on `name`, with the expiry set from now.
    pub(crate) fn seal(
        &self,
        target: Target<'_>,
        responses: BTreeMap<String, Value>,
        state: Option<Value>,
    ) -> Option<String> {
        let payload = StatePayload {
            aud: target.audience.to_owned(),
            m: target.method.to_owned(),
            n: target.name.to_owned(),
            exp: now().saturating_add(self.ttl.as_secs()),
            r: responses,
            s: state,
            p: target.caller,
        };
        let json = serde_json::to_vec(&payload).ok()?;
        let tag = Self::mac(self.keys.first()?, &json)?
            .finalize()
            .into_bytes();
        Some(format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(&json),
            URL_SAFE_NO_PAD.encode(tag)
        ))
    }

    /// Opens a sealed state issued by this server for `method` on `name`. Any failure —
    /// malformed, forged, for another server, method or primitive, or expired — is `None`:
    /// the caller answers them all alike.
    pub(crate) fn open(&self, sealed: &str, target: Target<'_>) -> Option<StatePayload> {
        let (body, tag) = sealed.split_once('.')?;
        let json = URL_SAFE_NO_PAD.decode(body).ok()?;
        let tag = URL_SAFE_NO_PAD.decode(tag).ok()?;
        // `verify_slice` compares in constant time.
        let authentic = self
            .keys
            .iter()
            .any(|key| Self::mac(key, &json).is_some_and(|m| m.verify_slice(&tag).is_ok()));
        if !authentic {
            return None;
        }
        let payload: StatePayload = serde_json::from_slice(&json).ok()?;
        (payload.aud == target.audience
            && payload.m == target.method
            && payload.n == target.name
            && payload.p == target.caller
            && payload.exp >= now())
        .then_some(payload)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t<'a>(audience: &'a str, method: &'a str, name: &'a str) -> Target<'a> {
        Target {
            audience,
            method,
            name,
            caller: None,
        }
    }

    fn sealer(key: u8) -> Sealer {
        Sealer::new(vec![vec![key; 32]], Duration::from_secs(600))
    }

    #[test]
    fn a_sealed_state_opens_only_where_it_was_issued() {
        let s = sealer(1);
        let mut r = BTreeMap::new();
        r.insert(
            "user_name".to_owned(),
            serde_json::json!({"action": "accept"}),
        );
        let sealed = s
            .seal(
                t("srv", "tools/call", "t"),
                r.clone(),
                Some(serde_json::json!("x")),
            )
            .unwrap();
        let opened = s.open(&sealed, t("srv", "tools/call", "t")).unwrap();
        assert_eq!(opened.r, r);
        assert_eq!(opened.s, Some(serde_json::json!("x")));

        assert!(s.open(&sealed, t("other", "tools/call", "t")).is_none());
        assert!(s.open(&sealed, t("srv", "prompts/get", "t")).is_none());
        assert!(s.open(&sealed, t("srv", "tools/call", "u")).is_none());
        assert!(
            sealer(2)
                .open(&sealed, t("srv", "tools/call", "t"))
                .is_none()
        );
        assert!(s.open("garbage", t("srv", "tools/call", "t")).is_none());
        assert!(s.open("", t("srv", "tools/call", "t")).is_none());

        // Flip one character of the payload: the tag no longer matches.
        let (body, tag) = sealed.split_once('.').unwrap();
        let mut bytes = body.as_bytes().to_vec();
        bytes[3] = if bytes[3] == b'A' { b'B' } else { b'A' };
        let tampered = format!("{}.{tag}", String::from_utf8(bytes).unwrap());
        assert!(s.open(&tampered, t("srv", "tools/call", "t")).is_none());
    }

    #[test]
    fn rotated_keys_still_open_and_expired_states_do_not() {
        let old = sealer(1);
        let sealed = old
            .seal(t("srv", "tools/call", "t"), BTreeMap::new(), None)
            .unwrap();
        let ring = Sealer::new(vec![vec![2; 32], vec![1; 32]], Duration::from_secs(600));
        assert!(ring.open(&sealed, t("srv", "tools/call", "t")).is_some());

        let expired = Sealer::new(vec![vec![1; 32]], Duration::ZERO);
        let payload = StatePayload {
            aud: "srv".into(),
            m: "tools/call".into(),
            n: "t".into(),
            exp: now() - 1,
            r: BTreeMap::new(),
            s: None,
            p: None,
        };
        let json = serde_json::to_vec(&payload).unwrap();
        let tag = Sealer::mac(&[1; 32], &json)
            .unwrap()
            .finalize()
            .into_bytes();
        let sealed = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(&json),
            URL_SAFE_NO_PAD.encode(tag)
        );
        assert!(expired.open(&sealed, t("srv", "tools/call", "t")).is_none());
    }

    #[test]
    fn a_sealed_state_opens_only_for_the_caller_it_was_issued_to() {
        use crate::principal::Principal;
        let s = sealer(1);
        let alice = Principal::new("alice").with_issuer("https://as.example.com");
        let as_alice = Target {
            caller: caller_binding(Some(&alice)),
            ..t("srv", "tools/call", "t")
        };
        let sealed = s.seal(as_alice.clone(), BTreeMap::new(), None).unwrap();
        assert!(s.open(&sealed, as_alice).is_some());
        let refreshed = alice.clone().with_scopes(["more"]);
        assert!(
            s.open(
                &sealed,
                Target {
                    caller: caller_binding(Some(&refreshed)),
                    ..t("srv", "tools/call", "t")
                }
            )
            .is_some(),
            "a new token of the same caller continues"
        );
        for other in [
            Principal::new("bob").with_issuer("https://as.example.com"),
            Principal::new("alice").with_issuer("https://other.example.com"),
            Principal::new("alice"),
        ] {
            let target = Target {
                caller: caller_binding(Some(&other)),
                ..t("srv", "tools/call", "t")
            };
            assert!(s.open(&sealed, target).is_none(), "{other:?}");
        }
        assert!(
            s.open(&sealed, t("srv", "tools/call", "t")).is_none(),
            "nor anonymously"
        );
        let anonymous = s
            .seal(t("srv", "tools/call", "t"), BTreeMap::new(), None)
            .unwrap();
        let target = Target {
            caller: caller_binding(Some(&alice)),
            ..t("srv", "tools/call", "t")
        };
        assert!(
            s.open(&anonymous, target).is_none(),
            "an anonymous state is not a caller's"
        );
    }

    #[test]
    fn a_null_state_opens_as_set_and_no_state_as_none() {
        // Found by fuzz/request_state: `set_request_state(())` came back as no state at all.
        let s = sealer(1);
        for state in [Some(Value::Null), None] {
            let sealed = s
                .seal(t("srv", "tools/call", "t"), BTreeMap::new(), state.clone())
                .unwrap();
            let opened = s.open(&sealed, t("srv", "tools/call", "t")).unwrap();
            assert_eq!(opened.s, state);
        }
    }

    #[test]
    fn random_keys_differ() {
        assert_ne!(Sealer::random_key(), Sealer::random_key());
        assert_eq!(Sealer::random_key().len(), MIN_KEY_LEN);
    }
}
