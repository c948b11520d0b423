//! protocol (being written).
