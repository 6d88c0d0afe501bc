//! `ferromcp_core::jsonrpc::parse`: the one envelope parse every incoming line goes through;
//! `ferromcp_core::jsonrpc::to_string`: the one writer every outgoing message goes through,
//! beside `serde_json::to_string` on the same values.
//!
//! `params` stays raw, so the large request measures how fast the parser skips over 10 KB
//! of arguments it does not interpret, not how fast serde builds them.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ferromcp_core::jsonrpc::{Incoming, parse};
use serde_json::json;

/// A `tools/call` with `count` argument records of about 100 bytes each.
fn tools_call(id: u64, count: usize) -> Vec<u8> {
    let records: Vec<_> = (0..count)
        .map(|i| {
            json!({
                "name": format!("record-{i:04}"),
                "tags": ["alpha", "beta", "gamma"],
                "score": i as f64 * 0.25,
                "note": "a short note \"quoted\" \u{e9}"
            })
        })
        .collect();
    let request = json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": {"name": "ingest", "arguments": {"records": records}}
    });
    serde_json::to_vec(&request).unwrap_or_default()
}

fn envelope(c: &mut Criterion) {
    let small = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}"#.to_vec();
    let large = tools_call(8, 100);
    let notification = br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p-1","progress":3,"total":10,"message":"indexing"}}"#.to_vec();
    let batch = {
        let mut batch = b"[".to_vec();
        for i in 0..10 {
            if i > 0 {
                batch.push(b',');
            }
            if i % 2 == 0 {
                batch.extend_from_slice(&tools_call(i, 1));
            } else {
                batch.extend_from_slice(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#);
            }
        }
        batch.push(b']');
        batch
    };
    assert!(
        large.len() > 10_000,
        "the large request is {} bytes",
        large.len()
    );
    assert!(matches!(parse(&batch), Ok(Incoming::Batch(m)) if m.iter().all(Result::is_ok)));

    let mut group = c.benchmark_group("jsonrpc_parse");
    for (name, bytes) in [
        ("tools_call_small", &small),
        ("tools_call_10kb", &large),
        ("notification", &notification),
        ("batch_of_10", &batch),
    ] {
        assert!(matches!(
            parse(bytes),
            Ok(Incoming::Single(_) | Incoming::Batch(_))
        ));
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(name, |b| b.iter(|| parse(black_box(bytes))));
    }
    group.finish();
}

/// A `tools/call` response as the engine writes it: a text block, `_meta` for 2026.
fn call_response(text: &str) -> serde_json::Value {
    json!({
        "jsonrpc": "2.0",
        "id": 42,
        "result": {
            "content": [{"type": "text", "text": text}],
            "isError": false,
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "bench", "version": "0.1.0"}}
        }
    })
}

fn write(c: &mut Criterion) {
    let values = [
        ("small_response", call_response("hello")),
        ("text_100k", call_response(&"lorem ipsum ".repeat(8_334))),
        (
            "text_100k_escapes",
            call_response(&"line \"one\"\n\tindented\\ ".repeat(4_000)),
        ),
        (
            "records_10k",
            serde_json::from_slice(&tools_call(9, 100)).unwrap_or_default(),
        ),
    ];
    let mut group = c.benchmark_group("json_write");
    for (name, value) in &values {
        let len = serde_json::to_string(value).map(|s| s.len()).unwrap_or(0);
        assert_eq!(
            ferromcp_core::jsonrpc::to_string(value).ok(),
            serde_json::to_string(value).ok()
        );
        group.throughput(Throughput::Bytes(len as u64));
        group.bench_function(format!("{name}/sdk"), |b| {
            b.iter(|| ferromcp_core::jsonrpc::to_string(black_box(value)))
        });
        group.bench_function(format!("{name}/serde_json"), |b| {
            b.iter(|| serde_json::to_string(black_box(value)))
        });
    }
    group.finish();
}

criterion_group!(benches, envelope, write);
criterion_main!(benches);
