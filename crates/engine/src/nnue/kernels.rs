//! The integer inner loops, in a scalar version and, on x86_64 CPUs with
//! AVX2 (or AVX-512), SIMD ones. All compute exactly the same integers:
//! i16 sums wrap the same way, and the dot product multiplies i16 by i16
//! into i32 pair sums (`madd`), which cannot overflow for activations of
//! at most 127 (256 * 127 * 32768 < 2^31), whatever order the sums are
//! taken in. Tests compare them on random data.

use super::network::{L1, L2, QA, QW};

/// log2(QW): the shift back from `QA * QW` to `QA` after the second layer.
const QW_SHIFT: u32 = QW.trailing_zeros();

/// The second layer's weights and biases and the output layer's: what
/// [`Backend::forward`] needs of the network besides the accumulator.
#[derive(Clone, Copy, Debug)]
pub struct Layers<'a> {
    /// `L2` rows of `2 * L1` (scale `QW`), side to move's half first.
    pub l1_weights: &'a [i16],
    /// The same weights input pair by input pair ([`pair_major`]): what
    /// the SIMD forward pass reads.
    pub l1_pairs: &'a [i16],
    /// `L2` values (scale `QA * QW`).
    pub l1_bias: &'a [i32],
    /// `L2` values (scale `QW`).
    pub out_weights: &'a [i16],
    /// Scale `QA * QW`.
    pub out_bias: i32,
}

/// The second layer's weights (`L2` rows of `2 * L1`) rearranged for a
/// forward pass that goes input pair by input pair: row `k` holds, for
/// each output `j`, the weights of inputs `2k` and `2k + 1` side by side,
/// so one multiply-add of the broadcast pair `(x[2k], x[2k + 1])` with a
/// register of this row adds the pair's part to 8 outputs at once. A
/// pair whose two activations the clipped ReLU zeroed is skipped.
pub fn pair_major(weights: &[i16]) -> Vec<i16> {
    let mut pairs = vec![0; L1 * 2 * L2];
    for (j, row) in weights.chunks_exact(2 * L1).take(L2).enumerate() {
        for (k, pair) in row.chunks_exact(2).enumerate() {
            let at = k * 2 * L2 + 2 * j;
            pairs[at..at + 2].copy_from_slice(pair);
        }
    }
    pairs
}

/// Which code runs the inner loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// Plain Rust, on any CPU.
    Scalar,
    /// AVX2 intrinsics (x86_64 only, chosen when the CPU has AVX2).
    Avx2,
    /// AVX2 with AVX-VNNI's fused multiply-add of i16 pairs into i32
    /// (`vpdpwssd`) in the second layer: the same integers in half the
    /// instructions.
    Avx2Vnni,
    /// AVX-512 (F, BW and VNNI) for the accumulator update and the
    /// forward pass, whose rows are then 4 and 2 registers instead of 8
    /// and 4; the rest as `Avx2Vnni`.
    Avx512,
}

impl Backend {
    /// The fastest backend this CPU runs.
    pub fn detect() -> Backend {
        Backend::available()
            .last()
            .copied()
            .unwrap_or(Backend::Scalar)
    }

