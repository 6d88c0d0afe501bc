//! DNS-rebinding protection: `Host` and `Origin` allow-lists, checked before the body is
//! read.
//!
//! The default allows loopback only (`localhost`, `127.0.0.1`, `[::1]`, any port), which is
//! what a server bound to 127.0.0.1 needs and refuses a malicious page that rebinds its own
//! name to 127.0.0.1. A deployment behind a real hostname names its hosts and origins.
//! A request without `Origin` (not from a browser) passes the origin check; a present
//! `Origin` that is not allowed, `null`, or malformed is refused with 403.

use http::HeaderMap;
use http::header::{HOST, ORIGIN};

/// Which `Host` values are served.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HostPolicy {
    /// `localhost`, `127.0.0.1` and `[::1]`, any port (the default).
    Loopback,
    /// These host names (compared without port, case-insensitively), plus loopback.
    Allow(Vec<String>),
    /// Any host: only for servers behind a proxy that checks the host itself.
    Any,
}

/// Which `Origin` values are served (requests without `Origin` always are).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum OriginPolicy {
    /// Loopback origins (`http(s)://localhost|127.0.0.1|[::1]`, any port), the default.
    Loopback,
    /// These exact origins (`scheme://host[:port]`), plus loopback.
    Allow(Vec<String>),
    /// Any origin, including `null`: only when something else authenticates every request.
    Any,
}

const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// The host name of a `Host` value: without its port, lowercased; `None` if malformed.
fn host_name(value: &str) -> Option<String> {
    let value = value.trim();
    if value.is_empty() || value.contains(['@', '/', '\\', ' ', '?', '#']) {
        return None;
    }
    let name = if let Some(rest) = value.strip_prefix('[') {
        let end = rest.find(']')?;
        let after = &rest[end + 1..];
        if !(after.is_empty() || after.strip_prefix(':').is_some_and(is_port)) {
            return None;
        }
        &value[..end + 2]
    } else {
        match value.rsplit_once(':') {
            Some((name, port)) if is_port(port) && !name.contains(':') => name,
            Some(_) => return None,
            None => value,
        }
    };
    (!name.is_empty()).then(|| name.to_ascii_lowercase())
}

fn is_port(s: &str) -> bool {
    !s.is_empty() && s.len() <= 5 && s.bytes().all(|b| b.is_ascii_digit())
}

/// `scheme`, `host name` of an `Origin` value; `None` if malformed or `null`.
fn origin_parts(value: &str) -> Option<(String, String)> {
    let (scheme, rest) = value.trim().split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return None;
    }
    if rest.is_empty() || rest.contains(['/', '@', '?', '#']) {
        return None;
    }
    Some((scheme, host_name(rest)?))
}

/// The configured checks.
#[derive(Debug, Clone)]
pub(crate) struct Guard {
    pub(crate) hosts: HostPolicy,
    pub(crate) origins: OriginPolicy,
}

/// Why a request was refused (403).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    Host(String),
    Origin(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Host(h) => write!(f, "Invalid Host: {h}"),
            Refusal::Origin(o) => write!(f, "Invalid Origin: {o}"),
        }
    }
}

