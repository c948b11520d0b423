//! bashni: an engine for column draughts (Bashni and Lasca).
//!
//! Data flows one way: `protocol` -> `search` -> (`eval`, `tt`) -> `rules`.

pub mod cli;
pub mod rules;
