//! bashni: an engine for column draughts (Bashni and Lasca).
//!
//! Data flows one way: `protocol` -> `search` -> (`eval`, `tt`) -> `rules`.
//! `tournament` talks to engines only through the text protocol.
//!
//! The game model on its own:
//!
//! ```
//! use bashni::rules::{Position, RuleSet, Variant, perft};
//!
//! let mut pos = Position::start(&RuleSet::new(Variant::Bashni));
//! assert_eq!(perft(&mut pos, 3), 302);
//!
//! // A capture takes the top piece of the jumped column and puts it under
//! // the capturing column; nothing leaves the board.
//! let mut pos = Position::from_fen(&RuleSet::new(Variant::Bashni), "W:c3w,d4bw,f6b 0 1").unwrap();
//! let chain = pos.parse_move("c3xe5xg7").unwrap();
//! pos.make(&chain);
//! assert_eq!(pos.to_fen(), "B:d4w,g7wbb 0 1");
//! ```

#[cfg(feature = "tools")]
pub mod analyse;
#[cfg(feature = "tools")]
pub mod annotate;
pub mod bench;
#[cfg(feature = "tools")]
pub mod cli;
pub mod eval;
#[cfg(feature = "tools")]
pub mod gui;
pub mod protocol;
pub mod rules;
pub mod search;
#[cfg(feature = "tools")]
pub mod search_args;
#[cfg(feature = "tools")]
pub mod selfplay;
pub mod stdout;
#[cfg(feature = "tools")]
pub mod tournament;
pub mod tt;
#[cfg(feature = "tools")]
pub mod tune;
