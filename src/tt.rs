//! tt (being written).
