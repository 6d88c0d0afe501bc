//! Validated tokens, kept until they expire, keyed by a keyed hash of the token (the token
//! itself is never stored): a repeated token costs a hash and a map lookup.
//!
//! The hash is SipHash-2-4 with a 128-bit output under a random key drawn when the cache is
//! made. As a keyed PRF it gives the same guarantee a SHA-256 digest gave here: a token can
//! only find an entry made for the same token (an accidental collision between two tokens is
//! a 2^-128 event per pair, and without the key nobody can aim for one). It costs a few
//! instructions per byte; SHA-256 costs about fifty on CPUs without SHA extensions, which for
//! a typical 900-byte JWT was half the cost of a whole `tools/call`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use siphasher::sip128::SipHasher24;
use tokio::time::Instant;

use crate::principal::Principal;
use crate::sync::lock;

/// The cache key of a token.
pub(crate) type TokenKey = u128;

pub(crate) struct TokenCache {
    entries: Mutex<HashMap<TokenKey, (Arc<Principal>, Instant)>>,
    capacity: usize,
    hasher: SipHasher24,
}

impl TokenCache {
    pub(crate) fn new(capacity: usize) -> TokenCache {
        let mut key = [0u8; 16];
        if getrandom::fill(&mut key).is_err() {
            // A known key would still not let anyone reach another caller's entry (that needs
            // the other caller's token), but it would let a token be crafted to collide with
            // one's own; say so rather than fail.
            tracing::error!("the OS random number generator failed; the token cache key is fixed");
        }
        TokenCache {
            entries: Mutex::new(HashMap::new()),
            capacity,
            hasher: SipHasher24::new_with_key(&key),
        }
    }

    /// The key `token` is cached under.
    pub(crate) fn key(&self, token: &str) -> TokenKey {
        self.hasher.hash(token.as_bytes()).as_u128()
    }

    /// The principal cached under `key` and until when it holds.
    pub(crate) fn get(&self, key: &TokenKey) -> Option<(Arc<Principal>, Instant)> {
        let mut entries = lock(&self.entries);
        match entries.get(key) {
            Some((principal, until)) if Instant::now() < *until => {
                Some((principal.clone(), *until))
            }
            Some(_) => {
                entries.remove(key);
                None
            }
            None => None,
        }
    }

    /// Keeps `principal` until `until`, or not at all when that is already past. At
    /// capacity, expired entries go first, then everything (a flood of distinct valid tokens
    /// costs validations, never memory).
    pub(crate) fn insert(&self, key: TokenKey, principal: Arc<Principal>, until: Instant) {
        if until <= Instant::now() || self.capacity == 0 {
            return;
        }
        let mut entries = lock(&self.entries);
        if entries.len() >= self.capacity {
            let now = Instant::now();
            entries.retain(|_, (_, until)| *until > now);
            if entries.len() >= self.capacity {
                entries.clear();
            }
        }
        entries.insert(key, (principal, until));
    }
}

/// When a validation stops being reusable: the token's expiry, capped by the validator's
/// cache lifetime.
pub(crate) fn valid_until(principal: &Principal, ttl: Option<std::time::Duration>) -> Instant {
    let now = Instant::now();
    let by_expiry = principal
        .expires_at()
        .map(|exp| exp.duration_since(SystemTime::now()).unwrap_or_default());
    let lifetime = match (by_expiry, ttl) {
        (Some(a), Some(b)) => a.min(b),
        (Some(a), None) => a,
        (None, Some(b)) => b,
        (None, None) => std::time::Duration::ZERO,
    };
    now + lifetime
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn entries_live_until_the_token_expires() {
        let cache = TokenCache::new(2);
        let p = Principal::new("a").with_expiry(SystemTime::now() + Duration::from_secs(60));
        let until = valid_until(&p, None);
        cache.insert(cache.key("t1"), Arc::new(p.clone()), until);
        assert_eq!(
            cache.get(&cache.key("t1")).map(|(p, _)| p).as_deref(),
            Some(&p)
        );
        assert!(cache.get(&cache.key("t2")).is_none());

        let expired = Principal::new("b").with_expiry(SystemTime::now() - Duration::from_secs(1));
        cache.insert(
            cache.key("t3"),
            Arc::new(expired.clone()),
            valid_until(&expired, None),
        );
        assert!(
            cache.get(&cache.key("t3")).is_none(),
            "an expired token is not kept"
        );

        let short = valid_until(&p, Some(Duration::ZERO));
        cache.insert(cache.key("t4"), Arc::new(p.clone()), short);
        assert!(
            cache.get(&cache.key("t4")).is_none(),
            "a zero cache lifetime keeps nothing"
        );
    }

    #[test]
    fn keys_are_per_token_and_per_cache() {
        let (a, b) = (TokenCache::new(1), TokenCache::new(1));
        assert_eq!(a.key("token"), a.key("token"));
        assert_ne!(a.key("token"), a.key("tokeo"));
        assert_ne!(a.key("token"), a.key("token "));
        assert_ne!(
            a.key("token"),
            b.key("token"),
            "each cache draws its own random key"
        );
    }

    #[test]
    fn the_cache_never_grows_past_its_capacity() {
        let cache = TokenCache::new(3);
        let p = Arc::new(Principal::new("a"));
        let later = Instant::now() + Duration::from_secs(60);
        for i in 0..10 {
            cache.insert(cache.key(&i.to_string()), p.clone(), later);
            assert!(lock(&cache.entries).len() <= 3);
        }
        assert!(
            cache.get(&cache.key("9")).is_some(),
            "the newest entry is kept"
        );
    }
}