    /// Every backend this CPU runs, slowest (scalar) first.
    pub fn available() -> Vec<Backend> {
        let mut all = vec![Backend::Scalar];
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            all.push(Backend::Avx2);
            if std::arch::is_x86_feature_detected!("avxvnni") {
                all.push(Backend::Avx2Vnni);
            }
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512vnni")
            {
                all.push(Backend::Avx512);
            }
        }
        all
    }

    /// `acc += row` (wrapping), one accumulator half.
    #[inline]
    pub fn add(self, acc: &mut [i16; L1], row: &[i16]) {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Avx2` (and `Avx2Vnni`) are only chosen when the
            // CPU has AVX2 (and AVX-VNNI).
            Backend::Avx2 | Backend::Avx2Vnni | Backend::Avx512 => unsafe {
                avx2::add_sub::<true>(acc, row)
            },
            _ => scalar_add_sub::<true>(acc, row),
        }
    }

    /// `acc -= row` (wrapping), one accumulator half.
    #[inline]
    pub fn sub(self, acc: &mut [i16; L1], row: &[i16]) {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as in `add`.
            Backend::Avx2 | Backend::Avx2Vnni | Backend::Avx512 => unsafe {
                avx2::add_sub::<false>(acc, row)
            },
            _ => scalar_add_sub::<false>(acc, row),
        }
    }

    /// `sum(input[i] * weights[i])` over activations 0..=127 and i16
    /// weights; both slices have the same length, a multiple of 16.
    #[inline]
    pub fn dot(self, input: &[i16], weights: &[i16]) -> i32 {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as in `add`.
            Backend::Avx2 | Backend::Avx2Vnni | Backend::Avx512 => unsafe {
                avx2::dot(input, weights)
            },
            _ => scalar_dot(input, weights),
        }
    }
}

impl Backend {
    /// `dst = src - sum(rows removed) + sum(rows added)` (wrapping), where
    /// row `f` is `weights[f * L1..(f + 1) * L1]`: a child's accumulator
    /// half from its parent's in one pass, the sums kept in registers.
    #[inline]
    pub fn update(
        self,
        dst: &mut [i16; L1],
        src: &[i16; L1],
        weights: &[i16],
        removed: &[u16],
        added: &[u16],
    ) {
        let row = |f: u16| &weights[f as usize * L1..(f as usize + 1) * L1];
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Avx512` is only chosen when the CPU has AVX-512 F
            // and BW; every row is a checked slice of `L1`, and the
            // aligned version is only chosen for 64-byte aligned data.
            Backend::Avx512 => unsafe {
                let rows = (
                    removed.iter().map(|&f| row(f)),
                    added.iter().map(|&f| row(f)),
                );
                if avx512::aligned(weights) && avx512::aligned(src) && avx512::aligned(dst) {
                    avx512::update::<true>(dst, src, rows.0, rows.1)
                } else {
                    avx512::update::<false>(dst, src, rows.0, rows.1)
                }
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as in `add`; every row is a checked slice of `L1`,
            // and the aligned version is only chosen for aligned data.
            Backend::Avx2 | Backend::Avx2Vnni => unsafe {
                let rows = (
                    removed.iter().map(|&f| row(f)),
                    added.iter().map(|&f| row(f)),
                );
                // The network's rows (`AlignedI16`) and the accumulators
                // (`repr(align(64))`) are aligned; other callers may not be.
                if avx2::aligned(weights) && avx2::aligned(src) && avx2::aligned(dst) {
                    avx2::update::<true>(dst, src, rows.0, rows.1)
                } else {
                    avx2::update::<false>(dst, src, rows.0, rows.1)
                }
            },
            _ => {
                dst.copy_from_slice(src);
                removed
                    .iter()
                    .for_each(|&f| scalar_add_sub::<false>(dst, row(f)));
                added
                    .iter()
                    .for_each(|&f| scalar_add_sub::<true>(dst, row(f)));
            }
        }
    }

    /// The network's raw output after the accumulator: both halves
    /// clipped to `0..=QA` (side to move's first), the second layer,
    /// rounded back to `QA` and clipped, and the output layer. `QA * QW`
    /// is 1.0.
    #[inline]
    pub fn forward(self, stm: &[i16; L1], other: &[i16; L1], layers: &Layers) -> i32 {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as in `add`.
            Backend::Avx2 => unsafe { avx2::forward(stm, other, layers) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Avx2Vnni` is only chosen when the CPU has AVX-VNNI.
            Backend::Avx2Vnni => unsafe { avx2::forward_vnni(stm, other, layers) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Avx512` is only chosen when the CPU has AVX-512 F,
            // BW and VNNI.
            Backend::Avx512 => unsafe { avx512::forward(stm, other, layers) },
            _ => scalar_forward(stm, other, layers),
        }
    }

    /// The second layer before its activation: for each of the `L2`
    /// rows of `weights` (each `2 * L1` long), `bias[j] + row . input`.
    /// One call for all rows, so the SIMD path pays for no call or
    /// dispatch per row.
    #[inline]
    pub fn affine(self, input: &[i16; 2 * L1], weights: &[i16], bias: &[i32]) -> [i32; L2] {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as in `add`.
            Backend::Avx2 | Backend::Avx2Vnni | Backend::Avx512 => unsafe {
                avx2::affine(input, weights, bias)
            },
            _ => std::array::from_fn(|j| {
                bias[j] + scalar_dot(input, &weights[j * 2 * L1..(j + 1) * 2 * L1])
            }),
        }
    }
}

fn scalar_add_sub<const ADD: bool>(acc: &mut [i16; L1], row: &[i16]) {
    for (a, &w) in acc.iter_mut().zip(row) {
        *a = if ADD {
            a.wrapping_add(w)
        } else {
            a.wrapping_sub(w)
        };
    }
}

