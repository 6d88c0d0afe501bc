//! Settings read from environment variables, so that every instance of a deployment gets
//! them the same way: the `requestState` keys replicas share and the Redis they share
//! sessions through. [`run`](crate::run()) applies both; a server that builds itself calls
//! [`ServerBuilder::request_state_keys_from_env`] and [`redis_url`].
//!
//! | variable | what |
//! |---|---|
//! | `FERROMCP_REQUEST_STATE_KEYS` | keys sealing the 2026 `requestState`: hex, comma-separated, each at least 32 bytes; the first seals, all open (rotation: put the new key first, drop the old one once its states have expired). Unset: one random key per process |
//! | `FERROMCP_REDIS_URL` | the Redis that replicas share legacy sessions, change notifications and tasks through (`redis://HOST:PORT`), when serving HTTP |

use crate::server::{KeyError, ServerBuilder};

/// The variable holding the `requestState` keys (see the [module docs](self)).
pub const REQUEST_STATE_KEYS: &str = "FERROMCP_REQUEST_STATE_KEYS";

/// The variable holding the URL of the Redis replicas share (see the [module docs](self)).
pub const REDIS_URL: &str = "FERROMCP_REDIS_URL";

/// An environment variable holds a value that cannot be used; the message names it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EnvError {
    /// The value is not valid Unicode.
    #[error("{variable}: not valid unicode")]
    NotUnicode {
        /// The variable.
        variable: &'static str,
    },
    /// A key (numbered from 1) is not an even number of hex digits.
    #[error("{variable}: key {index} is not hex (an even number of 0-9 a-f digits)")]
    NotHex {
        /// The variable.
        variable: &'static str,
        /// Which key, from 1.
        index: usize,
    },
    /// The keys were refused (none, or one shorter than 32 bytes).
    #[error("{variable}: {source}")]
    Key {
        /// The variable.
        variable: &'static str,
        /// Why.
        source: KeyError,
    },
}

/// The value of `variable`, `None` when it is unset or empty.
fn var(variable: &'static str) -> Result<Option<String>, EnvError> {
    match std::env::var(variable) {
        Ok(value) if value.trim().is_empty() => Ok(None),
        Ok(value) => Ok(Some(value)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => Err(EnvError::NotUnicode { variable }),
    }
}

/// The keys of `FERROMCP_REQUEST_STATE_KEYS`, decoded; `None` when it is unset or empty.
///
/// # Errors
///
/// A key is not hex, or the value is not Unicode. (Key lengths are checked by
/// [`ServerBuilder::request_state_keys`].)
pub fn request_state_keys() -> Result<Option<Vec<Vec<u8>>>, EnvError> {
    var(REQUEST_STATE_KEYS)?
        .as_deref()
        .map(parse_keys)
        .transpose()
}

/// Comma-separated hex keys.
fn parse_keys(text: &str) -> Result<Vec<Vec<u8>>, EnvError> {
    text.split(',')
        .enumerate()
        .map(|(i, key)| {
            hex(key.trim()).ok_or(EnvError::NotHex {
                variable: REQUEST_STATE_KEYS,
                index: i + 1,
            })
        })
        .collect()
}

/// `text` as bytes, two hex digits each.
fn hex(text: &str) -> Option<Vec<u8>> {
    let digits = text.as_bytes();
    if digits.is_empty() || !digits.len().is_multiple_of(2) {
        return None;
    }
    let digit = |c: u8| char::from(c).to_digit(16);
    digits
        .chunks_exact(2)
        .map(|pair| Some((digit(pair[0])? * 16 + digit(pair[1])?) as u8))
        .collect()
}

/// The URL in `FERROMCP_REDIS_URL`; `None` when it is unset or empty.
///
/// # Errors
///
/// The value is not Unicode.
///
/// # Examples
///
/// ```
/// // Unset here: no Redis.
/// assert_eq!(ferromcp::env::redis_url(), Ok(None));
/// ```
pub fn redis_url() -> Result<Option<String>, EnvError> {
    var(REDIS_URL)
}

impl<H> ServerBuilder<H> {
    /// Sets the `requestState` keys from `FERROMCP_REQUEST_STATE_KEYS` (hex, comma-separated,
    /// the first sealing, every one opening), so that every replica behind a load balancer
    /// opens what another sealed; unset or empty, the builder is unchanged (one random key
    /// per process).
    ///
    /// # Errors
    ///
    /// The variable is set but a key is not hex or is shorter than 32 bytes; the error names
    /// the variable.
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp::ServerBuilder;
    ///
    /// let server = ServerBuilder::new("demo", "1.0.0")
    ///     .request_state_keys_from_env()?
    ///     .build();
    /// # Ok::<(), ferromcp::env::EnvError>(())
    /// ```
    pub fn request_state_keys_from_env(self) -> Result<Self, EnvError> {
        self.request_state_keys_from(var(REQUEST_STATE_KEYS)?)
    }

    /// [`request_state_keys_from_env`](Self::request_state_keys_from_env) with the
    /// variable's value given.
    fn request_state_keys_from(self, value: Option<String>) -> Result<Self, EnvError> {
        match value.as_deref().map(parse_keys).transpose()? {
            Some(keys) => self
                .request_state_keys(keys)
                .map_err(|source| EnvError::Key {
                    variable: REQUEST_STATE_KEYS,
                    source,
                }),
            None => Ok(self),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The builder given `value` for `FERROMCP_REQUEST_STATE_KEYS`.
    fn keys(value: Option<&str>) -> Result<crate::ServerBuilder, EnvError> {
        crate::ServerBuilder::new("t", "1").request_state_keys_from(value.map(str::to_owned))
    }

    #[test]
    fn the_builder_takes_its_keys_from_the_variable() {
        let long = "ab".repeat(32);
        assert!(keys(Some(&long)).is_ok());
        assert!(keys(Some(&format!("{long},{}", "cd".repeat(40)))).is_ok());
        assert!(keys(None).is_ok(), "unset: a random key");
        assert_eq!(
            keys(Some("ab,zz")).unwrap_err().to_string(),
            "FERROMCP_REQUEST_STATE_KEYS: key 2 is not hex (an even number of 0-9 a-f digits)"
        );
        assert_eq!(
            keys(Some(&"ab".repeat(31))).unwrap_err(),
            EnvError::Key {
                variable: REQUEST_STATE_KEYS,
                source: KeyError::TooShort(31)
            }
        );
        assert!(
            keys(Some(&"ab".repeat(31)))
                .unwrap_err()
                .to_string()
                .starts_with("FERROMCP_REQUEST_STATE_KEYS: ")
        );
    }

    #[test]
    fn keys_are_hex_separated_by_commas() {
        assert_eq!(
            parse_keys("00ff, A0b1").unwrap(),
            [vec![0x00, 0xff], vec![0xa0, 0xb1]]
        );
        for (bad, index) in [("abc", 1), ("00,zz", 2), ("00,", 2), ("+1", 1), ("é0", 1)] {
            assert_eq!(
                parse_keys(bad),
                Err(EnvError::NotHex {
                    variable: REQUEST_STATE_KEYS,
                    index
                }),
                "{bad}"
            );
        }
    }
}
