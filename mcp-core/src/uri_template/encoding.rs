//! Character classes and percent-encoding, shared by parsing, expansion and matching.

/// A set of ASCII bytes; bytes >= 0x80 are always members (raw IRI characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ByteSet(u128);

impl ByteSet {
    const fn of(chars: &[u8]) -> ByteSet {
        let mut mask = 0u128;
        let mut i = 0;
        while i < chars.len() {
            mask |= 1 << chars[i];
            i += 1;
        }
        ByteSet(mask)
    }

    pub(super) const fn union(self, other: ByteSet) -> ByteSet {
        ByteSet(self.0 | other.0)
    }

    pub(super) const fn with(self, b: u8) -> ByteSet {
        ByteSet(self.0 | (1 << (b & 0x7f)))
    }

    /// ASCII membership (for encoding: non-ASCII bytes are never copied as-is).
    pub(super) fn has_ascii(self, b: u8) -> bool {
        b < 0x80 && (self.0 >> b) & 1 == 1
    }

    /// Membership for matching, where raw non-ASCII is accepted.
    pub(super) fn accepts(self, b: u8) -> bool {
        b >= 0x80 || (self.0 >> b) & 1 == 1
    }
}

const ALNUM: ByteSet =
    ByteSet::of(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789");
pub(super) const UNRESERVED: ByteSet = ALNUM.union(ByteSet::of(b"-._~"));
pub(super) const RESERVED: ByteSet = ByteSet::of(b":/?#[]@!$&'()*+,;=");
const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

pub(super) fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Whether `b[i..]` starts with a percent-encoded triplet.
pub(super) fn is_pct_at(b: &[u8], i: usize) -> bool {
    b.get(i) == Some(&b'%')
        && b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
        && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
}

/// RFC 6570 `literals`, ASCII part (without `%`, which must start a triplet).
pub(super) fn is_literal_ascii(c: u8) -> bool {
    matches!(c, 0x21 | 0x23 | 0x24 | 0x26 | 0x28..=0x3B | 0x3D | 0x3F..=0x5B | 0x5D | 0x5F | 0x61..=0x7A | 0x7E)
}

/// RFC 3987 `ucschar` / `iprivate`: the non-ASCII characters a literal may contain.
pub(super) fn is_literal_non_ascii(ch: char) -> bool {
    let c = u32::from(ch);
    match c {
        0xA0..=0xD7FF | 0xE000..=0xFDCF | 0xFDF0..=0xFFEF => true,
        0x10000..=0x10FFFD => (c & 0xFFFF) < 0xFFFE,
        _ => false,
    }
}

pub(super) fn push_pct(out: &mut String, b: u8) {
    out.push('%');
    out.push(char::from(HEX_UPPER[usize::from(b >> 4)]));
    out.push(char::from(HEX_UPPER[usize::from(b & 0x0f)]));
}

/// Appends `s`, percent-encoding every byte outside the allowed set. With `allow_reserved`,
/// reserved characters and existing pct-encoded triplets are copied as-is.
pub(super) fn push_encoded(out: &mut String, s: &str, allow_reserved: bool) {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if UNRESERVED.has_ascii(c) || (allow_reserved && RESERVED.has_ascii(c)) {
            out.push(char::from(c));
            i += 1;
        } else if allow_reserved && is_pct_at(b, i) {
            out.push('%');
            out.push(char::from(b[i + 1]));
            out.push(char::from(b[i + 2]));
            i += 3;
        } else {
            push_pct(out, c);
            i += 1;
        }
    }
}

/// The first `n` characters of `s`; with `allow_reserved`, a pct-encoded triplet counts as
/// one character so that it is never split.
pub(super) fn prefix_of(s: &str, n: usize, allow_reserved: bool) -> &str {
    let b = s.as_bytes();
    let mut count = 0;
    let mut chars = s.char_indices();
    while let Some((i, ch)) = chars.next() {
        if count == n {
            return s.get(..i).unwrap_or(s);
        }
        count += 1;
        if allow_reserved && ch == '%' && is_pct_at(b, i) {
            chars.nth(1);
        }
    }
    s
}
