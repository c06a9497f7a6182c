//! Zwischen, a UCI chess engine.
//!
//! Layers, each using only those before it: `chess` (rules, move generation, perft) →
//! `tablebase` (Syzygy endgame tables) → `eval` (the neural network, its accumulators and
//! SIMD) → `search` (alpha-beta, hash table, time) → `uci` (protocol); `perft` (threads, a
//! perft table and suites around `chess::perft`) uses only `chess`. `tools` holds the
//! developer tools (bench, EPD runner, data generator and formats, trainer, WDL fit); the
//! engine uses none of them but the bench behind the UCI `bench` command.

pub mod chess;
pub mod eval;
pub mod perft;
pub mod search;
pub mod tablebase;
pub mod tools;
pub mod uci;
