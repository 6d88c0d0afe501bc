//! Protocol revisions, their eras, and version negotiation.
//!
//! MCP names its revisions by date. The 2024 and 2025 revisions form the *legacy era*
//! (an `initialize` handshake, sessions, server-to-client requests); the 2026-07-28
//! revision starts the *modern era* (stateless: every request carries its protocol
//! version and client capabilities in `_meta`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One revision of the Model Context Protocol.
///
/// Variants are ordered by release date, so `a < b` means `a` is older.
///
/// # Examples
///
/// ```
/// use ferromcp_core::{Era, ProtocolVersion};
///
/// let v: ProtocolVersion = "2025-06-18".parse().unwrap();
/// assert_eq!(v.era(), Era::Legacy);
/// assert!(v < ProtocolVersion::V2026_07_28);
/// assert_eq!(v.as_str(), "2025-06-18");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// `2024-11-05`: the first revision (stdio and HTTP+SSE; served here over stdio and
    /// Streamable HTTP). No tool annotations, audio, structured output or elicitation.
    V2024_11_05,
    /// `2025-03-26`: Streamable HTTP, JSON-RPC batches, tool annotations.
    V2025_03_26,
    /// `2025-06-18`: structured tool output, elicitation, no batches.
    V2025_06_18,
    /// `2025-11-25`: URL elicitation, icons, tasks, sampling with tools.
    V2025_11_25,
    /// `2026-07-28`: the stateless revision (`server/discover`, per-request `_meta`, MRTR).
    V2026_07_28,
}

/// The two families of protocol revisions, which differ in their whole interaction model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// 2024 and 2025 revisions: `initialize`, capability negotiation once per session, sessions over
    /// HTTP, server-to-client requests.
    Legacy,
    /// 2026-07-28 and later: no handshake; each request carries its version and the client's
    /// capabilities, `server/discover`, multi round-trip requests.
    Modern,
}

impl ProtocolVersion {
    /// Every revision this crate models, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];