fn scalar_forward(stm: &[i16; L1], other: &[i16; L1], layers: &Layers) -> i32 {
    let mut input = [0i16; 2 * L1];
    for (half, values) in input.chunks_exact_mut(L1).zip([stm, other]) {
        for (a, &v) in half.iter_mut().zip(values) {
            *a = v.clamp(0, QA as i16);
        }
    }
    // Rounded, not floored, back to the scale of QA.
    let half = 1 << (QW_SHIFT - 1);
    let sums = Backend::Scalar.affine(&input, layers.l1_weights, layers.l1_bias);
    sums.iter()
        .zip(layers.out_weights)
        .fold(layers.out_bias, |out, (&sum, &w)| {
            let hidden = ((sum + half) >> QW_SHIFT).clamp(0, QA);
            out + hidden * w as i32
        })
}

fn scalar_dot(input: &[i16], weights: &[i16]) -> i32 {
    input
        .iter()
        .zip(weights)
        .map(|(&a, &w)| a as i32 * w as i32)
        .sum()
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{L1, L2, Layers, QA, QW_SHIFT};
    use std::arch::x86_64::*;
    use std::mem::MaybeUninit;

    /// 16 i16 lanes per register.
    const CHUNKS: usize = L1 / 16;

    /// 16 weights at `p`: one aligned load where the network's storage
    /// is aligned (`AlignedI16`: every row starts on 64 bytes), else an
    /// unaligned one (which the x86-64-v2 tuning splits in two halves).
    ///
    /// # Safety
    /// The CPU must have AVX2; `p` points to 16 readable values, on a
    /// 32-byte boundary if `aligned`.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn load(p: *const i16, aligned: bool) -> __m256i {
        // SAFETY: the caller's contract.
        unsafe {
            if aligned {
                _mm256_load_si256(p.cast())
            } else {
                _mm256_loadu_si256(p.cast())
            }
        }
    }

    /// Whether `values` starts on a 32-byte boundary.
    #[inline]
    pub fn aligned(values: &[i16]) -> bool {
        (values.as_ptr() as usize).is_multiple_of(32)
    }

    /// # Safety
    /// The CPU must have AVX2; every row holds at least `L1` values; if
    /// `ALIGNED`, `dst`, `src` and every row start on a 32-byte boundary.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub unsafe fn update<'a, const ALIGNED: bool>(
        dst: &mut [i16; L1],
        src: &[i16; L1],
        removed: impl Iterator<Item = &'a [i16]>,
        added: impl Iterator<Item = &'a [i16]>,
    ) {
        // SAFETY (all blocks): offsets i * 16 + 16 <= L1 in arrays of
        // `L1` and in rows checked to hold `L1`; aligned as the caller
        // promises. Aligned accesses are one instruction each, where the
        // x86-64-v2 tuning splits an unaligned one in two.
        let mut sums = [_mm256_setzero_si256(); CHUNKS];
        for (i, s) in sums.iter_mut().enumerate() {
            *s = unsafe { load(src.as_ptr().add(i * 16), ALIGNED) };
        }
        for row in removed {
            assert!(row.len() >= L1);
            for (i, s) in sums.iter_mut().enumerate() {
                *s = _mm256_sub_epi16(*s, unsafe { load(row.as_ptr().add(i * 16), ALIGNED) });
            }
        }
        for row in added {
            assert!(row.len() >= L1);
            for (i, s) in sums.iter_mut().enumerate() {
                *s = _mm256_add_epi16(*s, unsafe { load(row.as_ptr().add(i * 16), ALIGNED) });
            }
        }
        for (i, s) in sums.iter().enumerate() {
            let at = unsafe { dst.as_mut_ptr().add(i * 16).cast() };
            if ALIGNED {
                unsafe { _mm256_store_si256(at, *s) };
            } else {
                unsafe { _mm256_storeu_si256(at, *s) };
            }
        }
    }

    /// For each byte mask, the positions of its set bits (ascending, one
    /// byte each; unused bytes zero): the nonzero pairs of 8 found without
    /// a branch per pair.
    pub(super) const SET_BITS: [u64; 256] = {
        let mut table = [0u64; 256];
        let mut mask = 0;
        while mask < 256 {
            let (mut bit, mut n) = (0, 0);
            while bit < 8 {
                if mask & (1 << bit) != 0 {
                    table[mask] |= (bit as u64) << (8 * n);
                    n += 1;
                }
                bit += 1;
            }
            mask += 1;
        }
        table
    };

    /// The clipped activations of both halves (side to move's first) as
    /// `L1` pairs of i16, one pair per i32, and the indices of the pairs
    /// that are not both zero, with their count: all of `pairs` and the
    /// first `count` indices are written. `nonzero` has 8 bytes of slack:
    /// each group of 8 pairs writes all 8 of its possible indices. Both
    /// arrays come uninitialised: zeroing them would cost as much again.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn clipped_pairs(
        stm: &[i16; L1],
        other: &[i16; L1],
        pairs: &mut MaybeUninit<[i32; L1]>,
        nonzero: &mut MaybeUninit<[u8; L1 + 8]>,
    ) -> usize {
        let zero = _mm256_setzero_si256();
        let top = _mm256_set1_epi16(QA as i16);
        let mut count = 0;
        for c in 0..2 * CHUNKS {
            let half = if c < CHUNKS { stm } else { other };
            // SAFETY: (c % CHUNKS) * 16 + 16 <= L1 and c * 8 + 8 <= L1;
            // count + 8 <= L1 + 8 (count <= c * 8); unaligned accesses.
            unsafe {
                let v = _mm256_loadu_si256(half.as_ptr().add((c % CHUNKS) * 16).cast());
                let v = _mm256_min_epi16(_mm256_max_epi16(v, zero), top);
                _mm256_storeu_si256(pairs.as_mut_ptr().cast::<i32>().add(c * 8).cast(), v);
                let zeros = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(v, zero)));
                let mask = !(zeros as u8);
                let indices = SET_BITS[mask as usize] + (c as u64 * 8) * 0x0101_0101_0101_0101;
                nonzero
                    .as_mut_ptr()
                    .cast::<u8>()
                    .add(count)
                    .cast::<u64>()
                    .write_unaligned(indices.to_le());
                count += mask.count_ones() as usize;
            }
        }
        count
    }

    /// The whole forward pass, once with AVX2's `madd` then `add`, once
    /// with AVX-VNNI's fused `vpdpwssd`: the same integers. The second
    /// layer goes pair by pair over the inputs that are not zero
    /// ([`super::pair_major`]); its 32 sums stay in four registers.
    macro_rules! forward {
        ($name:ident, $features:literal, $madd_add:expr) => {
            /// # Safety
            /// The CPU must have the features named; `layers` holds `L1` pair rows of `2 * L2`
            /// weights, `L2` biases and `L2` output weights.
            #[target_feature(enable = $features)]
            #[inline]
            pub unsafe fn $name(stm: &[i16; L1], other: &[i16; L1], layers: &Layers) -> i32 {
                let (weights, bias, out_weights) =
                    (layers.l1_pairs, layers.l1_bias, layers.out_weights);
                assert!(
                    weights.len() >= L1 * 2 * L2 && bias.len() >= L2 && out_weights.len() >= L2
                );
                // Rows of 2 * L2 values (128 bytes): all aligned if the
                // first is, as `AlignedI16` makes it.
                assert!(aligned(weights));
                let mut pairs = MaybeUninit::uninit();
                let mut nonzero = MaybeUninit::uninit();
                // SAFETY: the features this function enables include AVX2;
                // then all of `pairs` and the first `count` of `nonzero`
                // are written, and every index is below L1.
                let count = unsafe { clipped_pairs(stm, other, &mut pairs, &mut nonzero) };
                let pairs: *const i32 = pairs.as_ptr().cast();
                let nonzero =
                    unsafe { std::slice::from_raw_parts(nonzero.as_ptr().cast::<u8>(), count) };
                // Three sets of sums, each pair of inputs adding to one:
                // twelve independent chains hide the multiply-add's
                // latency, which four would wait on (and eight partly).
                let mut sums = [[_mm256_setzero_si256(); L2 / 8]; 3];
                let add_pair = |sums: &mut [__m256i; L2 / 8], k: u8| {
                    let k = k as usize;
                    // SAFETY: k < L1, so the pair is one written above and
                    // the row's 2 * L2 values, on a 32-byte boundary, are
                    // inside the slice checked above.
                    let x = _mm256_set1_epi32(unsafe { *pairs.add(k) });
                    let row = unsafe { weights.as_ptr().add(k * 2 * L2) };
                    for (r, sum) in sums.iter_mut().enumerate() {
                        let w = unsafe { _mm256_load_si256(row.add(r * 16).cast()) };
                        *sum = $madd_add(*sum, x, w);
                    }
                };
                let mut three = nonzero.chunks_exact(3);
                for ks in &mut three {
                    for (set, &k) in sums.iter_mut().zip(ks) {
                        add_pair(set, k);
                    }
                }
                for (set, &k) in sums.iter_mut().zip(three.remainder()) {
                    add_pair(set, k);
                }
                let [first, second, third] = sums;
                let sums: [__m256i; L2 / 8] = std::array::from_fn(|r| {
                    _mm256_add_epi32(_mm256_add_epi32(first[r], second[r]), third[r])
                });
                // Rounded, not floored, back to the scale of QA, clipped,
                // and weighed by the output layer.
                let round = _mm256_set1_epi32(1 << (QW_SHIFT - 1));
                let (zero, top) = (_mm256_setzero_si256(), _mm256_set1_epi32(QA));
                let mut out = zero;
                for (r, &sum) in sums.iter().enumerate() {
                    // SAFETY: r * 8 + 8 <= L2 for both slices checked above.
                    let (b, w) = unsafe {
                        (
                            _mm256_loadu_si256(bias.as_ptr().add(r * 8).cast()),
                            _mm_loadu_si128(out_weights.as_ptr().add(r * 8).cast()),
                        )
                    };
                    let hidden = _mm256_srai_epi32(
                        _mm256_add_epi32(_mm256_add_epi32(sum, b), round),
                        QW_SHIFT as i32,
                    );
                    let hidden = _mm256_min_epi32(_mm256_max_epi32(hidden, zero), top);
                    out =
                        _mm256_add_epi32(out, _mm256_mullo_epi32(hidden, _mm256_cvtepi16_epi32(w)));
                }
                let out = _mm_add_epi32(
                    _mm256_castsi256_si128(out),
                    _mm256_extracti128_si256(out, 1),
                );
                let out = _mm_add_epi32(out, _mm_shuffle_epi32(out, 0b01_00_11_10));
                let out = _mm_add_epi32(out, _mm_shuffle_epi32(out, 0b10_11_00_01));
                layers.out_bias + _mm_cvtsi128_si32(out)
            }
        };
    }

    /// `sum + madd(a, w)`, in two AVX2 instructions.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn madd_add(sum: __m256i, a: __m256i, w: __m256i) -> __m256i {
        _mm256_add_epi32(sum, _mm256_madd_epi16(a, w))
    }

    forward!(forward, "avx2", madd_add);
    forward!(forward_vnni, "avx2,avxvnni", _mm256_dpwssd_avx_epi32);

    /// # Safety
    /// The CPU must have AVX2; `row` must hold at least `L1` values.
    #[target_feature(enable = "avx2")]
    pub unsafe fn add_sub<const ADD: bool>(acc: &mut [i16; L1], row: &[i16]) {
        assert!(row.len() >= L1);
        for i in (0..L1).step_by(16) {
            // SAFETY: i + 16 <= L1 for both slices; unaligned loads.
            unsafe {
                let a = _mm256_loadu_si256(acc.as_ptr().add(i).cast());
                let w = _mm256_loadu_si256(row.as_ptr().add(i).cast());
                let r = if ADD {
                    _mm256_add_epi16(a, w)
                } else {
                    _mm256_sub_epi16(a, w)
                };
                _mm256_storeu_si256(acc.as_mut_ptr().add(i).cast(), r);
            }
        }
    }

    /// # Safety
    /// The CPU must have AVX2; the slices have one length, a multiple of 16.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub unsafe fn dot(input: &[i16], weights: &[i16]) -> i32 {
        assert!(input.len() == weights.len() && input.len().is_multiple_of(16));
        let mut sum = _mm256_setzero_si256();
        for i in (0..input.len()).step_by(16) {
            // SAFETY: i + 16 <= len for both slices; unaligned loads.
            unsafe {
                let a = _mm256_loadu_si256(input.as_ptr().add(i).cast());
                let w = _mm256_loadu_si256(weights.as_ptr().add(i).cast());
                // i16 * i16 pair sums in i32 (no overflow, see the module
                // comment).
                sum = _mm256_add_epi32(sum, _mm256_madd_epi16(a, w));
            }
        }
        let lanes = _mm_add_epi32(
            _mm256_castsi256_si128(sum),
            _mm256_extracti128_si256(sum, 1),
        );
        let lanes = _mm_add_epi32(lanes, _mm_shuffle_epi32(lanes, 0b01_00_11_10));
        let lanes = _mm_add_epi32(lanes, _mm_shuffle_epi32(lanes, 0b10_11_00_01));
        _mm_cvtsi128_si32(lanes)
    }

    /// # Safety
    /// The CPU must have AVX2; `weights` holds `L2` rows of `2 * L1` and
    /// `bias` `L2` values.
    #[target_feature(enable = "avx2")]
    pub unsafe fn affine(input: &[i16; 2 * L1], weights: &[i16], bias: &[i32]) -> [i32; L2] {
        assert!(weights.len() >= L2 * 2 * L1 && bias.len() >= L2);
        let mut out = [0i32; L2];
        for (j, o) in out.iter_mut().enumerate() {
            let row = &weights[j * 2 * L1..(j + 1) * 2 * L1];
            // SAFETY: AVX2 is present (this function's contract).
            *o = bias[j] + unsafe { dot(input, row) };
        }
        out
    }
}

