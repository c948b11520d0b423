//! The evaluation's weights, one table per variant: a (midgame, endgame)
//! pair in centi-men for every parameter of [`super::Param`], in its order.
//!
//! Written by `bashni tune --write` from self-play data (docs/tuning.md).

use super::{Weights, pair};

/// bashni: tuned on 28357 positions (K = 0.6236, 400 epochs); error 0.131478 -> 0.115848, on 3488 held-out positions 0.156429 -> 0.140188.
pub const BASHNI_WEIGHTS: Weights = Weights {
    midgame_columns: 24,
    endgame_columns: 4,
    params: [
        pair(100, 100),  // commander
        pair(303, 185),  // king
        pair(184, -20),  // king-long-diagonal
        pair(132, 112),  // armour-1
        pair(193, 123),  // armour-2
        pair(42, 68),    // armour-3+
        pair(409, -84),  // buried-king
        pair(11, -6),    // prisoner-guard-1
        pair(-42, -1),   // prisoner-guard-2
        pair(5, 5),      // prisoner-guard-3+
        pair(322, 39),   // prisoner-king-guard-1
        pair(131, 22),   // prisoner-king-guard-2
        pair(-154, -15), // prisoner-king-guard-3+
        pair(0, 0),      // advancement-1
        pair(-44, -10),  // advancement-2
        pair(-51, -25),  // advancement-3
        pair(-9, -52),   // advancement-4
        pair(-114, -48), // advancement-5
        pair(10, -1),    // advancement-6
        pair(17, 31),    // advancement-7
        pair(0, 0),      // advancement-8
        pair(94, 7),     // back-rank
        pair(46, -12),   // centre
        pair(-35, 16),   // man-mobility
        pair(117, -15),  // king-mobility
        pair(-191, -63), // attacked
        pair(153, 8),    // attacked-prisoner
        pair(152, 35),   // attacked-king
        pair(85, 14),    // tempo
    ],
};

/// lasca: tuned on 37353 positions (K = 1.1843, 400 epochs); error 0.118569 -> 0.098591, on 4650 held-out positions 0.172908 -> 0.157114.
pub const LASCA_WEIGHTS: Weights = Weights {
    midgame_columns: 22,
    endgame_columns: 4,
    params: [
        pair(100, 100),  // commander
        pair(-31, 21),   // king
        pair(0, 0),      // king-long-diagonal
        pair(46, 126),   // armour-1
        pair(226, 124),  // armour-2
        pair(-175, 104), // armour-3+
        pair(34, 103),   // buried-king
        pair(-40, 16),   // prisoner-guard-1
        pair(-11, -3),   // prisoner-guard-2
        pair(5, 5),      // prisoner-guard-3+
        pair(79, -7),    // prisoner-king-guard-1
        pair(-321, 20),  // prisoner-king-guard-2
        pair(-113, 0),   // prisoner-king-guard-3+
        pair(0, 0),      // advancement-1
        pair(14, 26),    // advancement-2
        pair(-22, 8),    // advancement-3
        pair(-54, -61),  // advancement-4
        pair(-8, -39),   // advancement-5
        pair(-89, -32),  // advancement-6
        pair(0, 0),      // advancement-7
        pair(0, 0),      // advancement-8
        pair(115, -1),   // back-rank
        pair(-30, 9),    // centre
        pair(-4, 30),    // man-mobility
        pair(-5, 14),    // king-mobility
        pair(66, -8),    // attacked
        pair(58, 22),    // attacked-prisoner
        pair(-136, -12), // attacked-king
        pair(13, 12),    // tempo
    ],
};
