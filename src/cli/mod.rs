//! The command line's subcommands, one file each: its arguments (clap) and its runner. They
//! are modules of the binary, so that clap stays out of the library.

pub mod bench;
pub mod convert;
pub mod data;
pub mod datagen;
pub mod epd;
pub mod fit_wdl;
pub mod generate_tables;
pub mod perft;
pub mod syzygy_probe;
pub mod train;
pub mod tunables;
pub mod val_loss;
