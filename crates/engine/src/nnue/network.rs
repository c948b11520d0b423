//! The network: its integer weights, the forward pass from an
//! accumulator, and quantisation from the f32 weights training fits.

use super::accumulator::Accumulator;
use super::features::feature_count;
use super::kernels::{Backend, Layers, pair_major};
use crate::eval::MAX_EVAL;
use bashni_rules::{Colour, Position, Variant};

/// Accumulator width per perspective (the first hidden layer). 64, not
/// 128: half the width fits the self-play data almost as well, and the
/// search, which pays for the width at every evaluation, reaches each
/// depth sooner (docs/tuning.md, "A narrower first layer").
pub const L1: usize = 64;
/// Width of the second hidden layer.
pub const L2: usize = 32;
/// An activation of 1.0 in the integer network (the clipped ReLU's top).
pub const QA: i32 = 127;
/// The scale of the second and output layers' weights (i16). At 64 with
/// i8 weights, a toy network lost a quarter of a logit to rounding; at
/// 1024 the loss is negligible and the dot product stays exact in i32.
pub const QW: i32 = 1024;
/// The largest second-layer weight in f32 that still fits an i16.
pub const MAX_HIDDEN_WEIGHT: f32 = i16::MAX as f32 / QW as f32;
/// `ln 10 * QA * QW`, rounded: the raw output per `CP_PER_UNIT / 400`,
/// so that the score needs no float arithmetic.
const RAW_PER_LOG10: i64 = (std::f64::consts::LN_10 * (QA * QW) as f64 + 0.5) as i64;
/// Centi-men per unit of network output: the score whose sigmoid
/// `1 / (1 + 10^(-score / 400))` equals the sigmoid of the output.
pub const CP_PER_UNIT: f32 = 400.0 / std::f32::consts::LN_10;

/// 64 bytes of i16, aligned to 64: the unit of [`AlignedI16`].
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(C, align(64))]
struct Block([i16; 32]);

/// i16 weights starting on a 64-byte boundary, so that every row of
/// `L1` (or `2 * L1`) values does too: the SIMD kernels load them with
/// aligned loads, one instruction each.
#[derive(Clone, PartialEq, Eq)]
pub struct AlignedI16 {
    blocks: Vec<Block>,
    len: usize,
}

impl From<Vec<i16>> for AlignedI16 {
    fn from(values: Vec<i16>) -> AlignedI16 {
        let mut blocks = vec![Block([0; 32]); values.len().div_ceil(32)];
        for (block, chunk) in blocks.iter_mut().zip(values.chunks(32)) {
            block.0[..chunk.len()].copy_from_slice(chunk);
        }
        AlignedI16 {
            blocks,
            len: values.len(),
        }
    }
}

impl std::ops::Deref for AlignedI16 {
    type Target = [i16];

    fn deref(&self) -> &[i16] {
        // SAFETY: `Block` is `repr(C)` around `[i16; 32]` (64 bytes, no
        // padding), so the blocks are `32 * blocks.len() >= len` i16 in a
        // row, borrowed for `self`'s lifetime.
        unsafe { std::slice::from_raw_parts(self.blocks.as_ptr().cast::<i16>(), self.len) }
    }
}

/// A network with integer weights, ready to evaluate one variant.
#[derive(Clone, PartialEq)]
pub struct Network {
    pub(super) variant: Variant,
    pub(super) provenance: String,
    /// `feature_count(variant)` rows of `L1` (scale `QA`).
    pub(super) ft_weights: AlignedI16,
    pub(super) ft_bias: Vec<i16>,
    /// `L2` rows of `2 * L1`, side to move's half first (scale `QW`).
    pub(super) l1_weights: AlignedI16,
    /// The same, input pair by input pair (`pair_major`), for the SIMD
    /// forward pass; made from `l1_weights` wherever a network is made.
    pub(super) l1_pairs: AlignedI16,
    /// Scale `QA * QW`.
    pub(super) l1_bias: Vec<i32>,
    /// Scale `QW`.
    pub(super) out_weights: Vec<i16>,
    /// Scale `QA * QW`.
    pub(super) out_bias: i32,
    pub(super) backend: Backend,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Network")
            .field("variant", &self.variant)
            .field("features", &feature_count(self.variant))
            .field("l1", &L1)
            .field("l2", &L2)
            .field("backend", &self.backend)
            .finish_non_exhaustive()
    }
}

impl Network {
    /// The variant the network evaluates.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Where the network came from (data command, seed, commit, losses).
    pub fn provenance(&self) -> &str {
        &self.provenance
    }

