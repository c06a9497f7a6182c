//! Zwischen, a UCI chess engine.
//!
//! Layers, each using only those before it: `chess` (rules, move generation, perft) →
//! `tablebase` (Syzygy endgame tables) → `eval` (the hand-written evaluation and the neural
//! network, `eval::nnue`) → `search` (alpha-beta, hash table, time) → `bench`, `uci`
//! (protocol); `datagen`, `train` (the NNUE trainer) and `tune` are developer tools for
//! fitting the evaluation; nothing in the engine uses them.

pub mod bench;
pub mod chess;
pub mod datagen;
pub mod epd;
pub mod eval;
pub mod search;
pub mod tablebase;
pub mod train;
pub mod tune;
pub mod uci;
pub mod wdl_fit;
