//! A fast keyed hasher for the crate's small hot maps: requests in flight by id, the
//! metrics' bound attribute sets.
//!
//! A multiply-fold per eight bytes, seeded per map from the process's random keys: SipHash,
//! the standard map's hasher, costs several hundred instructions for a request id, more than
//! the rest of a map lookup. The keys are a client's own (its request ids, the tools it
//! calls), and they reach only maps of its own connection or a bounded table; the seed keeps
//! collisions from being chosen in advance, as SipHash's key does, without its guarantees
//! against an attacker who can watch timings, which no map here needs.

use std::hash::{BuildHasher, Hasher, RandomState};

/// The hasher; [`FoldedState`] makes one per key.
pub(crate) struct Folded {
    state: u64,
}

/// An odd constant with well-mixed bits (the fractional part of pi).
const MIX: u64 = 0x243f_6a88_85a3_08d3;

impl Folded {
    fn new(seed: u64) -> Folded {
        Folded { state: seed }
    }

    fn mix(&mut self, word: u64) {
        self.state = fold(self.state ^ word, MIX);
    }
}

/// Another odd constant with well-mixed bits (the next digits of pi).
const FINISH: u64 = 0x1319_8a2e_0370_7344 | 1;

/// The 128-bit product of `a` and `b`, its high and low halves folded together: every input
/// bit reaches every output bit.
fn fold(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    #[allow(clippy::cast_possible_truncation)]
    let folded = (product as u64) ^ ((product >> 64) as u64);
    folded
}

impl Hasher for Folded {
    fn finish(&self) -> u64 {
        // One more fold: after a single word (a small integer id), the high bits, which the
        // map's control bytes are taken from, would take only a third of their values.
        fold(self.state, FINISH)
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            self.mix(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        let mut word = [0; 8];
        word[..rest.len()].copy_from_slice(rest);
        // The length tells "ab" from "ab\0".
        self.mix(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 56));
    }

    fn write_u8(&mut self, n: u8) {
        self.mix(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.mix(n);
    }

    fn write_i64(&mut self, n: i64) {
        self.mix(n.cast_unsigned());
    }

    fn write_usize(&mut self, n: usize) {
        self.mix(n as u64);
    }

    // An enum's discriminant.
    fn write_isize(&mut self, n: isize) {
        self.mix(n as u64);
    }
}

/// Builds [`Folded`] hashers with a seed drawn once per map.
#[derive(Clone, Debug)]
pub(crate) struct FoldedState {
    seed: u64,
}

impl Default for FoldedState {
    /// A new random seed.
    fn default() -> FoldedState {
        FoldedState {
            seed: RandomState::new().hash_one(0_u64),
        }
    }
}

impl BuildHasher for FoldedState {
    type Hasher = Folded;

    fn build_hasher(&self) -> Folded {
        Folded::new(self.seed)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::hash::BuildHasher;

    use super::FoldedState;

    /// How many of the 16,384 values of the hashes' top and bottom 14 bits `keys` take.
    fn spread<K: std::hash::Hash>(
        state: &FoldedState,
        keys: impl Iterator<Item = K>,
    ) -> [usize; 2] {
        let (mut top, mut bottom) = (HashSet::new(), HashSet::new());
        for key in keys {
            let h = state.hash_one(key);
            top.insert(h >> 50);
            bottom.insert(h & 0x3fff);
        }
        [top.len(), bottom.len()]
    }

    #[test]
    fn nearby_keys_spread_over_the_bits() {
        // A map takes its buckets from the low bits and its control bytes from the high ones.
        // 10,000 random hashes take ~7,490 of 16,384 values; a single fold without the one in
        // `finish` gave consecutive numbers ~5,000 of the high ones.
        let state = FoldedState::default();
        for taken in spread(&state, 0..10_000_i64) {
            assert!(taken > 7_000, "{taken}");
        }
        for taken in spread(&state, (0..10_000).map(|n| format!("req-{n}"))) {
            assert!(taken > 7_000, "{taken}");
        }
    }

    #[test]
    fn a_trailing_zero_byte_changes_the_hash() {
        let state = FoldedState::default();
        assert_ne!(
            state.hash_one(b"ab".as_slice()),
            state.hash_one(b"ab\0".as_slice())
        );
        assert_ne!(state.hash_one(""), state.hash_one("\0"));
    }

    #[test]
    fn each_map_has_its_own_seed() {
        let (a, b) = (FoldedState::default(), FoldedState::default());
        assert_ne!(a.hash_one(1_i64), b.hash_one(1_i64));
    }
}
