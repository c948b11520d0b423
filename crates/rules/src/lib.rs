#![deny(missing_docs)]
//! The game model: boards, columns, positions, move generation, notation,
//! the rule set, games and perft. It depends on nothing else in the crate.

mod bitboard;
mod column;
mod game;
mod geometry;
mod movegen;
mod moves;
mod notation;
mod perft;
mod position;
mod ruleset;

pub use bitboard::{Bitboard, Squares};
pub use column::{Column, ColumnError, MAX_HEIGHT, Piece};
pub use game::Game;
pub use geometry::{Colour, Direction, Geometry, Square, Variant};
pub use movegen::Reach;
pub use moves::{MAX_CAPTURES, Move};
pub use notation::{NotationError, column_text, parse_square, piece_char};
pub use perft::{divide, perft};
pub use position::{KingLanding, MAX_COUNTER, Position, Undo};
pub use ruleset::{DrawReason, DrawRules, GameEnd, ParseRuleError, RuleSet};
