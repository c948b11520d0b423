//! The evaluation's weights, one table per variant: a (midgame, endgame)
//! pair in centi-men for every parameter of [`super::Param`], in its order.
//!
//! Written by `bashni tune --write` from self-play data (docs/tuning.md).

use super::{Weights, pair};

/// bashni: tuned on 834996 positions (K = 0.6204, 400 epochs); error 0.122028 -> 0.119722, on 94835 held-out positions 0.121079 -> 0.119522.
pub const BASHNI_WEIGHTS: Weights = Weights {
    midgame_columns: 24,
    endgame_columns: 4,
    params: [
        pair(100, 100),  // commander
        pair(522, 161),  // king
        pair(-57, -16),  // king-long-diagonal
        pair(204, 109),  // armour-1
        pair(229, 125),  // armour-2
        pair(185, 59),   // armour-3+
        pair(564, 33),   // buried-king
        pair(98, 6),     // prisoner-guard-1
        pair(11, 6),     // prisoner-guard-2
        pair(5, 5),      // prisoner-guard-3+
        pair(298, 27),   // prisoner-king-guard-1
        pair(65, 10),    // prisoner-king-guard-2
        pair(-65, 12),   // prisoner-king-guard-3+
        pair(0, 0),      // advancement-1
        pair(62, -26),   // advancement-2
        pair(75, -41),   // advancement-3
        pair(94, -39),   // advancement-4
        pair(10, -14),   // advancement-5
        pair(92, 48),    // advancement-6
        pair(23, 86),    // advancement-7
        pair(0, 0),      // advancement-8
        pair(165, 7),    // back-rank
        pair(7, -3),     // centre
        pair(-16, 13),   // man-mobility
        pair(74, -5),    // king-mobility
        pair(-248, -29), // attacked
        pair(194, 15),   // attacked-prisoner
        pair(162, 5),    // attacked-king
        pair(99, 21),    // tempo
    ],
};

/// lasca: tuned on 1088410 positions (K = 1.2082, 400 epochs); error 0.091788 -> 0.088760, on 120236 held-out positions 0.089897 -> 0.086673.
pub const LASCA_WEIGHTS: Weights = Weights {
    midgame_columns: 22,
    endgame_columns: 4,
    params: [
        pair(100, 100), // commander
        pair(25, 37),   // king
        pair(0, 0),     // king-long-diagonal
        pair(44, 171),  // armour-1
        pair(46, 157),  // armour-2
        pair(59, 92),   // armour-3+
        pair(-38, 83),  // buried-king
        pair(-10, 21),  // prisoner-guard-1
        pair(-65, 6),   // prisoner-guard-2
        pair(5, 5),     // prisoner-guard-3+
        pair(45, 16),   // prisoner-king-guard-1
        pair(-105, 15), // prisoner-king-guard-2
        pair(-273, 11), // prisoner-king-guard-3+
        pair(0, 0),     // advancement-1
        pair(50, 21),   // advancement-2
        pair(18, 10),   // advancement-3
        pair(-17, -22), // advancement-4
        pair(-10, -10), // advancement-5
        pair(-63, 10),  // advancement-6
        pair(0, 0),     // advancement-7
        pair(0, 0),     // advancement-8
        pair(121, -10), // back-rank
        pair(-56, 10),  // centre
        pair(38, 14),   // man-mobility
        pair(31, 10),   // king-mobility
        pair(82, -27),  // attacked
        pair(53, 36),   // attacked-prisoner
        pair(-84, -26), // attacked-king
        pair(31, 12),   // tempo
    ],
};