    /// The inner loops in use.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The same network running on `backend` (tests compare them); a
    /// backend the CPU lacks falls back to the scalar one.
    pub fn with_backend(mut self, backend: Backend) -> Network {
        self.backend = if Backend::available().contains(&backend) {
            backend
        } else {
            Backend::Scalar
        };
        self
    }

    /// Row `feature` of the first layer.
    #[inline]
    pub(super) fn ft_row(&self, feature: u16) -> &[i16] {
        let start = feature as usize * L1;
        &self.ft_weights[start..start + L1]
    }

    /// The score of `pos` in centi-men from the side to move's view,
    /// with the accumulator built from scratch.
    pub fn evaluate_position(&self, pos: &Position) -> i32 {
        self.evaluate(&Accumulator::from_position(self, pos), pos.side_to_move())
    }

    /// The score in centi-men, from `side_to_move`'s view, of the
    /// position `acc` holds; |score| <= `MAX_EVAL`.
    #[inline]
    pub fn evaluate(&self, acc: &Accumulator, side_to_move: Colour) -> i32 {
        let raw = self.raw_output(acc, side_to_move) as i64;
        // raw / (QA * QW) units of CP_PER_UNIT = 400 / ln 10 each.
        let cp = raw * 400 / RAW_PER_LOG10;
        cp.clamp(-(MAX_EVAL as i64), MAX_EVAL as i64) as i32
    }

    /// The output before scaling: `QA * QW` is 1.0.
    #[inline]
    pub fn raw_output(&self, acc: &Accumulator, side_to_move: Colour) -> i32 {
        let layers = Layers {
            l1_weights: &self.l1_weights,
            l1_pairs: &self.l1_pairs,
            l1_bias: &self.l1_bias,
            out_weights: &self.out_weights,
            out_bias: self.out_bias,
        };
        self.backend
            .forward(acc.values(side_to_move), acc.values(!side_to_move), &layers)
    }
}

/// The network's weights in f32, as training fits them; the layout of
/// each vector is that of `Network`.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNetwork {
    /// `features` rows of `L1`.
    pub ft_weights: Vec<f32>,
    /// `L1` values.
    pub ft_bias: Vec<f32>,
    /// `L2` rows of `2 * L1`, side to move's half first.
    pub l1_weights: Vec<f32>,
    /// `L2` values.
    pub l1_bias: Vec<f32>,
    /// `L2` values.
    pub out_weights: Vec<f32>,
    /// The output's bias.
    pub out_bias: f32,
}

fn quantise<T: TryFrom<i64>>(values: &[f32], scale: f32, limit: i64) -> Vec<T> {
    values
        .iter()
        .map(|&v| {
            let q = ((v * scale).round() as i64).clamp(-limit, limit);
            // In range by the clamp.
            T::try_from(q).unwrap_or_else(|_| unreachable!("clamped to the type's range"))
        })
        .collect()
}

impl FloatNetwork {
    /// Zero weights for `variant` (training starts from a random init).
    pub fn zeros(variant: Variant) -> FloatNetwork {
        FloatNetwork {
            ft_weights: vec![0.0; feature_count(variant) * L1],
            ft_bias: vec![0.0; L1],
            l1_weights: vec![0.0; L2 * 2 * L1],
            l1_bias: vec![0.0; L2],
            out_weights: vec![0.0; L2],
            out_bias: 0.0,
        }
    }

    /// The integer network closest to these weights. Second-layer weights
    /// beyond `MAX_HIDDEN_WEIGHT` are clipped (training keeps them inside).
    pub fn quantise(&self, variant: Variant, provenance: &str) -> Network {
        let (qa, qw) = (QA as f32, QW as f32);
        let l1_weights = quantise::<i16>(&self.l1_weights, qw, i16::MAX as i64);
        Network {
            variant,
            provenance: provenance.to_string(),
            ft_weights: AlignedI16::from(quantise::<i16>(&self.ft_weights, qa, i16::MAX as i64)),
            ft_bias: quantise(&self.ft_bias, qa, i16::MAX as i64),
            l1_pairs: AlignedI16::from(pair_major(&l1_weights)),
            l1_weights: AlignedI16::from(l1_weights),
            l1_bias: quantise(&self.l1_bias, qa * qw, i32::MAX as i64),
            out_weights: quantise(&self.out_weights, qw, i16::MAX as i64),
            out_bias: quantise::<i32>(&[self.out_bias], qa * qw, i32::MAX as i64)[0],
            backend: Backend::detect(),
        }
    }
}
