//! The envelope parser against the messages MCP allows and the ones it refuses.

use super::*;
use crate::jsonrpc::{EnvelopeErrorKind, RequestId};
use crate::rpc_error::ErrorCode;

fn single(bytes: &str) -> Message {
    match parse(bytes.as_bytes()).unwrap() {
        Incoming::Single(m) => m,
        Incoming::Batch(_) => panic!("unexpected batch"),
    }
}

fn err(bytes: &str) -> EnvelopeError {
    parse(bytes.as_bytes()).unwrap_err()
}

#[test]
fn classifies_the_four_message_kinds() {
    let Message::Request(r) =
        single(r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"a"}}"#)
    else {
        panic!()
    };
    assert_eq!(r.id, RequestId::from("x"));
    assert_eq!(r.params.unwrap().get(), r#"{"name":"a"}"#);

    let Message::Notification(n) =
        single(r#"{"method":"notifications/initialized","jsonrpc":"2.0"}"#)
    else {
        panic!()
    };
    assert_eq!(n.method, "notifications/initialized");

    let Message::Response(r) = single(r#"{"jsonrpc":"2.0","id":3,"result":{"a":[1,2]}}"#) else {
        panic!()
    };
    assert_eq!(r.id, RequestId::Number(3));
    assert_eq!(r.result.get(), r#"{"a":[1,2]}"#);

    let Message::Error(e) =
        single(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad"}}"#)
    else {
        panic!()
    };
    assert_eq!(e.id, None);
    assert_eq!(e.error.code, ErrorCode::INVALID_REQUEST);
}

#[test]
fn parse_errors_are_told_from_invalid_requests() {
    for bad in [
        "",
        "garbage",
        "{",
        r#"{"jsonrpc":"2.0","id":1,"method":"x""#,
        "[",
        "{sds}",
    ] {
        assert_eq!(err(bad).kind, EnvelopeErrorKind::Parse, "{bad:?}");
        assert_eq!(err(bad).code(), ErrorCode::PARSE_ERROR);
    }
    // A structural problem early in the input must not hide a later syntax error.
    assert_eq!(
        err(r#"{"jsonrpc":"1.0","id":1,"method": }"#).kind,
        EnvelopeErrorKind::Parse
    );
    for bad in [
        "{}",
        "[]",
        "1",
        "\"str\"",
        "null",
        r#"{"id":1,"method":"x"}"#,
        r#"{"jsonrpc":"1.0","id":1,"method":"x"}"#,
        r#"{"jsonrpc":2.0,"id":1,"method":"x"}"#,
        r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#,
        r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#,
        r#"{"jsonrpc":"2.0","id":{},"method":"x"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x","params":"str"}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x","result":{}}"#,
        r#"{"jsonrpc":"2.0","result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":1}"#,
    ] {
        assert_eq!(err(bad).kind, EnvelopeErrorKind::InvalidRequest, "{bad}");
        assert_eq!(err(bad).code(), ErrorCode::INVALID_REQUEST);
    }
}

#[test]
fn invalid_utf8_is_a_parse_error_wherever_it_is() {
    // Found by fuzz/envelope: a byte that is not UTF-8 in a member the envelope skips
    // was accepted, so a message that is not JSON passed as a valid notification.
    for bad in [
        &b"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"junk\":\"\xf4\"}"[..],
        b"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"\xff\":1}",
        b"[{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"junk\":\"\xc3\"}]",
    ] {
        assert_eq!(parse(bad).unwrap_err().kind, EnvelopeErrorKind::Parse);
        assert_eq!(
            parse_message(bad).unwrap_err().kind,
            EnvelopeErrorKind::Parse
        );
    }
    assert!(parse("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"é\":\"✓\"}".as_bytes()).is_ok());
}

#[test]
fn duplicate_envelope_keys_are_rejected_without_picking_a_winner() {
    for bad in [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call"}"#,
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}"#,
        r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"x"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{},"params":{}}"#,
    ] {
        let e = err(bad);
        assert_eq!(e.kind, EnvelopeErrorKind::InvalidRequest, "{bad}");
        assert!(e.message.contains("duplicate"), "{}", e.message);
    }
    // Look-alike keys are not the envelope keys; they are ignored.
    let Message::Request(r) =
        single(r#"{"jsonrpc":"2.0","id":1,"method":"a","Method":"b","method\u0000":"c"}"#)
    else {
        panic!()
    };
    assert_eq!(r.method, "a");
}

#[test]
fn invalid_requests_echo_the_id_when_it_can_be_read() {
    assert_eq!(
        err(r#"{"jsonrpc":"1.0","id":42,"method":"x"}"#).id,
        Some(RequestId::Number(42))
    );
    assert_eq!(
        err(r#"{"id":"k","method":"x"}"#).id,
        Some(RequestId::from("k"))
    );
    assert_eq!(err("garbage").id, None);
}

#[test]
fn batches_are_reported_element_by_element() {
    let Incoming::Batch(items) =
        parse(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}, 5, {"jsonrpc":"2.0","method":"n"}]"#)
            .unwrap()
    else {
        panic!()
    };
    assert_eq!(items.len(), 3);
    assert!(matches!(items[0], Ok(Message::Request(_))));
    assert_eq!(
        items[1].as_ref().unwrap_err().kind,
        EnvelopeErrorKind::InvalidRequest
    );
    assert!(matches!(items[2], Ok(Message::Notification(_))));
    assert_eq!(err("[]").kind, EnvelopeErrorKind::InvalidRequest);
    assert_eq!(err("[1,").kind, EnvelopeErrorKind::Parse);
    assert_eq!(
        parse_message(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#)
            .unwrap_err()
            .kind,
        EnvelopeErrorKind::InvalidRequest
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"x","params":{{"a":{}{}}}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let e = err(&deep);
    assert_eq!(e.kind, EnvelopeErrorKind::Parse);
    assert_eq!(e.id, Some(RequestId::Number(1)));
    let at_limit = |depth: usize| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"x","params":{{"s":"[[[{{\"]]","a":{}{}}}}}"#,
            "[".repeat(depth - 1),
            "]".repeat(depth - 1)
        )
    };
    // `params` itself is one level; brackets inside strings do not count.
    assert!(parse(at_limit(MAX_NESTING).as_bytes()).is_ok());
    assert_eq!(
        err(&at_limit(MAX_NESTING + 1)).kind,
        EnvelopeErrorKind::Parse
    );
    let Message::Request(r) = single(&at_limit(MAX_NESTING)) else {
        panic!()
    };
    assert!(serde_json::from_str::<serde_json::Value>(r.params.unwrap().get()).is_ok());
}

#[test]
fn an_owned_buffer_is_kept_and_params_point_into_it() {
    let line = br#" {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a long text"}},"x":1}"#;
    let buffer = line.to_vec();
    let span = buffer.as_ptr() as usize..buffer.as_ptr() as usize + buffer.len();
    let Ok(Incoming::Single(Message::Request(r))) = parse_owned(buffer) else {
        panic!()
    };
    let params = r.params.unwrap();
    assert_eq!(
        params.get(),
        r#"{"name":"echo","arguments":{"text":"a long text"}}"#
    );
    // Not a copy: the text lies in the buffer that was given.
    assert!(span.contains(&(params.get().as_ptr() as usize)));
    // A clone or a borrowed parse holds only the value.
    let clone = params.clone();
    assert_eq!(clone, params);
    assert!(!span.contains(&(clone.get().as_ptr() as usize)));
    let Message::Request(borrowed) = single(std::str::from_utf8(line).unwrap()) else {
        panic!()
    };
    assert_eq!(borrowed.params.as_ref(), Some(&params));
    assert!(!span.contains(&(borrowed.params.unwrap().get().as_ptr() as usize)));
}

#[test]
fn a_buffer_mostly_not_params_is_not_kept() {
    let pad = "p".repeat(100_000);
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"x"}},"pad":"{pad}"}}"#
    );
    let buffer = line.clone().into_bytes();
    let span = buffer.as_ptr() as usize..buffer.as_ptr() as usize + buffer.len();
    let Ok(Incoming::Single(Message::Request(r))) = parse_owned(buffer) else {
        panic!()
    };
    let params = r.params.unwrap();
    assert_eq!(params.get(), r#"{"name":"x"}"#);
    assert!(!span.contains(&(params.get().as_ptr() as usize)));
    // Spare room counts as not params too.
    let mut roomy = Vec::with_capacity(64 * 1024);
    roomy.extend_from_slice(br#"{"jsonrpc":"2.0","id":1,"method":"a","params":[1]}"#);
    let start = roomy.as_ptr() as usize;
    let Ok(Incoming::Single(Message::Request(r))) = parse_owned(roomy) else {
        panic!()
    };
    assert_ne!(r.params.unwrap().get().as_ptr() as usize, start + 46);
}

#[test]
fn owned_and_borrowed_reads_agree() {
    let cases: &[&[u8]] = &[
        br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#,
        br#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#,
        br#"{"jsonrpc":"2.0","id":1,"result":{"ok":true}}"#,
        br#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}"#,
        br#"  [{"jsonrpc":"2.0","id":1,"method":"a","params":[1]},{"jsonrpc":"1.0"}]"#,
        br#"{"jsonrpc":"2.0","id":1,"method":"a","params":3}"#,
        br#"{"jsonrpc":"2.0","id":1,"method":"a","params":{},"params":{}}"#,
        br#"{"jsonrpc":"2.0","id":1,"method":"a","params":{"#,
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
        b"[]",
        b"",
    ];
    for case in cases {
        assert_eq!(
            format!("{:?}", parse_owned(case.to_vec())),
            format!("{:?}", parse(case)),
            "{}",
            String::from_utf8_lossy(case)
        );
    }
    let Ok(Incoming::Single(Message::Notification(n))) = parse_owned(cases[0].to_vec()) else {
        panic!()
    };
    assert_eq!(n.params.unwrap().get(), r#"{"progress":1}"#);
}
