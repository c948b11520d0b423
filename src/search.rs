//! search (being written).
