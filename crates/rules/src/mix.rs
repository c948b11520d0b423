//! splitmix64, the one mixer of the workspace: position keys are built
//! from its finaliser, the engine's table checks entries with it, and
//! shuffles and test streams that need no dependency draw from it.

/// splitmix64's finaliser: a bijective 64-bit mixer, so different inputs
/// give unrelated outputs.
///
/// ```
/// assert_ne!(bashni_rules::mix64(1), bashni_rules::mix64(2));
/// ```
#[inline]
pub const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The splitmix64 generator: a deterministic stream from a seed, for
/// shuffles and tests that must not depend on a random-number crate.
///
/// ```
/// use bashni_rules::SplitMix64;
/// let (mut a, mut b) = (SplitMix64::new(7), SplitMix64::new(7));
/// assert_eq!(a.next_u64(), b.next_u64());
/// ```
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A stream starting from `seed`.
    pub const fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next number of the stream.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix64(self.0)
    }
}
