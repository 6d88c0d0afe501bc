//! OpenTelemetry for [ferromcp] servers: traces and metrics named and attributed by
//! the semantic conventions for MCP, exported over OTLP by the OpenTelemetry project's own
//! exporter as the standard `OTEL_*` variables configure it, and Prometheus text.
//!
//! One line turns it on: [`Otel`] is a [`ferromcp::observe::Observer`].
//!
//! ```no_run
//! # use ferromcp::prelude::*;
//! # struct Demo;
//! # #[ferromcp::server(name = "demo")]
//! # impl Demo {
//! #     /// Echoes.
//! #     #[tool]
//! #     fn echo(&self, text: String) -> String { text }
//! # }
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let server = Server::builder(Demo)
//!     .observer(ferromcp_otel::Otel::from_env()?)
//!     .build()?;
//! # let _ = server;
//! # Ok(())
//! # }
//! ```
//!
//! With `ferromcp::run`, the runner takes it:
//! `ferromcp::Runner::for_server::<Demo>().observer_from(ferromcp_otel::Otel::from_env).serve(Demo)`.
//!
//! Every request a server answers, over stdio or HTTP and in either era, becomes a SERVER
//! span named `"{mcp.method.name} {target}"` (`tools/call add`, `prompts/get review`,
//! `tools/list`) and a sample of the `mcp.server.operation.duration` histogram. A W3C
//! `traceparent` (and `tracestate`) in the request's `params._meta` is the span's parent,
//! and the span is the current OpenTelemetry context while the handler runs, so spans a
//! tool makes are its children; the notifications and requests the handler sends carry the
//! span's context in their own `_meta`. Legacy sessions record
//! `mcp.server.session.duration` when they end.
//!
//! | instrument | kind | unit | attributes |
//! |---|---|---|---|
//! | `mcp.server.operation.duration` | histogram | s | `mcp.method.name`, `mcp.protocol.version`, `network.transport`, `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.prompt.name`, `error.type`, `rpc.response.status_code` |
//! | `mcp.server.session.duration` | histogram | s | `mcp.protocol.version`, `network.transport` |
//! | `mcp.client.operation.duration` | histogram | s | `mcp.method.name`, `mcp.protocol.version`, `network.transport`, `error.type` (a JSON-RPC code, `timeout` or `cancelled`), `rpc.response.status_code` |
//! | `mcp.server.active_requests` | up-down counter | `{request}` | `network.transport` |
//! | `mcp.server.active_sessions` | up-down counter | `{session}` | `network.transport` |
//! | `mcp.server.active_tasks` | up-down counter | `{task}` | — |
//! | `mcp.server.active_listen_streams` | up-down counter | `{stream}` | — |
//!
//! The last two are this crate's (the conventions name no such instruments): tasks running
//! in this process, and open `subscriptions/listen` streams. The histograms use the
//! conventions' bucket boundaries (10 ms to 300 s). [`Prometheus`] renders a meter
//! provider's metrics in the Prometheus text format, for a `/metrics` route.
//!
//! With providers of your own, [`Telemetry`] is the observer:
//!
//! ```
//! use ferromcp::ServerBuilder;
//! use ferromcp::observe::Tracing;
//! use ferromcp_otel::{Prometheus, Telemetry};
//! use opentelemetry_sdk::metrics::SdkMeterProvider;
//! use opentelemetry_sdk::trace::SdkTracerProvider;
//!
//! let prometheus = Prometheus::new();
//! let meters = SdkMeterProvider::builder()
//!     .with_reader(prometheus.reader())
//!     .build();
//! // An exporter goes on the tracer provider (`with_batch_exporter`); none here.
//! let tracers = SdkTracerProvider::builder().build();
//! let server = ServerBuilder::new("demo", "1.0.0")
//!     // `Tracing` keeps the default `tracing` spans and events too.
//!     .observer((Tracing, Telemetry::new(&tracers, &meters)))
//!     .build();
//! # let _ = server;
//! ```
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod client;
mod export;
mod instruments;
mod prometheus;
mod propagation;
mod request;
mod samples;
mod series;
mod telemetry;

pub use export::{Otel, OtelError};

/// The guide's observability page, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/observability.md")]
mod guide {}
pub use prometheus::{Prometheus, PrometheusReader};
pub use telemetry::Telemetry;
