//! Transports: how messages reach the engine.

pub(crate) mod stdio;

#[cfg(feature = "http")]
pub(crate) mod http;
