//! `bashni serve`: a play server for many people (issue 23). Public rooms
//! with two seats and any number of watchers, server-kept clocks, and every
//! game kept in a database so that a restart resumes it.
//!
//! Built in layers, each usable and tested on its own:
//! - [`config`]: what a room is created with (variant, rules, clock, who
//!   may take the other seat);
//! - [`token`]: seat tokens (128 random bits) and the hashes the database
//!   keeps instead of them;
//! - [`room`]: the room as a sans-IO state machine: moves, clocks (time is
//!   passed in), draw offers, takebacks, rematches, and the events to
//!   broadcast;
//! - [`store`]: the storage (SQLite or PostgreSQL, one schema, versioned
//!   migrations);
//! - [`ladder`]: the ladder of computer rivals (issue 24): the rivals, their
//!   seeded random moves, the handicapped starts, the score and a run.
//!
//! The HTTP/WebSocket server, the lobby and the engine pool come on top.

pub mod config;
pub mod ladder;
pub mod room;
pub mod store;
pub mod token;
