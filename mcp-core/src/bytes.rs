//! Byte searches for the parsers and transports of this crate and ferromcp. Not API:
//! public only so that ferromcp shares them; it may change in any release.
//!
//! memchr's entry points choose their SIMD routine on first use, by asking the CPU what it
//! supports through std's feature detection, which runs `cpuid` a dozen times. A hypervisor
//! traps `cpuid`: on the benchmark VM the first search took ~30 µs, on the way to a server's
//! first answer, where no other Rust MCP server spends it (docs/benchmarks.md). So a haystack
//! shorter than [`SHORT`] is searched with memchr's SSE2 routines, which every x86_64 CPU
//! has (nothing to detect) and which match the AVX2 ones at that length; a longer one goes to
//! memchr's entry points, which detect once, when the first large message comes. Elsewhere
//! than on x86_64 memchr's entry points detect nothing at run time, and take every length.

#[cfg(target_arch = "x86_64")]
use memchr::arch::x86_64::sse2::memchr::{One, Three, Two};

/// Below this many bytes, a search takes the SSE2 routines on x86_64.
pub const SHORT: usize = 4096;

/// The index of the first `needle` in `haystack`.
#[inline]
pub fn find(needle: u8, haystack: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if haystack.len() < SHORT
        && let Some(one) = One::new(needle)
    {
        return one.find(haystack);
    }
    memchr::memchr(needle, haystack)
}

/// The index of the first `a` or `b` in `haystack`.
#[inline]
pub fn find2(a: u8, b: u8, haystack: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if haystack.len() < SHORT
        && let Some(two) = Two::new(a, b)
    {
        return two.find(haystack);
    }
    memchr::memchr2(a, b, haystack)
}

/// The index of the first `a`, `b` or `c` in `haystack`.
#[inline]
pub fn find3(a: u8, b: u8, c: u8, haystack: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if haystack.len() < SHORT
        && let Some(three) = Three::new(a, b, c)
    {
        return three.find(haystack);
    }
    memchr::memchr3(a, b, c, haystack)
}

/// The index of the occurrence of `a` or `b` in `haystack` after the first `n` (counting
/// from 0, as `Iterator::nth`).
#[inline]
pub fn nth2(a: u8, b: u8, haystack: &[u8], n: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if haystack.len() < SHORT
        && let Some(two) = Two::new(a, b)
    {
        return two.iter(haystack).nth(n);
    }
    memchr::memchr2_iter(a, b, haystack).nth(n)
}

/// Whether `needle` occurs in `haystack`, looked for at each occurrence of its byte at
/// `rare`: pick a byte that is rare in the haystacks searched. For short haystacks; memchr's
/// `memmem::Finder` is the tool for long ones.
pub fn contains(haystack: &[u8], needle: &[u8], rare: usize) -> bool {
    let Some(&byte) = needle.get(rare) else {
        return needle.is_empty();
    };
    let mut from = rare;
    while let Some(at) = haystack.get(from..).and_then(|rest| find(byte, rest)) {
        let start = from + at - rare;
        if haystack.get(start..start + needle.len()) == Some(needle) {
            return true;
        }
        from += at + 1;
    }
    false
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Every length around the vector widths and [`SHORT`], every position of the needle,
    /// against a plain search: both sides of the length switch give the same answers.
    #[test]
    fn searches_agree_with_a_plain_scan() {
        for len in [
            0,
            1,
            15,
            16,
            17,
            31,
            32,
            33,
            64,
            100,
            SHORT - 1,
            SHORT,
            SHORT + 1,
            9000,
        ] {
            let mut hay = vec![b'x'; len];
            assert_eq!(find(b'\n', &hay), None);
            assert_eq!(find2(b'"', b'\\', &hay), None);
            assert_eq!(find3(b'"', b'[', b']', &hay), None);
            for at in [0, 1, len / 2, len.saturating_sub(1)] {
                if at >= len {
                    continue;
                }
                hay[at] = b'\n';
                assert_eq!(find(b'\n', &hay), Some(at), "len {len} at {at}");
                hay[at] = b'\\';
                assert_eq!(find2(b'"', b'\\', &hay), Some(at), "len {len} at {at}");
                hay[at] = b']';
                assert_eq!(find3(b'"', b'[', b']', &hay), Some(at), "len {len} at {at}");
                hay[at] = b'x';
            }
            let every_third: Vec<u8> = (0..len)
                .map(|i| if i % 3 == 0 { b'{' } else { b'x' })
                .collect();
            for n in [0, 1, 7, len / 3, len / 3 + 1] {
                let plain = every_third
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| matches!(c, b'[' | b'{'))
                    .nth(n)
                    .map(|(i, _)| i);
                assert_eq!(nth2(b'[', b'{', &every_third, n), plain, "len {len} n {n}");
            }
        }
    }

    #[test]
    fn contains_finds_a_needle_by_its_rare_byte() {
        let meta = br#""_meta""#;
        assert!(contains(br#"{"_meta":{}}"#, meta, 1));
        assert!(contains(br#"{"a":"_","b":"_meta"}"#, meta, 1));
        assert!(!contains(br#"{"a_meta":1,"_met":2}"#, meta, 1));
        assert!(
            !contains(br#"_meta""#, meta, 1),
            "the opening quote is missing"
        );
        assert!(contains(br#""\u0041""#, br"\u", 0));
        assert!(!contains(br#""\n\\""#, br"\u", 0));
        assert!(!contains(b"", meta, 1));
        assert!(contains(b"abc", b"", 0));
    }
}
