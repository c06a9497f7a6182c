//! Developer tools, apart from the engine's layers and never used by its search: `bench`
//! (the node-count benchmark, also behind the UCI `bench` command), `epd` (test-suite
//! runner), `datagen` (self-play data), `records` (the data formats), `train` (the network's
//! trainer) and `wdl_fit` (the `UCI_ShowWDL` model's fit). `records` sits below both
//! `datagen` and `train`, so the trainer does not depend on the data generator.

pub mod bench;
pub mod data;
pub mod datagen;
pub mod epd;
pub mod records;
pub mod train;
pub mod wdl_fit;
