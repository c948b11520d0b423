//! The learned evaluation (docs/tuning.md, "Learned evaluation"): an
//! NNUE-style network whose inputs see whole columns.
//!
//! - `features`: which features a column switches on, per perspective;
//! - `network`: the integer network, its forward pass and quantisation
//!   from the f32 weights training fits;
//! - `kernels`: the inner loops, scalar, AVX2 and AVX-512, with equal
//!   results;
//! - `accumulator`: the first layer's sums and their update by a move;
//! - `stack`: the accumulators along a search path;
//! - `file`: the network file and its typed errors.
//!
//! ```
//! use bashni_engine::nnue::{Accumulator, FloatNetwork};
//! use bashni_rules::{Position, RuleSet, Variant};
//!
//! let net = FloatNetwork::random(Variant::Lasca, 1).quantise(Variant::Lasca, "example");
//! let pos = Position::start(&RuleSet::new(Variant::Lasca));
//! let acc = Accumulator::from_position(&net, &pos);
//! assert_eq!(net.evaluate(&acc, pos.side_to_move()), net.evaluate_position(&pos));
//! ```

mod accumulator;
pub mod features;
mod file;
mod kernels;
mod network;
mod stack;

pub use accumulator::{Accumulator, MoveDelta};
pub use file::{NetworkError, VERSION};
pub use kernels::Backend;
pub use network::{CP_PER_UNIT, FloatNetwork, L1, L2, MAX_HIDDEN_WEIGHT, Network, QA, QW};
pub use stack::AccumulatorStack;

use bashni_rules::Variant;

/// The networks built into this binary, by variant (`EvalFile embedded`,
/// the default), made by docs/train-network.sh; each file's provenance
/// says how. The `UCI_Elo` table is measured in Bashni with them
/// (docs/strength.md, "Calibration"): a new Bashni network means measuring
/// it again.
const EMBEDDED: [(Variant, &[u8]); 2] = [
    (Variant::Bashni, include_bytes!("nets/bashni.nnue")),
    (Variant::Lasca, include_bytes!("nets/lasca.nnue")),
];

/// The network built into the binary for `variant`, if one is shipped.
pub fn embedded(variant: Variant) -> Option<Result<Network, NetworkError>> {
    EMBEDDED
        .iter()
        .find(|(v, _)| *v == variant)
        .map(|(_, bytes)| Network::from_bytes(bytes))
}

impl FloatNetwork {
    /// Small random weights (a fixed generator, so a seed gives one
    /// network): where training starts, and what tests evaluate with.
    pub fn random(variant: Variant, seed: u64) -> FloatNetwork {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut uniform = move |limit: f32| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ((state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * limit
        };
        let mut net = FloatNetwork::zeros(variant);
        net.ft_weights.iter_mut().for_each(|w| *w = uniform(0.1));
        net.ft_bias.iter_mut().for_each(|w| *w = 0.1 + uniform(0.1));
        let l1_limit = (6.0 / (2 * L1) as f32).sqrt();
        net.l1_weights
            .iter_mut()
            .for_each(|w| *w = uniform(l1_limit));
        let out_limit = (6.0 / L2 as f32).sqrt();
        net.out_weights
            .iter_mut()
            .for_each(|w| *w = uniform(out_limit));
        net
    }
}

#[cfg(test)]
mod tests;
