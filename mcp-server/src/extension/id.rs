//! Extension identifiers: `vendor-prefix/name`, the prefix a reverse domain name.

/// Whether `id` is an extension identifier: a reverse-DNS prefix of at least two labels
/// (each starts with a letter, ends with a letter or digit, and has only letters, digits
/// and hyphens), a `/`, and a name that starts and ends with a letter or digit and has
/// only letters, digits, `-`, `_` and `.` — the `_meta` key rules with the prefix
/// mandatory, as the 2026-07-28 revision asks of `capabilities.extensions` keys.
///
/// # Examples
///
/// ```
/// use ferromcp::extension::is_valid_id;
///
/// assert!(is_valid_id("com.example/echo"));
/// assert!(is_valid_id("io.modelcontextprotocol/ui"));
/// assert!(!is_valid_id("echo"));
/// assert!(!is_valid_id("example/echo"));
/// assert!(!is_valid_id("com.example/echo/v2"));
/// ```
pub fn is_valid_id(id: &str) -> bool {
    let Some((prefix, name)) = id.split_once('/') else {
        return false;
    };
    let mut labels = 0;
    for label in prefix.split('.') {
        if !is_label(label) {
            return false;
        }
        labels += 1;
    }
    labels >= 2 && is_name(name)
}

/// A label of the prefix: starts with a letter; letters, digits and hyphens.
fn is_label(label: &str) -> bool {
    is_part(label, u8::is_ascii_alphabetic, |b| {
        b.is_ascii_alphanumeric() || *b == b'-'
    })
}

/// The name: starts with a letter or digit; letters, digits, `-`, `_` and `.`.
fn is_name(name: &str) -> bool {
    is_part(name, u8::is_ascii_alphanumeric, |b| {
        b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.')
    })
}

/// Whether `part` starts with a byte `first` accepts, ends with a letter or digit, and has
/// only bytes `inner` accepts (so it is not empty).
fn is_part(part: &str, first: fn(&u8) -> bool, inner: fn(&u8) -> bool) -> bool {
    let bytes = part.as_bytes();
    bytes.first().is_some_and(first)
        && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
        && bytes.iter().all(inner)
}

#[cfg(test)]
mod tests {
    use super::is_valid_id;

    #[test]
    fn ids_follow_the_meta_key_rules_with_a_reverse_dns_prefix() {
        for good in [
            "com.example/echo",
            "io.modelcontextprotocol/tasks",
            "dev.my-co.tools/fast_path.v2",
            "a.b/c",
            "org.x9/0",
        ] {
            assert!(is_valid_id(good), "{good}");
        }
        for bad in [
            "",
            "/",
            "echo",
            "com.example/",
            "/echo",
            "example/echo",
            "com..example/echo",
            "com.example-/echo",
            "9com.example/echo",
            "com.example/-echo",
            "com.example/echo_",
            "com.example/e/cho",
            "com.example/e cho",
            "com.exa_mple/echo",
            "com.example/ëcho",
        ] {
            assert!(!is_valid_id(bad), "{bad}");
        }
    }
}
