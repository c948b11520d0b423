#![deny(missing_docs)]
//! The bashni engine: evaluation, transposition table, search, the text
//! protocol loop and the fixed `bench` search, over the game model of
//! `bashni-rules`.
//!
//! Data flows one way: `protocol` -> `search` -> (`eval`, `tt`) -> rules.
//!
//! ```
//! use bashni_engine::search::{Config, Limits, Searcher};
//! use bashni_engine::tt::{LockFreeTable, Table};
//! use bashni_rules::{Position, RuleSet, Variant};
//!
//! let pos = Position::start(&RuleSet::new(Variant::Lasca));
//! let table = LockFreeTable::try_with_megabytes(1).unwrap();
//! let searcher = Searcher::new(&table, Config::default());
//! let limits = Limits { depth: Some(4), ..Limits::default() };
//! let outcome = searcher.search(&pos, &[], &limits, &mut |_| {});
//! assert!(pos.legal_moves().contains(&outcome.best.unwrap()));
//! ```

pub mod bench;
pub mod eval;
pub mod nnue;
pub mod perft;
pub mod protocol;
pub mod search;
pub mod stdout;
pub mod tt;
