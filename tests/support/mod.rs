//! The integration tests' kit, one module for every test file:
//! positions and moves written as text (`positions`), the engine binary
//! driven over its protocol (`engine`), and an exhaustive solver that is
//! independent of the search (`solver`).
// Each test binary uses a different part of the kit.
#![allow(dead_code)]

pub mod engine;
pub mod positions;
pub mod solver;
pub mod timing;
