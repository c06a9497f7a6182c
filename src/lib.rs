//! Zwischen, a UCI chess engine.
//!
//! Layers, each using only those before it: `chess` (rules, move generation, perft) →
//! `tablebase` (Syzygy endgame tables) → `eval` (the neural network, its accumulators and
//! SIMD) → `search` (alpha-beta, hash table, time) → `bench`, `uci` (protocol); `perft`
//! (threads, a perft table and suites around `chess::perft`) uses only `chess`; `datagen`,
//! `train` (the network's trainer) and `wdl_fit` are developer tools; nothing in the engine
//! uses them.

pub mod bench;
pub mod chess;
pub mod datagen;
pub mod epd;
pub mod eval;
pub mod perft;
pub mod search;
pub mod tablebase;
pub mod train;
pub mod uci;
pub mod wdl_fit;
