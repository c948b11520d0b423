#![deny(missing_docs)]
//! Everything a program needs to drive column-draughts engines over the
//! text protocol.
//!
//! The core is sans-IO: [`protocol::Client`] is fed the engine's lines and
//! says what they mean, [`info::Info`] is the one parser of `info` lines
//! and [`info::Score`] the one score, [`clock::Clocks`] the one game clock.
//! [`blocking::Engine`] and (with the `tokio` feature)
//! `asynchronous::Engine` only move lines between the core and a child
//! process.
//!
//! ```
//! use bashni_host::clock::{Charge, Clocks, TimeControl};
//! use bashni_host::info::{Info, Score};
//! use bashni_rules::Colour;
//! use std::time::Duration;
//!
//! let info = Info::parse("info depth 9 multipv 1 score mate -2 pv c3-d4").unwrap();
//! assert_eq!(info.score, Some(Score::Mated(2)));
//! assert_eq!(info.score.unwrap().to_string(), "-M2");
//!
//! let control: TimeControl = "10+0.1".parse().unwrap();
//! let mut clocks = Clocks::new(control);
//! let charged = clocks.charge(Colour::White, Duration::from_millis(400), Duration::ZERO);
//! assert_eq!(charged, Charge::InTime);
//! assert_eq!(
//!     clocks.go(Colour::Black).to_string(),
//!     "go wtime 9700 btime 10000 winc 100 binc 100"
//! );
//! ```

#[cfg(feature = "tokio")]
pub mod asynchronous;
pub mod blocking;
pub mod clock;
mod error;
pub mod info;
pub mod lines;
pub mod openings;
pub mod options;
pub mod pdn;
pub mod protocol;
pub mod spec;

pub use error::Error;