    /// The legacy-era revisions, oldest first.
    pub const LEGACY: [ProtocolVersion; 4] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
    ];

    /// The modern-era revisions, oldest first.
    pub const MODERN: [ProtocolVersion; 1] = [ProtocolVersion::V2026_07_28];

    /// The newest legacy revision: what a server offers to an `initialize` naming a version
    /// it does not know.
    pub const LATEST_LEGACY: ProtocolVersion = ProtocolVersion::V2025_11_25;

    /// The newest revision of all.
    pub const LATEST: ProtocolVersion = ProtocolVersion::V2026_07_28;

    /// The revision an HTTP server assumes when a legacy request has no
    /// `MCP-Protocol-Version` header (spec 2025-06-18, "Protocol Version Header").
    pub const HTTP_DEFAULT: ProtocolVersion = ProtocolVersion::V2025_03_26;

    /// The date string of this revision, as it appears on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// The era this revision belongs to.
    pub const fn era(self) -> Era {
        match self {
            ProtocolVersion::V2026_07_28 => Era::Modern,
            _ => Era::Legacy,
        }
    }

    /// Whether JSON-RPC batches (top-level arrays) are part of this revision.
    ///
    /// Only 2025-03-26 has them; 2025-06-18 removed them.
    pub const fn allows_batches(self) -> bool {
        matches!(self, ProtocolVersion::V2025_03_26)
    }

    /// Whether `structuredContent` and `outputSchema` may describe any JSON value
    /// (2026-07-28) or only an object (2025-06-18 and 2025-11-25).
    pub const fn structured_content_any_value(self) -> bool {
        matches!(self.era(), Era::Modern)
    }

    /// Whether this revision has structured tool output at all (`structuredContent`,
    /// `outputSchema`): 2025-06-18 and later.
    pub const fn has_structured_content(self) -> bool {
        self.at_least(ProtocolVersion::V2025_06_18)
    }

    /// Whether tools carry `annotations` (behaviour hints): 2025-03-26 and later.
    pub const fn has_tool_annotations(self) -> bool {
        self.at_least(ProtocolVersion::V2025_03_26)
    }

    /// Whether content may be audio (`"type": "audio"`): 2025-03-26 and later.
    pub const fn has_audio(self) -> bool {
        self.at_least(ProtocolVersion::V2025_03_26)
    }

    /// Whether a server declares a `completions` capability: 2025-03-26 and later
    /// (2024-11-05 has `completion/complete` but no capability for it).
    pub const fn has_completions_capability(self) -> bool {
        self.at_least(ProtocolVersion::V2025_03_26)
    }

    /// Whether progress notifications carry a `message`: 2025-03-26 and later.
    pub const fn has_progress_message(self) -> bool {
        self.at_least(ProtocolVersion::V2025_03_26)
    }

    /// Whether tools, prompts, resources, prompt arguments and implementations have a
    /// display `title`: 2025-06-18 and later.
    pub const fn has_titles(self) -> bool {
        self.at_least(ProtocolVersion::V2025_06_18)
    }

    /// Whether content may link to a resource (`"type": "resource_link"`): 2025-06-18 and
    /// later.
    pub const fn has_resource_links(self) -> bool {
        self.at_least(ProtocolVersion::V2025_06_18)
    }

    /// Whether tools, prompts, resources and content blocks carry `_meta`: 2025-06-18 and
    /// later.
    pub const fn has_definition_meta(self) -> bool {
        self.at_least(ProtocolVersion::V2025_06_18)
    }

    /// Whether the server may ask the client for input (`elicitation/create`): 2025-06-18
    /// and later.
    pub const fn has_elicitation(self) -> bool {
        self.at_least(ProtocolVersion::V2025_06_18)
    }

    /// Whether tools, prompts, resources and implementations have `icons` (and
    /// implementations a `websiteUrl`), and tools an `execution`: 2025-11-25 and later.
    pub const fn has_icons(self) -> bool {
        self.at_least(ProtocolVersion::V2025_11_25)
    }

    /// Whether what this revision lacks is left out of what its clients are sent, rather
    /// than kept as a harmless extra member: true for 2024-11-05 only, whose clients are
    /// the least likely to ignore members they do not know. Newer revisions keep, say, a
    /// `title` their schema does not define, so their bytes do not change.
    pub const fn omits_later_members(self) -> bool {
        matches!(self, ProtocolVersion::V2024_11_05)
    }

    /// Whether `self` is `other` or newer (`Ord` is not usable in a `const fn`).
    const fn at_least(self, other: ProtocolVersion) -> bool {
        self as u8 >= other as u8
    }

    /// Legacy version negotiation: the version a server answers to an `initialize` request
    /// that asked for `requested`.
    ///
    /// The spec's rule: if the server supports the requested version it MUST respond with the
    /// same version; otherwise it responds with another version it supports, which SHOULD be
    /// its latest. It never fails; the client decides whether to go on. A request for a
    /// modern-era version through `initialize` cannot be honoured (that era has no
    /// `initialize`), so it is answered with the latest legacy version too.
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp_core::ProtocolVersion;
    ///
    /// assert_eq!(ProtocolVersion::negotiate_legacy("2025-06-18"), ProtocolVersion::V2025_06_18);
    /// assert_eq!(ProtocolVersion::negotiate_legacy("2024-11-05"), ProtocolVersion::V2024_11_05);
    /// assert_eq!(ProtocolVersion::negotiate_legacy("2024-10-07"), ProtocolVersion::V2025_11_25);
    /// assert_eq!(ProtocolVersion::negotiate_legacy("garbage"), ProtocolVersion::V2025_11_25);
    /// ```
    pub fn negotiate_legacy(requested: &str) -> ProtocolVersion {
        match requested.parse::<ProtocolVersion>() {
            Ok(v) if v.era() == Era::Legacy => v,
            _ => ProtocolVersion::LATEST_LEGACY,
        }
    }

    /// [`negotiate_legacy`](Self::negotiate_legacy) restricted to the versions a server was
    /// configured to support (`supported`, any order). Falls back to the newest legacy entry
    /// of `supported`, or to [`LATEST_LEGACY`](Self::LATEST_LEGACY) if it has none.
    pub fn negotiate_legacy_among(
        requested: &str,
        supported: &[ProtocolVersion],
    ) -> ProtocolVersion {
        if let Ok(v) = requested.parse::<ProtocolVersion>()
            && v.era() == Era::Legacy
            && supported.contains(&v)
        {
            return v;
        }
        supported
            .iter()
            .copied()
            .filter(|v| v.era() == Era::Legacy)
            .max()
            .unwrap_or(ProtocolVersion::LATEST_LEGACY)
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A protocol version string that names no revision this crate knows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown protocol version `{0}`")]
pub struct UnknownProtocolVersion(pub String);

impl FromStr for ProtocolVersion {
    type Err = UnknownProtocolVersion;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ProtocolVersion::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| UnknownProtocolVersion(s.to_owned()))
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_round_trip_and_order_by_date() {
        let mut sorted = ProtocolVersion::ALL.map(|v| v.as_str());
        sorted.sort_unstable();
        assert_eq!(sorted, ProtocolVersion::ALL.map(|v| v.as_str()));
        for v in ProtocolVersion::ALL {
            assert_eq!(v.as_str().parse::<ProtocolVersion>(), Ok(v));
            assert_eq!(serde_json::to_string(&v).unwrap(), format!("\"{v}\""));
        }
        assert!("2025-11-25 ".parse::<ProtocolVersion>().is_err());
    }

    #[test]
    fn eras_and_features() {
        assert!(
            ProtocolVersion::LEGACY
                .iter()
                .all(|v| v.era() == Era::Legacy)
        );
        assert!(
            ProtocolVersion::MODERN
                .iter()
                .all(|v| v.era() == Era::Modern)
        );
        assert!(ProtocolVersion::V2025_03_26.allows_batches());
        assert!(!ProtocolVersion::V2025_06_18.allows_batches());
        assert!(!ProtocolVersion::V2025_03_26.has_structured_content());
        assert!(!ProtocolVersion::V2024_11_05.allows_batches());
        let old = ProtocolVersion::V2024_11_05;
        assert!(!old.has_tool_annotations() && !old.has_audio() && !old.has_progress_message());
        assert!(!old.has_completions_capability() && !old.has_titles() && !old.has_icons());
        assert!(!old.has_resource_links() && !old.has_elicitation() && !old.has_definition_meta());
        assert!(old.omits_later_members());
        let next = ProtocolVersion::V2025_03_26;
        assert!(next.has_tool_annotations() && next.has_audio() && next.has_progress_message());
        assert!(next.has_completions_capability() && !next.has_titles());
        assert!(!next.omits_later_members());
        assert!(ProtocolVersion::V2025_06_18.has_titles());
        assert!(ProtocolVersion::V2025_06_18.has_resource_links());
        assert!(!ProtocolVersion::V2025_06_18.has_icons());
        assert!(ProtocolVersion::V2025_11_25.has_icons());
        assert!(!ProtocolVersion::V2025_11_25.structured_content_any_value());
        assert!(ProtocolVersion::V2026_07_28.structured_content_any_value());
    }

    #[test]
    fn the_first_revision_is_negotiated_when_asked_for() {
        assert_eq!(ProtocolVersion::ALL[0], ProtocolVersion::V2024_11_05);
        assert_eq!(
            ProtocolVersion::negotiate_legacy("2024-11-05"),
            ProtocolVersion::V2024_11_05
        );
        assert_eq!(
            ProtocolVersion::negotiate_legacy_among("2024-11-05", &ProtocolVersion::ALL),
            ProtocolVersion::V2024_11_05
        );
        // A server configured without it answers its newest legacy revision.
        assert_eq!(
            ProtocolVersion::negotiate_legacy_among(
                "2024-11-05",
                &[ProtocolVersion::V2025_03_26, ProtocolVersion::V2025_06_18]
            ),
            ProtocolVersion::V2025_06_18
        );
        assert!(ProtocolVersion::V2024_11_05 < ProtocolVersion::V2025_03_26);
    }

    #[test]
    fn legacy_negotiation_never_fails_and_never_picks_modern() {
        for v in ProtocolVersion::LEGACY {
            assert_eq!(ProtocolVersion::negotiate_legacy(v.as_str()), v);
        }
        assert_eq!(
            ProtocolVersion::negotiate_legacy("2026-07-28"),
            ProtocolVersion::LATEST_LEGACY
        );
        assert_eq!(
            ProtocolVersion::negotiate_legacy_among(
                "2025-11-25",
                &[ProtocolVersion::V2025_03_26, ProtocolVersion::V2025_06_18]
            ),
            ProtocolVersion::V2025_06_18
        );
        assert_eq!(
            ProtocolVersion::negotiate_legacy_among("2025-03-26", &[ProtocolVersion::V2026_07_28]),
            ProtocolVersion::LATEST_LEGACY
        );
    }
}
