//! Zwischen, a UCI chess engine.
//!
//! Layers, each using only those above it in this list: `chess` (rules and move generation).

pub mod chess;
pub mod uci;