/// The AVX-512 kernels: the AVX2 ones with registers twice as wide.
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::avx2::SET_BITS;
    use super::{L1, L2, Layers, QA, QW_SHIFT};
    use std::arch::x86_64::*;
    use std::mem::MaybeUninit;

    /// 32 i16 lanes per register.
    const CHUNKS: usize = L1 / 32;

    /// Whether `values` starts on a 64-byte boundary.
    #[inline]
    pub fn aligned(values: &[i16]) -> bool {
        (values.as_ptr() as usize).is_multiple_of(64)
    }

    /// 32 values at `p`, aligned or not.
    ///
    /// # Safety
    /// The CPU must have AVX-512 F; `p` points to 32 readable values, on
    /// a 64-byte boundary if `ALIGNED`.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn load<const ALIGNED: bool>(p: *const i16) -> __m512i {
        // SAFETY: the caller's contract.
        unsafe {
            if ALIGNED {
                _mm512_load_si512(p.cast())
            } else {
                _mm512_loadu_si512(p.cast())
            }
        }
    }

    /// # Safety
    /// The CPU must have AVX-512 F and BW; every row holds at least `L1`
    /// values; if `ALIGNED`, `dst`, `src` and every row start on a 64-byte
    /// boundary.
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    pub unsafe fn update<'a, const ALIGNED: bool>(
        dst: &mut [i16; L1],
        src: &[i16; L1],
        removed: impl Iterator<Item = &'a [i16]>,
        added: impl Iterator<Item = &'a [i16]>,
    ) {
        // SAFETY (all blocks): offsets i * 32 + 32 <= L1 in arrays of
        // `L1` and in rows checked to hold `L1`; aligned as promised.
        let mut sums = [_mm512_setzero_si512(); CHUNKS];
        for (i, s) in sums.iter_mut().enumerate() {
            *s = unsafe { load::<ALIGNED>(src.as_ptr().add(i * 32)) };
        }
        for row in removed {
            assert!(row.len() >= L1);
            for (i, s) in sums.iter_mut().enumerate() {
                *s = _mm512_sub_epi16(*s, unsafe { load::<ALIGNED>(row.as_ptr().add(i * 32)) });
            }
        }
        for row in added {
            assert!(row.len() >= L1);
            for (i, s) in sums.iter_mut().enumerate() {
                *s = _mm512_add_epi16(*s, unsafe { load::<ALIGNED>(row.as_ptr().add(i * 32)) });
            }
        }
        for (i, s) in sums.iter().enumerate() {
            let at = unsafe { dst.as_mut_ptr().add(i * 32).cast() };
            if ALIGNED {
                unsafe { _mm512_store_si512(at, *s) };
            } else {
                unsafe { _mm512_storeu_si512(at, *s) };
            }
        }
    }

    /// As `avx2::clipped_pairs`, 16 pairs per register.
    ///
    /// # Safety
    /// The CPU must have AVX-512 F and BW.
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    unsafe fn clipped_pairs(
        stm: &[i16; L1],
        other: &[i16; L1],
        pairs: &mut MaybeUninit<[i32; L1]>,
        nonzero: &mut MaybeUninit<[u8; L1 + 8]>,
    ) -> usize {
        let zero = _mm512_setzero_si512();
        let top = _mm512_set1_epi16(QA as i16);
        let mut count = 0;
        for c in 0..2 * CHUNKS {
            let half = if c < CHUNKS { stm } else { other };
            // SAFETY: (c % CHUNKS) * 32 + 32 <= L1 and c * 16 + 16 <= L1;
            // each group of 8 pairs writes 8 indices from count, which is
            // at most the group's first pair, so within L1 + 8; unaligned.
            unsafe {
                let v = _mm512_loadu_si512(half.as_ptr().add((c % CHUNKS) * 32).cast());
                let v = _mm512_min_epi16(_mm512_max_epi16(v, zero), top);
                _mm512_storeu_si512(pairs.as_mut_ptr().cast::<i32>().add(c * 16).cast(), v);
                let mask = _mm512_cmpneq_epi32_mask(v, zero);
                for (byte, bits) in mask.to_le_bytes().into_iter().enumerate() {
                    let first = (c * 16 + byte * 8) as u64;
                    let indices = SET_BITS[bits as usize] + first * 0x0101_0101_0101_0101;
                    nonzero
                        .as_mut_ptr()
                        .cast::<u8>()
                        .add(count)
                        .cast::<u64>()
                        .write_unaligned(indices.to_le());
                    count += bits.count_ones() as usize;
                }
            }
        }
        count
    }

    /// The forward pass of `avx2::forward_vnni`, a pair's 32 weights in
    /// two registers; four sets of sums hide the multiply-add's latency.
    ///
    /// # Safety
    /// The CPU must have AVX-512 F, BW and VNNI; `layers` holds `L1` pair
    /// rows of `2 * L2` weights, `L2` biases and `L2` output weights.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    #[inline]
    pub unsafe fn forward(stm: &[i16; L1], other: &[i16; L1], layers: &Layers) -> i32 {
        let (weights, bias, out_weights) = (layers.l1_pairs, layers.l1_bias, layers.out_weights);
        assert!(weights.len() >= L1 * 2 * L2 && bias.len() >= L2 && out_weights.len() >= L2);
        // Rows of 2 * L2 values (128 bytes): all aligned if the first is.
        assert!(aligned(weights));
        let mut pairs = MaybeUninit::uninit();
        let mut nonzero = MaybeUninit::uninit();
        // SAFETY: the features this function enables include AVX-512 F
        // and BW; then all of `pairs` and the first `count` of `nonzero`
        // are written, and every index is below L1.
        let count = unsafe { clipped_pairs(stm, other, &mut pairs, &mut nonzero) };
        let pairs: *const i32 = pairs.as_ptr().cast();
        let nonzero = unsafe { std::slice::from_raw_parts(nonzero.as_ptr().cast::<u8>(), count) };
        let mut sums = [[_mm512_setzero_si512(); L2 / 16]; 4];
        let add_pair = |sums: &mut [__m512i; L2 / 16], k: u8| {
            let k = k as usize;
            // SAFETY: k < L1, so the pair is one written above and the
            // row's 2 * L2 values, on a 64-byte boundary, are inside the
            // slice checked above.
            let x = _mm512_set1_epi32(unsafe { *pairs.add(k) });
            let row = unsafe { weights.as_ptr().add(k * 2 * L2) };
            for (r, sum) in sums.iter_mut().enumerate() {
                let w = unsafe { load::<true>(row.add(r * 32)) };
                *sum = _mm512_dpwssd_epi32(*sum, x, w);
            }
        };
        let mut four = nonzero.chunks_exact(4);
        for ks in &mut four {
            for (set, &k) in sums.iter_mut().zip(ks) {
                add_pair(set, k);
            }
        }
        for (set, &k) in sums.iter_mut().zip(four.remainder()) {
            add_pair(set, k);
        }
        let round = _mm512_set1_epi32(1 << (QW_SHIFT - 1));
        let (zero, top) = (_mm512_setzero_si512(), _mm512_set1_epi32(QA));
        let mut out = zero;
        for r in 0..L2 / 16 {
            let sum = sums
                .iter()
                .fold(zero, |total, set| _mm512_add_epi32(total, set[r]));
            // SAFETY: r * 16 + 16 <= L2 for both slices checked above.
            let (b, w) = unsafe {
                (
                    _mm512_loadu_si512(bias.as_ptr().add(r * 16).cast()),
                    _mm256_loadu_si256(out_weights.as_ptr().add(r * 16).cast()),
                )
            };
            let hidden =
                _mm512_srai_epi32::<QW_SHIFT>(_mm512_add_epi32(_mm512_add_epi32(sum, b), round));
            let hidden = _mm512_min_epi32(_mm512_max_epi32(hidden, zero), top);
            out = _mm512_add_epi32(out, _mm512_mullo_epi32(hidden, _mm512_cvtepi16_epi32(w)));
        }
        layers.out_bias + _mm512_reduce_add_epi32(out)
    }
}

