//! The path check on resource template variables, on by default: a value that could take a
//! handler that joins it to a directory outside that directory is refused with -32602
//! before the handler runs. The resources spec says servers "MUST sanitize file paths";
//! a template variable is where a client's text most often becomes one (`file:///{path}`),
//! and a `%2F` in a simple `{var}` decodes to `/`.
//!
//! Refused, in the decoded value (each item of a list, each value of an object): a NUL
//! byte, a `..` component (split at `/` and `\`, so `HEAD~3..HEAD` and `v1.0..v2.0` pass),
//! an absolute path (`/…`, `\…`, which also covers UNC `\\server\share`), and a drive
//! (`C:`, `C:\…`, `C:/…`). A variable that is not a path, or whose handler confines it
//! itself, is exempted by name when the template is registered.

use ferromcp_core::error::ErrorObject;
use ferromcp_core::uri_template::{Match, Value};

/// Why `value` is refused as a path, if it is.
pub(crate) fn refusal(value: &str) -> Option<&'static str> {
    let b = value.as_bytes();
    if b.contains(&0) {
        return Some("contains a NUL byte");
    }
    if matches!(b.first(), Some(b'/' | b'\\')) {
        return Some("is an absolute path");
    }
    if b.len() >= 2
        && b[0].is_ascii_alphabetic()
        && b[1] == b':'
        && matches!(b.get(2), None | Some(b'/' | b'\\'))
    {
        return Some("names a drive");
    }
    if value.split(['/', '\\']).any(|c| c == "..") {
        return Some("has a `..` component");
    }
    None
}

/// Checks every variable of `vars` but those named in `unchecked`.
///
/// # Errors
///
/// -32602 naming the first refused variable and why.
pub(crate) fn check(vars: &Match, unchecked: &[String]) -> Result<(), ErrorObject> {
    for (name, value) in vars.iter() {
        if unchecked.iter().any(|u| u == name) {
            continue;
        }
        if let Some(why) = first_refusal(value) {
            return Err(ErrorObject::invalid_params(format!(
                "the URI's `{name}` is refused: it {why} (resource template variables are \
                 checked as paths unless the template exempts them)"
            )));
        }
    }
    Ok(())
}

fn first_refusal(value: &Value) -> Option<&'static str> {
    match value {
        Value::String(s) => refusal(s),
        Value::List(items) => items.iter().find_map(|i| refusal(i)),
        Value::Map(entries) => entries.iter().find_map(|(_, v)| refusal(v)),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use ferromcp_core::uri_template::UriTemplate;

    use super::*;

    /// SECURITY.md row 17's table, through the matcher (so percent-encoded forms are
    /// decoded first, as a handler sees them).
    #[test]
    fn traversal_absolute_drive_unc_and_nul_are_refused_after_decoding() {
        let t = UriTemplate::parse("file:///{name}").unwrap();
        for (uri, why) in [
            ("file:///..%2Fetc%2Fpasswd", "has a `..` component"),
            ("file:///..%2Fetc", "has a `..` component"),
            ("file:///%2E%2E%2Fetc", "has a `..` component"),
            ("file:///..%5Cetc", "has a `..` component"),
            ("file:///a%2F..%2F..%2Fb", "has a `..` component"),
            ("file:///..", "has a `..` component"),
            ("file:///x%00", "contains a NUL byte"),
            ("file:///%00", "contains a NUL byte"),
            ("file:///%2Fetc%2Fpasswd", "is an absolute path"),
            ("file:///C%3A%5Cx", "names a drive"),
            ("file:///c%3A", "names a drive"),
            ("file:///%5C%5Csrv%5Cshare", "is an absolute path"),
        ] {
            let m = t.matches(uri).unwrap_or_else(|| panic!("{uri} matches"));
            let e = check(&m, &[]).expect_err(uri);
            assert_eq!(e.code.0, -32602, "{uri}");
            assert!(e.message.contains(why), "{uri}: {}", e.message);
            assert!(e.message.contains("`name`"), "{uri}: {}", e.message);
            // Exempted by name, the same value passes.
            check(&m, &["name".to_owned()]).unwrap();
        }
        for uri in [
            "file:///HEAD~3..HEAD",
            "file:///v1.0..v2.0",
            "file:///notes%2Fday.md",
            "file:///...",
            "file:///a%3Ab",
            "file:///report.txt",
        ] {
            let m = t.matches(uri).unwrap_or_else(|| panic!("{uri} matches"));
            check(&m, &[]).unwrap_or_else(|e| panic!("{uri}: {e}"));
        }
    }

    #[test]
    fn every_item_of_an_exploded_variable_is_checked() {
        let t = UriTemplate::parse("repo://x{/segments*}").unwrap();
        let ok = t.matches("repo://x/a/b").unwrap();
        check(&ok, &[]).unwrap();
        let bad = t.matches("repo://x/a/../b").unwrap();
        assert!(check(&bad, &[]).is_err());
        let q = UriTemplate::parse("q://x{?opts*}").unwrap();
        let bad = q.matches("q://x?a=1&b=..").unwrap();
        assert!(check(&bad, &[]).is_err(), "{bad:?}");
    }
}
