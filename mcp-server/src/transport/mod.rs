//! Transports: how messages reach the engine.

pub(crate) mod stdio;
