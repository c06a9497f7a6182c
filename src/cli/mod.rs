//! The command line's subcommands, one file each (modules of the binary, so that clap stays
//! out of the library).

pub mod data;
