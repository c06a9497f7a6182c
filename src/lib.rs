//! Zwischen, a UCI chess engine.
//!
//! Layers, each using only those before it: `chess` (rules, move generation, perft) → `eval`
//! (static evaluation) → `search` (alpha-beta, hash table, time) → `bench` → `uci` (protocol).

pub mod bench;
pub mod chess;
pub mod eval;
pub mod search;
pub mod uci;
