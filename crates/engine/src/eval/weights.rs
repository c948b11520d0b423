//! The evaluation's weights, one table per variant: a (midgame, endgame)
//! pair in centi-men for every parameter of [`super::Param`], in its order.
//!
//! Written by `bashni tune --write` from self-play data (docs/tuning.md).

use super::{Weights, pair};

/// bashni: tuned on 796787 positions (K = 0.6324, 400 epochs); error 0.122268 -> 0.121991, on 90201 held-out positions 0.121159 -> 0.120985. Held at 0: attacked-king, king-long-diagonal (the second since removed from the evaluation: it counts in Bashni only).
pub const BASHNI_WEIGHTS: Weights = Weights {
    midgame_columns: 24,
    endgame_columns: 4,
    params: [
        pair(100, 100),  // commander
        pair(453, 184),  // king
        pair(190, 122),  // armour-1
        pair(205, 136),  // armour-2
        pair(170, 62),   // armour-3+
        pair(567, 66),   // buried-king
        pair(92, 11),    // prisoner-guard-1
        pair(31, 7),     // prisoner-guard-2
        pair(5, 5),      // prisoner-guard-3+
        pair(212, 33),   // prisoner-king-guard-1
        pair(94, 27),    // prisoner-king-guard-2
        pair(23, 24),    // prisoner-king-guard-3+
        pair(0, 0),      // advancement-1
        pair(65, -31),   // advancement-2
        pair(56, -39),   // advancement-3
        pair(75, -34),   // advancement-4
        pair(-13, -7),   // advancement-5
        pair(85, 36),    // advancement-6
        pair(42, 83),    // advancement-7
        pair(0, 0),      // advancement-8
        pair(156, 5),    // back-rank
        pair(16, -15),   // centre
        pair(-11, 16),   // man-mobility
        pair(71, -4),    // king-mobility
        pair(-233, -40), // attacked
        pair(188, 18),   // attacked-prisoner
        pair(0, 0),      // attacked-king
        pair(97, 23),    // tempo
    ],
};

/// lasca: tuned on 1088410 positions (K = 1.2082, 400 epochs); error 0.091788 -> 0.088760, on 120236 held-out positions 0.089897 -> 0.086673.
pub const LASCA_WEIGHTS: Weights = Weights {
    midgame_columns: 22,
    endgame_columns: 4,
    params: [
        pair(100, 100), // commander
        pair(25, 37),   // king
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
