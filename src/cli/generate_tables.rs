//! `zwischen generate-tables`: the source of src/chess/generated.rs.

use std::process::ExitCode;

use zwischen::chess;

#[derive(clap::Args)]
pub struct Args {
    #[arg(long, default_value_t = chess::tables_gen::DEFAULT_SEED)]
    seed: u64,
}

pub fn run(args: Args) -> ExitCode {
    let Args { seed } = args;
    print!("{}", chess::tables_gen::generate(seed));
    ExitCode::SUCCESS
}
