//! The line to the client: where a request's or a connection's outgoing messages go
//! ([`sink`]), what a connection and its legacy session hold ([`session`]), and how a
//! server-to-client request can fail ([`outbound`]), and what the server keeps per session
//! ([`data`]).
//!
//! It sits below both the engine and [`Context`](crate::Context): handlers reach the client
//! through it, the engine and the transports own its connections, and it knows neither.

pub(crate) mod data;
pub(crate) mod outbound;
pub(crate) mod session;
pub(crate) mod sink;
