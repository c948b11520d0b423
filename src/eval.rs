//! Stand-in evaluation (material only) until the tapered evaluation lands.

use crate::rules::{Colour, Position, squares};

/// Static score in centi-men from the side to move's view.
pub fn evaluate(pos: &Position) -> i32 {
    let side = pos.side_to_move();
    let value = |c: Colour| {
        squares(pos.commanded_by(c))
            .map(|sq| {
                let col = pos.column(sq);
                if col.top_is_king() { 300 } else { 100 }
            })
            .sum::<i32>()
    };
    value(side) - value(!side)
}

/// The breakdown for the `eval` command.
pub fn explain(pos: &Position) -> String {
    format!("material {}", evaluate(pos))
}
