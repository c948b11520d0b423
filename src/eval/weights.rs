//! The evaluation's weights, one table per variant: a (midgame, endgame)
//! pair in centi-men for every parameter of [`super::Param`], in its order.
//!
//! Hand-set (the weights the evaluation shipped with before tuning).
//! `bashni tune --write` regenerates this file from self-play data
//! (docs/tuning.md).

use super::{Weights, pair};

/// Bashni: flying kings are worth far more than men.
pub const BASHNI_WEIGHTS: Weights = Weights {
    midgame_columns: 24,
    endgame_columns: 4,
    params: [
        pair(100, 100), // commander
        pair(150, 220), // king
        pair(10, 20),   // king-long-diagonal
        pair(60, 70),   // armour-1
        pair(60, 70),   // armour-2
        pair(60, 70),   // armour-3+
        pair(40, 60),   // buried-king
        pair(35, 30),   // prisoner-guard-1
        pair(15, 12),   // prisoner-guard-2
        pair(5, 5),     // prisoner-guard-3+
        pair(25, 30),   // prisoner-king-guard-1
        pair(10, 12),   // prisoner-king-guard-2
        pair(3, 4),     // prisoner-king-guard-3+
        pair(0, 0),     // advancement-1
        pair(1, 2),     // advancement-2
        pair(3, 5),     // advancement-3
        pair(5, 9),     // advancement-4
        pair(7, 14),    // advancement-5
        pair(10, 22),   // advancement-6
        pair(14, 32),   // advancement-7
        pair(0, 0),     // advancement-8
        pair(10, 0),    // back-rank
        pair(6, 2),     // centre
        pair(2, 2),     // man-mobility
        pair(2, 3),     // king-mobility
        pair(12, 16),   // attacked
        pair(25, 30),   // attacked-prisoner
        pair(0, 0),     // attacked-king
        pair(8, 4),     // tempo
    ],
};

/// Lasca: officers step and soldiers capture forwards only, so kings are
/// worth less and columns (the game's real material) count for more.
pub const LASCA_WEIGHTS: Weights = Weights {
    midgame_columns: 22,
    endgame_columns: 4,
    params: [
        pair(100, 100), // commander
        pair(60, 90),   // king
        pair(0, 0),     // king-long-diagonal
        pair(65, 70),   // armour-1
        pair(65, 70),   // armour-2
        pair(65, 70),   // armour-3+
        pair(30, 40),   // buried-king
        pair(40, 35),   // prisoner-guard-1
        pair(15, 12),   // prisoner-guard-2
        pair(5, 5),     // prisoner-guard-3+
        pair(20, 25),   // prisoner-king-guard-1
        pair(8, 10),    // prisoner-king-guard-2
        pair(3, 4),     // prisoner-king-guard-3+
        pair(0, 0),     // advancement-1
        pair(1, 3),     // advancement-2
        pair(3, 7),     // advancement-3
        pair(6, 12),    // advancement-4
        pair(9, 18),    // advancement-5
        pair(12, 25),   // advancement-6
        pair(0, 0),     // advancement-7
        pair(0, 0),     // advancement-8
        pair(8, 0),     // back-rank
        pair(8, 3),     // centre
        pair(2, 2),     // man-mobility
        pair(2, 3),     // king-mobility
        pair(12, 16),   // attacked
        pair(25, 30),   // attacked-prisoner
        pair(0, 0),     // attacked-king
        pair(8, 4),     // tempo
    ],
};
