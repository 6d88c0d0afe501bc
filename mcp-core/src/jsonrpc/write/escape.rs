//! Strings written with their escapes, found eight bytes at a time.

/// From this many bytes a string is written with room to spare after it ([`write_str`]).
pub(super) const LARGE: usize = 4096;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `word` (little-endian) that is below U+0020, a `"` or a `\`.
/// Every such byte is marked; a borrow can also mark the byte just above one (a space after a
/// control, say), so a marked byte is checked before it is escaped.
#[inline]
fn escape_mask(word: u64) -> u64 {
    let control = word.wrapping_sub(ONES * 0x20) & !word;
    let quote = word ^ (ONES * u64::from(b'"'));
    let quote = quote.wrapping_sub(ONES) & !quote;
    let backslash = word ^ (ONES * u64::from(b'\\'));
    let backslash = backslash.wrapping_sub(ONES) & !backslash;
    (control | quote | backslash) & HIGHS
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// How each byte is written in a string: 0 as it is, `u` as `\u00XX`, any other letter
/// after a `\`.
static ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut control = 0;
    while control < 0x20 {
        table[control] = b'u';
        control += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0A] = b'n';
    table[0x0C] = b'f';
    table[0x0D] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

/// The escape serde_json writes for `byte`: the short forms where JSON has them, `\u00XX`
/// with lowercase hex for the other controls.
#[inline]
fn push_escape(out: &mut String, byte: u8, escape: u8) {
    if escape != b'u' {
        out.push('\\');
        out.push(char::from(escape));
    } else {
        out.push_str("\\u00");
        out.push(char::from(HEX[usize::from(byte >> 4)]));
        out.push(char::from(HEX[usize::from(byte & 0xF)]));
    }
}

#[inline]
pub(super) fn write_str(out: &mut String, s: &str) {
    let bytes = s.as_bytes();
    // A large string is nearly all of its message: room for it and for the rest after it,
    // or the first byte written after it would double the buffer (and may copy the string).
    let slack = if bytes.len() >= LARGE {
        bytes.len() / 8 + 256
    } else {
        0
    };
    out.reserve(bytes.len() + 2 + slack);
    out.push('"');
    // Up to `start` is written; every escaped byte is ASCII, so each index where one is
    // found is a char boundary.
    let mut start = 0;
    // Two words a step: text is mostly free of escapes, and one test of both masks keeps
    // the loop to a branch per 16 bytes.
    let mut pairs = bytes.chunks_exact(16);
    let mut at = 0;
    for pair in &mut pairs {
        let (low, high) = pair.split_at(8);
        let low = escape_mask(u64::from_le_bytes(low.try_into().unwrap_or_default()));
        let high = escape_mask(u64::from_le_bytes(high.try_into().unwrap_or_default()));
        if low | high != 0 {
            start = escape_marked(out, s, start, at, low);
            start = escape_marked(out, s, start, at + 8, high);
        }
        at += 16;
    }
    let rest = pairs.remainder();
    let tail = if let Some((word, tail)) = rest.split_first_chunk::<8>() {
        let mask = escape_mask(u64::from_le_bytes(*word));
        start = escape_marked(out, s, start, at, mask);
        at += 8;
        tail
    } else {
        rest
    };
    for (i, &byte) in tail.iter().enumerate() {
        let escape = ESCAPE[usize::from(byte)];
        if escape != 0 {
            let i = at + i;
            out.push_str(&s[start..i]);
            push_escape(out, byte, escape);
            start = i + 1;
        }
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// Writes what `mask` marks in the word at `at` (each marked byte in order, a borrow's false
/// mark passed over), with the text before each escape; returns the new `start`.
#[inline]
fn escape_marked(out: &mut String, s: &str, mut start: usize, at: usize, mut mask: u64) -> usize {
    let bytes = s.as_bytes();
    while mask != 0 {
        let i = at + (mask.trailing_zeros() / 8) as usize;
        mask &= mask - 1;
        let escape = ESCAPE[usize::from(bytes[i])];
        if escape != 0 {
            out.push_str(&s[start..i]);
            push_escape(out, bytes[i], escape);
            start = i + 1;
        }
    }
    start
}
