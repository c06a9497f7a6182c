//! `zwischen tunables`: the tunable search constants, as SPSA takes them.

use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The r_end (final learning rate) to print with each.
    #[arg(long, default_value_t = 0.002)]
    r_end: f64,
}

pub fn run(args: Args) -> ExitCode {
    let Args { r_end } = args;
    for t in zwischen::search::params::TUNABLES {
        println!("{}, int, {}, {}, {}, {}, {r_end}", t.name, t.default, t.min, t.max, t.step);
    }
    ExitCode::SUCCESS
}
