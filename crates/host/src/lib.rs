#![deny(missing_docs)]
//! Everything a program needs to drive column-draughts engines over the
//! text protocol.
