//! A legacy session's own data: typed values the server's handlers keep per session, each
//! under a stable key and kept as JSON too, so that a shared session store can carry them
//! to another instance.
//!
//! A value restored from the store is JSON only until a handler reads it as its type.

use std::any::Any;
use std::collections::BTreeMap;
use std::sync::Mutex;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::sync::lock;

/// The most the values of one session may take together, as JSON (keys included).
pub(crate) const MAX_SESSION_DATA: usize = 64 * 1024;

/// Why a session's value was not changed.
#[derive(Debug)]
pub(crate) enum DataError {
    /// The session's values would outgrow [`MAX_SESSION_DATA`].
    TooLarge,
    /// The value did not serialize.
    Serialize(serde_json::Error),
}

/// One value: its JSON (what is stored and moved), and its typed form once read here.
#[derive(Debug)]
struct Slot {
    json: Value,
    /// The JSON's size, counted against the cap.
    size: usize,
    typed: Option<Box<dyn Any + Send>>,
}

/// A session's values, by key.
#[derive(Debug, Default)]
pub(crate) struct SessionSlots {
    slots: Mutex<BTreeMap<String, Slot>>,
}

impl SessionSlots {
    /// The value under `key`: `T::default()` when unset, or when what is stored does not
    /// read as `T` (a type changed between builds; logged).
    pub(crate) fn get<T>(&self, key: &str) -> T
    where
        T: DeserializeOwned + Default + Clone + Send + 'static,
    {
        let mut slots = lock(&self.slots);
        let Some(slot) = slots.get_mut(key) else {
            return T::default();
        };
        if let Some(typed) = slot.typed.as_ref().and_then(|t| t.downcast_ref::<T>()) {
            return typed.clone();
        }
        let value = read::<T>(key, &slot.json);
        slot.typed = Some(Box::new(value.clone()));
        value
    }

    /// Changes the value under `key` with `f` and keeps the result, unless the session's
    /// values would then outgrow the cap or it does not serialize: then nothing changes.
    pub(crate) fn update<T, R>(
        &self,
        key: &str,
        f: impl FnOnce(&mut T) -> R,
    ) -> Result<R, DataError>
    where
        T: Serialize + DeserializeOwned + Default + Send + 'static,
    {
        let mut slots = lock(&self.slots);
        // From the JSON, the value as stored: `f` changes a copy, so a refused change
        // leaves the stored value as it was.
        let mut value = slots
            .get(key)
            .map_or_else(T::default, |slot| read::<T>(key, &slot.json));
        let out = f(&mut value);
        let json = serde_json::to_value(&value).map_err(DataError::Serialize)?;
        let size = key.len() + json_len(&json);
        let others: usize = slots
            .iter()
            .filter(|(k, _)| k.as_str() != key)
            .map(|(_, s)| s.size)
            .sum();
        if others + size > MAX_SESSION_DATA {
            return Err(DataError::TooLarge);
        }
        slots.insert(
            key.to_owned(),
            Slot {
                json,
                size,
                typed: Some(Box::new(value)),
            },
        );
        Ok(out)
    }

    /// Every value as JSON, for the shared store.
    // HTTP only (shared session stores).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn snapshot(&self) -> BTreeMap<String, Value> {
        lock(&self.slots)
            .iter()
            .map(|(k, s)| (k.clone(), s.json.clone()))
            .collect()
    }

    /// Takes the values another instance recorded: a value whose JSON is unchanged keeps
    /// its typed form; the others are read again when a handler asks.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn adopt(&self, data: BTreeMap<String, Value>) {
        let mut slots = lock(&self.slots);
        slots.retain(|k, _| data.contains_key(k));
        for (key, json) in data {
            if slots.get(&key).is_some_and(|s| s.json == json) {
                continue;
            }
            let size = key.len() + json_len(&json);
            slots.insert(
                key,
                Slot {
                    json,
                    size,
                    typed: None,
                },
            );
        }
    }
}

fn json_len(json: &Value) -> usize {
    serde_json::to_vec(json).map_or(usize::MAX / 2, |v| v.len())
}

fn read<T: DeserializeOwned + Default>(key: &str, json: &Value) -> T {
    T::deserialize(json).unwrap_or_else(|e| {
        tracing::warn!(key, error = %e, "a session value does not read as its type; using the default");
        T::default()
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
    struct Counter {
        n: u32,
    }

    #[test]
    fn values_round_trip_through_json() {
        let slots = SessionSlots::default();
        assert_eq!(slots.get::<Counter>("c"), Counter::default());
        assert_eq!(
            slots
                .update("c", |c: &mut Counter| {
                    c.n += 2;
                    c.n
                })
                .unwrap(),
            2
        );
        let moved = SessionSlots::default();
        moved.adopt(slots.snapshot());
        // Restored as JSON, read as its type on first use.
        assert!(lock(&moved.slots)["c"].typed.is_none());
        assert_eq!(moved.get::<Counter>("c"), Counter { n: 2 });
        assert!(lock(&moved.slots)["c"].typed.is_some());
    }

    #[test]
    fn a_change_past_the_cap_is_refused_and_changes_nothing() {
        let slots = SessionSlots::default();
        slots
            .update("s", |s: &mut String| s.push_str("kept"))
            .unwrap();
        let refused = slots.update("s", |s: &mut String| *s = "x".repeat(MAX_SESSION_DATA));
        assert!(matches!(refused, Err(DataError::TooLarge)));
        assert_eq!(slots.get::<String>("s"), "kept");
    }

    #[test]
    fn an_unreadable_value_reads_as_the_default() {
        let slots = SessionSlots::default();
        slots.adopt(BTreeMap::from([(
            "c".to_owned(),
            Value::from("not a counter"),
        )]));
        assert_eq!(slots.get::<Counter>("c"), Counter::default());
    }
}
