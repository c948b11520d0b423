//! The game model: boards, columns, positions, move generation, notation
//! and perft. It depends on nothing else in the crate.

mod column;
mod draw;
mod geometry;
mod movegen;
mod moves;
mod notation;
mod perft;
mod position;

pub use column::{Column, ColumnError, MAX_HEIGHT, Piece};
pub use draw::DrawRules;
pub use geometry::{Bitboard, Colour, Direction, Geometry, Square, Variant, squares};
pub use moves::{MAX_CAPTURES, Move};
pub use notation::{NotationError, column_text, parse_square, piece_char};
pub use perft::{divide, perft, perft_parallel};
pub use position::{KingLanding, Position, Undo};