impl Guard {
    /// Checks `Host` (or the request URI's authority, for HTTP/2) and `Origin`.
    pub(crate) fn check(
        &self,
        headers: &HeaderMap,
        authority: Option<&str>,
    ) -> Result<(), Refusal> {
        let host_values: Vec<&str> = headers
            .get_all(HOST)
            .iter()
            .map(|v| v.to_str().unwrap_or("\u{0}"))
            .collect();
        let host = match (host_values.as_slice(), authority) {
            ([one], _) => Some(*one),
            ([], Some(a)) => Some(a),
            ([], None) => None,
            _ => return Err(Refusal::Host("several Host headers".into())),
        };
        if !matches!(self.hosts, HostPolicy::Any) {
            let Some(raw) = host else {
                return Err(Refusal::Host("missing".into()));
            };
            let Some(name) = host_name(raw) else {
                return Err(Refusal::Host(raw.into()));
            };
            let allowed = LOOPBACK.contains(&name.as_str())
                || matches!(&self.hosts, HostPolicy::Allow(list) if list.iter().any(|h| h.eq_ignore_ascii_case(&name)));
            if !allowed {
                return Err(Refusal::Host(raw.into()));
            }
        }
        let origins: Vec<&str> = headers
            .get_all(ORIGIN)
            .iter()
            .map(|v| v.to_str().unwrap_or("\u{0}"))
            .collect();
        match origins.as_slice() {
            [] => Ok(()),
            [origin] => {
                if matches!(self.origins, OriginPolicy::Any) {
                    return Ok(());
                }
                let Some((_, name)) = origin_parts(origin) else {
                    return Err(Refusal::Origin((*origin).into()));
                };
                let allowed = LOOPBACK.contains(&name.as_str())
                    || matches!(&self.origins, OriginPolicy::Allow(list)
                        if list.iter().any(|o| o.trim_end_matches('/').eq_ignore_ascii_case(origin)));
                if allowed {
                    Ok(())
                } else {
                    Err(Refusal::Origin((*origin).into()))
                }
            }
            _ => Err(Refusal::Origin("several Origin headers".into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn headers(host: Option<&str>, origin: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Some(host) = host {
            h.insert(HOST, HeaderValue::from_str(host).unwrap());
        }
        if let Some(origin) = origin {
            h.insert(ORIGIN, HeaderValue::from_str(origin).unwrap());
        }
        h
    }

    fn default_guard() -> Guard {
        Guard {
            hosts: HostPolicy::Loopback,
            origins: OriginPolicy::Loopback,
        }
    }

    #[test]
    fn loopback_hosts_pass_and_others_are_refused() {
        let g = default_guard();
        for ok in [
            "localhost:1234",
            "127.0.0.1:1234",
            "[::1]:8080",
            "LOCALHOST",
            "127.0.0.1",
        ] {
            assert!(g.check(&headers(Some(ok), None), None).is_ok(), "{ok}");
        }
        for bad in [
            "evil.com",
            "evil.com:80",
            "localhost.evil.com",
            "localhost@evil",
            "127.0.0.1.nip.io",
            "[::1]x",
            "localhost:80:80",
            "",
        ] {
            assert!(g.check(&headers(Some(bad), None), None).is_err(), "{bad}");
        }
        assert!(
            g.check(&headers(None, None), None).is_err(),
            "a request must name its host"
        );
        assert!(
            g.check(&headers(None, None), Some("localhost:3000"))
                .is_ok(),
            "HTTP/2 authority"
        );
    }

    #[test]
    fn origins_are_checked_only_when_present() {
        let g = default_guard();
        let host = Some("localhost:3000");
        assert!(g.check(&headers(host, None), None).is_ok());
        for ok in [
            "http://localhost:5173",
            "https://127.0.0.1",
            "http://[::1]:80",
        ] {
            assert!(g.check(&headers(host, Some(ok)), None).is_ok(), "{ok}");
        }
        for bad in [
            "http://evil.example",
            "null",
            "http://user@localhost",
            "file://localhost",
            "localhost",
            "http://localhost.evil.com",
            "http://localhost/path",
        ] {
            assert_eq!(
                g.check(&headers(host, Some(bad)), None),
                Err(Refusal::Origin(bad.into())),
                "{bad}"
            );
        }
    }

    #[test]
    fn explicit_allow_lists_extend_loopback() {
        let g = Guard {
            hosts: HostPolicy::Allow(vec!["mcp.example.com".into()]),
            origins: OriginPolicy::Allow(vec!["https://app.example.com".into()]),
        };
        assert!(
            g.check(
                &headers(Some("mcp.example.com:443"), Some("https://app.example.com")),
                None
            )
            .is_ok()
        );
        assert!(
            g.check(&headers(Some("other.example.com"), None), None)
                .is_err()
        );
        assert!(
            g.check(
                &headers(Some("mcp.example.com"), Some("https://evil.example.com")),
                None
            )
            .is_err()
        );
        let any = Guard {
            hosts: HostPolicy::Any,
            origins: OriginPolicy::Any,
        };
        assert!(
            any.check(&headers(Some("whatever"), Some("null")), None)
                .is_ok()
        );
    }
}
