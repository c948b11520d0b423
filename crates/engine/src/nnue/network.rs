//! The network: its integer weights, the forward pass from an
//! accumulator, and quantisation from the f32 weights training fits.

use super::accumulator::Accumulator;
use super::features::feature_count;
use super::kernels::Backend;
use crate::eval::MAX_EVAL;
use bashni_rules::{Colour, Position, Variant};

/// Accumulator width per perspective (the first hidden layer).
pub const L1: usize = 128;
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
/// log2(QW): the shift back from `QA * QW` to `QA` after the second layer.
const QW_SHIFT: u32 = QW.trailing_zeros();
/// Centi-men per unit of network output: the score whose sigmoid
/// `1 / (1 + 10^(-score / 400))` equals the sigmoid of the output.
pub const CP_PER_UNIT: f32 = 400.0 / std::f32::consts::LN_10;

/// A network with integer weights, ready to evaluate one variant.
#[derive(Clone, PartialEq)]
pub struct Network {
    pub(super) variant: Variant,
    pub(super) provenance: String,
    /// `feature_count(variant)` rows of `L1` (scale `QA`).
    pub(super) ft_weights: Vec<i16>,
    pub(super) ft_bias: Vec<i16>,
    /// `L2` rows of `2 * L1`, side to move's half first (scale `QW`).
    pub(super) l1_weights: Vec<i16>,
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
        self.backend = if backend == Backend::detect() {
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
    pub fn evaluate(&self, acc: &Accumulator, side_to_move: Colour) -> i32 {
        let raw = self.raw_output(acc, side_to_move) as i64;
        // raw / (QA * QW) units of CP_PER_UNIT = 400 / ln 10 each.
        let cp = raw * 400 / RAW_PER_LOG10;
        cp.clamp(-(MAX_EVAL as i64), MAX_EVAL as i64) as i32
    }

    /// The output before scaling: `QA * QW` is 1.0.
    pub fn raw_output(&self, acc: &Accumulator, side_to_move: Colour) -> i32 {
        let mut input = [0i16; 2 * L1];
        for (half, perspective) in [side_to_move, !side_to_move].into_iter().enumerate() {
            let values = acc.values(perspective);
            for (a, &v) in input[half * L1..(half + 1) * L1].iter_mut().zip(values) {
                *a = v.clamp(0, QA as i16);
            }
        }
        // Rounded, not floored, back to the scale of QA.
        let half = 1 << (QW_SHIFT - 1);
        let sums = self.backend.affine(&input, &self.l1_weights, &self.l1_bias);
        sums.iter()
            .zip(&self.out_weights)
            .fold(self.out_bias, |out, (&sum, &w)| {
                let hidden = ((sum + half) >> QW_SHIFT).clamp(0, QA);
                out + hidden * w as i32
            })
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
        Network {
            variant,
            provenance: provenance.to_string(),
            ft_weights: quantise(&self.ft_weights, qa, i16::MAX as i64),
            ft_bias: quantise(&self.ft_bias, qa, i16::MAX as i64),
            l1_weights: quantise(&self.l1_weights, qw, i16::MAX as i64),
            l1_bias: quantise(&self.l1_bias, qa * qw, i32::MAX as i64),
            out_weights: quantise(&self.out_weights, qw, i16::MAX as i64),
            out_bias: quantise::<i32>(&[self.out_bias], qa * qw, i32::MAX as i64)[0],
            backend: Backend::detect(),
        }
    }
}
