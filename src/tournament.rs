//! tournament (being written).
