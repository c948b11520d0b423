//! The integer inner loops, in a scalar version and, on x86_64 CPUs with
//! AVX2, a SIMD one. Both compute exactly the same integers: i16 sums wrap
//! the same way, and the dot product multiplies i16 by i16 into i32 pair
//! sums (`madd`), which cannot overflow for activations of at most 127
//! (256 * 127 * 32768 < 2^31). A test compares them on random data.

use super::network::{L1, L2};

/// Which code runs the inner loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// Plain Rust, on any CPU.
    Scalar,
    /// AVX2 intrinsics (x86_64 only, chosen when the CPU has AVX2).
    Avx2,
}

impl Backend {
    /// The fastest backend this CPU runs.
    pub fn detect() -> Backend {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Backend::Avx2;
        }
        Backend::Scalar
    }

    /// `acc += row` (wrapping), one accumulator half.
    #[inline]
    pub fn add(self, acc: &mut [i16; L1], row: &[i16]) {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Avx2` is only chosen when the CPU has AVX2.
            Backend::Avx2 => unsafe { avx2::add_sub::<true>(acc, row) },
            _ => scalar_add_sub::<true>(acc, row),
        }
    }

    /// `acc -= row` (wrapping), one accumulator half.
    #[inline]
    pub fn sub(self, acc: &mut [i16; L1], row: &[i16]) {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as in `add`.
            Backend::Avx2 => unsafe { avx2::add_sub::<false>(acc, row) },
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
            Backend::Avx2 => unsafe { avx2::dot(input, weights) },
            _ => scalar_dot(input, weights),
        }
    }
}

impl Backend {
    /// The second layer before its activation: for each of the `L2`
    /// rows of `weights` (each `2 * L1` long), `bias[j] + row . input`.
    /// One call for all rows, so the SIMD path pays for no call or
    /// dispatch per row.
    #[inline]
    pub fn affine(self, input: &[i16; 2 * L1], weights: &[i16], bias: &[i32]) -> [i32; L2] {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as in `add`.
            Backend::Avx2 => unsafe { avx2::affine(input, weights, bias) },
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

fn scalar_dot(input: &[i16], weights: &[i16]) -> i32 {
    input
        .iter()
        .zip(weights)
        .map(|(&a, &w)| a as i32 * w as i32)
        .sum()
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{L1, L2};
    use std::arch::x86_64::*;

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

#[cfg(test)]
mod tests {
    use super::*;

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
        let simd = Backend::detect();
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
        }
    }
}
