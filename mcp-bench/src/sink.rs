//! `otlp-sink`: a stand-in collector for benchmarks of `serve --otlp`.

/// `otlp-sink`: accepts any OTLP export on 127.0.0.1:`port`, over HTTP/protobuf or gRPC (by
/// its content type), with an empty success response, and writes one line per export to
/// stderr (path and body size), so that a benchmark of `serve --otlp` sends to a live
/// collector without measuring one.
pub async fn otlp_sink(port: u16) -> Result<(), Box<dyn std::error::Error>> {
    use axum::response::IntoResponse as _;
    let app = axum::Router::new().fallback(
        |uri: axum::http::Uri, headers: axum::http::HeaderMap, body: axum::body::Bytes| async move {
            eprintln!("otlp-sink: {} {} bytes", uri.path(), body.len());
            let grpc = headers
                .get("content-type")
                .is_some_and(|t| t.as_bytes().starts_with(b"application/grpc"));
            if grpc {
                // An empty reply message, then the status in the trailers.
                use http_body_util::BodyExt as _;
                let mut trailers = axum::http::HeaderMap::new();
                trailers.insert("grpc-status", axum::http::HeaderValue::from_static("0"));
                let body = http_body_util::Full::new(bytes::Bytes::from_static(&[0; 5]))
                    .with_trailers(async move { Some(Ok(trailers)) });
                (
                    [("content-type", "application/grpc")],
                    axum::body::Body::new(body),
                )
                    .into_response()
            } else {
                (
                    [("content-type", "application/x-protobuf")],
                    axum::body::Body::empty(),
                )
                    .into_response()
            }
        },
    );
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("otlp-sink: listening on http://{}", listener.local_addr()?);
    axum::serve(listener, app)
        .with_graceful_shutdown(ferromcp::http::shutdown_signal())
        .await?;
    Ok(())
}
