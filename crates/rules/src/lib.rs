#![deny(missing_docs)]
//! The game model of column draughts, Bashni (8x8, flying kings) and Lasca
//! (7x7): boards, columns, positions, move generation, notation, rule sets,
//! games and perft. It depends on nothing at all.
//!
//! A capture takes the top piece of the jumped column and puts it under
//! the capturing column; nothing leaves the board:
//!
//! ```
//! use bashni_rules::{Position, RuleSet, Variant, perft};
//!
//! let rules = RuleSet::new(Variant::Bashni);
//! let mut pos = Position::start(&rules);
//! assert_eq!(perft(&mut pos, 3), 302);
//!
//! let mut pos = Position::from_fen(&rules, "W:c3w,d4bw,f6b 0 1").unwrap();
//! let chain = pos.parse_move("c3xe5xg7").unwrap();
//! pos.make(&chain);
//! assert_eq!(pos.to_fen(), "B:d4w,g7wbb 0 1");
//! ```
//!
//! A [`Game`] keeps the moves and decides how the game ends:
//!
//! ```
//! use bashni_rules::{Colour, Game, GameEnd, RuleSet, Variant};
//!
//! // White's man on c3 jumps the lone black man; Black has nothing left
//! // to move and loses.
//! let mut game = Game::from_fen(RuleSet::new(Variant::Lasca), "W:c3w,d4b 0 1").unwrap();
//! game.play_text("c3xe5").unwrap();
//! assert_eq!(game.result(), Some(GameEnd::NoLegalMove { loser: Colour::Black }));
//! ```

mod bitboard;
mod column;
mod game;
mod geometry;
mod mix;
mod movegen;
mod moves;
mod notation;
mod perft;
mod playout;
mod position;
mod ruleset;

pub use bitboard::{Bitboard, Squares};
pub use column::{Column, ColumnError, MAX_HEIGHT, Piece};
pub use game::Game;
pub use geometry::{Colour, Direction, Geometry, Square, Variant};
pub use mix::{SplitMix64, mix64};
pub use movegen::Reach;
pub use moves::{MAX_CAPTURES, Move};
pub use notation::{NotationError, column_text, parse_square, piece_char};
pub use perft::{divide, perft};
pub use playout::random_game_positions;
pub use position::{KingLanding, MAX_COUNTER, Position, Undo};
pub use ruleset::{DrawReason, DrawRules, GameEnd, ParseRuleError, RuleSet};
