#![deny(missing_docs)]
//! The `bashni` command line and its tools: matches and tournaments,
//! statistics, `analyse`, `annotate`, `selfplay`, `tune` and the board in
//! the browser. The game model is `bashni-rules`, the engine
//! `bashni-engine`, and everything that drives an engine over the text
//! protocol `bashni-host`.

pub mod analyse;
pub mod annotate;
pub mod cli;
pub mod gui;
pub mod openings;
pub mod search_args;
pub mod selfplay;
pub mod serve;
pub mod tournament;
pub mod train;
pub mod tune;
