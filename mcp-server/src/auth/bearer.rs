//! Reading the bearer token: RFC 6750's `Authorization: Bearer <b64token>`, and spotting a
//! token in the query string.

use http::HeaderValue;

pub(super) fn has_query_token(query: Option<&str>) -> bool {
    query.is_some_and(|q| {
        q.split('&')
            .any(|pair| pair.split('=').next() == Some("access_token"))
    })
}

pub(super) enum Bearer<'a> {
    Token(&'a str),
    OtherScheme,
    Malformed,
}

/// The token of `Authorization: Bearer <token>` (RFC 6750 §2.1: the scheme is
/// case-insensitive, the token a `b64token`).
pub(super) fn bearer_token(value: &HeaderValue) -> Bearer<'_> {
    // Bytes, not `to_str`: every byte is checked against the b64token alphabet below anyway,
    // which is visible ASCII only, so the whole value is read once.
    let bytes = value.as_bytes();
    let (scheme, rest) = match bytes.iter().position(|&b| b == b' ') {
        Some(space) => (&bytes[..space], &bytes[space + 1..]),
        None => (bytes, &[][..]),
    };
    if !scheme.eq_ignore_ascii_case(b"bearer") {
        return if scheme.is_empty() || !all_b64token(scheme) {
            Bearer::Malformed
        } else {
            Bearer::OtherScheme
        };
    }
    let start = rest.iter().position(|&b| b != b' ').unwrap_or(rest.len());
    let token = &rest[start..];
    let end = token
        .iter()
        .rposition(|&b| b != b'=')
        .map_or(0, |last| last + 1);
    let body = &token[..end];
    if body.is_empty() || !all_b64token(body) {
        return Bearer::Malformed;
    }
    // ASCII by now: the body by the alphabet, the rest is `=`.
    match std::str::from_utf8(token) {
        Ok(token) => Bearer::Token(token),
        Err(_) => Bearer::Malformed,
    }
}

/// Whether every byte may appear in RFC 6750's `b64token` (before its trailing `=`). Every
/// byte of every token goes through it: range checks with no branch and no early exit
/// inside a chunk, which the compiler turns into vector instructions (a table lookup per
/// byte cannot be).
fn all_b64token(bytes: &[u8]) -> bool {
    bytes
        .chunks(64)
        .all(|chunk| chunk.iter().fold(true, |ok, &b| ok & is_b64token(b)))
}

#[inline(always)]
fn is_b64token(b: u8) -> bool {
    let letter = (b | 0x20).wrapping_sub(b'a') < 26;
    let digit = b.wrapping_sub(b'0') < 10;
    // `-`, `.` and `/` are 0x2d to 0x2f; `+`, `_`, `~` stand alone.
    let punct = b.wrapping_sub(b'-') < 3;
    letter | digit | punct | (b == b'+') | (b == b'_') | (b == b'~')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(v: &str) -> &'static str {
        match bearer_token(&HeaderValue::from_str(v).unwrap()) {
            Bearer::Token(_) => "token",
            Bearer::OtherScheme => "other",
            Bearer::Malformed => "malformed",
        }
    }

    #[test]
    fn bearer_headers_are_parsed_strictly() {
        assert_eq!(parse("Bearer abc.def-ghi_jkl~+/=="), "token");
        assert_eq!(parse("bearer abc"), "token");
        assert_eq!(parse("Basic dXNlcjpwYXNz"), "other");
        assert_eq!(parse("Bearer"), "malformed");
        assert_eq!(parse("Bearer "), "malformed");
        assert_eq!(parse("Bearer a b"), "malformed");
        assert_eq!(parse("Bearer a\"b"), "malformed");
        assert_eq!(parse("Bearer ==="), "malformed");
        assert_eq!(parse(""), "malformed");
        assert_eq!(parse("Bearer   abc=="), "token");
        assert_eq!(parse("Bearer abc= "), "malformed");
        assert_eq!(parse("Bearer ab=c"), "malformed");
        assert_eq!(parse("Bearer\tabc"), "malformed");
        assert_eq!(parse("Bas\tic x"), "malformed");
        assert!(matches!(
            bearer_token(&HeaderValue::from_bytes(b"Bearer abc\x80").unwrap()),
            Bearer::Malformed
        ));
        assert!(matches!(
            bearer_token(&HeaderValue::from_static("Bearer  a.b-c_d~e+f/g==")),
            Bearer::Token("a.b-c_d~e+f/g==")
        ));
    }

    #[test]
    fn the_b64token_table_is_rfc_6750s_alphabet() {
        for b in 0..=255u8 {
            let want = b.is_ascii_alphanumeric() || b"-._~+/".contains(&b);
            assert_eq!(all_b64token(&[b]), want, "byte {b}");
            // Anywhere in a long value.
            let mut long = vec![b'a'; 70];
            long[b as usize % 70] = b;
            assert_eq!(all_b64token(&long), want, "byte {b} in a long value");
        }
    }

    #[test]
    fn query_tokens_are_spotted() {
        assert!(has_query_token(Some("access_token=x")));
        assert!(has_query_token(Some("a=1&access_token")));
        assert!(!has_query_token(Some("not_access_token=x")));
        assert!(!has_query_token(None));
    }
}