#[cfg(test)]
mod tests {
    use super::super::network::AlignedI16;
    use super::*;

    /// One accumulator half on a 64-byte boundary, as in `Accumulator`.
    #[repr(align(64))]
    struct Half([i16; L1]);

    fn xorshift(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// The SIMD kernels give the scalar kernels' integers, wrapping
    /// included (where the CPU has AVX2; elsewhere there is one path).
    #[test]
    fn simd_and_scalar_agree() {
        for simd in Backend::available() {
            agree_with_scalar(simd);
        }
    }

    fn agree_with_scalar(simd: Backend) {
        let mut seed = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..200 {
            let row: Vec<i16> = (0..L1).map(|_| xorshift(&mut seed) as i16).collect();
            let start: [i16; L1] = std::array::from_fn(|_| xorshift(&mut seed) as i16);
            let (mut a, mut b) = (start, start);
            Backend::Scalar.add(&mut a, &row);
            simd.add(&mut b, &row);
            assert_eq!(a, b);
            Backend::Scalar.sub(&mut a, &row);
            simd.sub(&mut b, &row);
            assert_eq!(a, start);
            assert_eq!(b, start);
            let input: Vec<i16> = (0..2 * L1)
                .map(|_| (xorshift(&mut seed) % 128) as i16)
                .collect();
            let weights: Vec<i16> = (0..2 * L1).map(|_| xorshift(&mut seed) as i16).collect();
            assert_eq!(
                Backend::Scalar.dot(&input, &weights),
                simd.dot(&input, &weights)
            );
            let input: [i16; 2 * L1] = std::array::from_fn(|_| (xorshift(&mut seed) % 128) as i16);
            let matrix: Vec<i16> = (0..L2 * 2 * L1)
                .map(|_| xorshift(&mut seed) as i16)
                .collect();
            let bias: Vec<i32> = (0..L2).map(|_| xorshift(&mut seed) as i32 >> 8).collect();
            assert_eq!(
                Backend::Scalar.affine(&input, &matrix, &bias),
                simd.affine(&input, &matrix, &bias)
            );
            // The fused update and the whole forward pass, on halves
            // that reach beyond the clipping range both ways.
            let table: Vec<i16> = (0..8 * L1).map(|_| xorshift(&mut seed) as i16).collect();
            let removed: Vec<u16> = (0..3).map(|_| (xorshift(&mut seed) % 8) as u16).collect();
            let added: Vec<u16> = (0..5).map(|_| (xorshift(&mut seed) % 8) as u16).collect();
            let (mut a, mut b) = ([0i16; L1], [0i16; L1]);
            Backend::Scalar.update(&mut a, &start, &table, &removed, &added);
            simd.update(&mut b, &start, &table, &removed, &added);
            assert_eq!(a, b);
            // The same with everything aligned (the network's case).
            let aligned_table = AlignedI16::from(table.clone());
            let (from, mut to) = (Half(start), Half([0; L1]));
            simd.update(&mut to.0, &from.0, &aligned_table, &removed, &added);
            assert_eq!(a, to.0);
            let mut step = start;
            for &f in &removed {
                Backend::Scalar.sub(&mut step, &table[f as usize * L1..]);
            }
            for &f in &added {
                Backend::Scalar.add(&mut step, &table[f as usize * L1..]);
            }
            assert_eq!(a, step);
            let half = |seed: &mut u64| -> [i16; L1] {
                std::array::from_fn(|_| (xorshift(seed) % 400) as i16 - 150)
            };
            let (stm, other) = (half(&mut seed), half(&mut seed));
            let small: Vec<i16> = (0..L2 * 2 * L1)
                .map(|_| (xorshift(&mut seed) % 4001) as i16 - 2000)
                .collect();
            let out_weights: Vec<i16> = (0..L2).map(|_| xorshift(&mut seed) as i16).collect();
            let pairs = AlignedI16::from(pair_major(&small));
            let layers = Layers {
                l1_weights: &small,
                l1_pairs: &pairs,
                l1_bias: &bias,
                out_weights: &out_weights,
                out_bias: xorshift(&mut seed) as i32 >> 12,
            };
            assert_eq!(
                Backend::Scalar.forward(&stm, &other, &layers),
                simd.forward(&stm, &other, &layers)
            );
            // The sparse second layer's edges: every pair skipped, none
            // skipped, and a single nonzero activation (an odd count).
            let (low, high) = ([-5i16; L1], [QA as i16 + 9; L1]);
            let mut single = low;
            single[(xorshift(&mut seed) % L1 as u64) as usize] = 77;
            for (stm, other) in [
                (&low, &low),
                (&high, &high),
                (&low, &single),
                (&single, &high),
            ] {
                assert_eq!(
                    Backend::Scalar.forward(stm, other, &layers),
                    simd.forward(stm, other, &layers)
                );
            }
        }
    }
}
