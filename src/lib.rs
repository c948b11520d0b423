//! bashni: an engine for column draughts (Bashni and Lasca).
//!
//! Data flows one way: `protocol` -> `search` -> (`eval`, `tt`) -> `rules`.
//! `tournament` talks to engines only through the text protocol.

pub mod analyse;
pub mod bench;
pub mod cli;
pub mod eval;
pub mod protocol;
pub mod rules;
pub mod search;
pub mod tournament;
pub mod tt;
