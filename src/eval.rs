//! eval (being written).
