//! Validated tokens, kept until they expire, keyed by the SHA-256 of the token (the token
//! itself is never stored): a repeated token costs a hash and a map lookup.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

use sha2::{Digest, Sha256};

use crate::principal::Principal;
use crate::sync::lock;

/// The cache key of a token.
pub(crate) type TokenKey = [u8; 32];

pub(crate) fn key(token: &str) -> TokenKey {
    Sha256::digest(token.as_bytes()).into()
}

pub(crate) struct TokenCache {
    entries: Mutex<HashMap<TokenKey, (Arc<Principal>, Instant)>>,
    capacity: usize,
}

impl TokenCache {
    pub(crate) fn new(capacity: usize) -> TokenCache {
        TokenCache {
            entries: Mutex::new(HashMap::new()),
            capacity,
        }
    }

    pub(crate) fn get(&self, key: &TokenKey) -> Option<Arc<Principal>> {
        let mut entries = lock(&self.entries);
        match entries.get(key) {
            Some((principal, until)) if Instant::now() < *until => Some(principal.clone()),
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
        cache.insert(key("t1"), Arc::new(p.clone()), until);
        assert_eq!(cache.get(&key("t1")).as_deref(), Some(&p));
        assert!(cache.get(&key("t2")).is_none());

        let expired = Principal::new("b").with_expiry(SystemTime::now() - Duration::from_secs(1));
        cache.insert(
            key("t3"),
            Arc::new(expired.clone()),
            valid_until(&expired, None),
        );
        assert!(
            cache.get(&key("t3")).is_none(),
            "an expired token is not kept"
        );

        let short = valid_until(&p, Some(Duration::ZERO));
        cache.insert(key("t4"), Arc::new(p.clone()), short);
        assert!(
            cache.get(&key("t4")).is_none(),
            "a zero cache lifetime keeps nothing"
        );
    }

    #[test]
    fn the_cache_never_grows_past_its_capacity() {
        let cache = TokenCache::new(3);
        let p = Arc::new(Principal::new("a"));
        let later = Instant::now() + Duration::from_secs(60);
        for i in 0..10 {
            cache.insert(key(&i.to_string()), p.clone(), later);
            assert!(lock(&cache.entries).len() <= 3);
        }
        assert!(cache.get(&key("9")).is_some(), "the newest entry is kept");
    }
}
