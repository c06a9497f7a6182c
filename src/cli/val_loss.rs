//! `zwischen val-loss`: a net's loss on validation files, to compare nets of any run on one
//! fixed validation set (docs/network.md, "The validation set").

use std::path::PathBuf;
use std::process::ExitCode;

use zwischen::tools::train::{Settings, Target};

#[derive(clap::Args)]
pub struct Args {
    /// The net file.
    #[arg(long)]
    net: PathBuf,
    /// A validation file: a game pack, game file or record file (repeat for several).
    #[arg(long, required = true)]
    val_data: Vec<PathBuf>,
    /// Weight of the game result in the target, as in training.
    #[arg(long, default_value_t = Settings::default().wdl)]
    wdl: f32,
    /// Centipawns of the logistic that turns scores into expected results, as in training.
    #[arg(long, default_value_t = Settings::default().score_scale)]
    score_scale: f32,
    /// Threads (default: every core).
    #[arg(long, default_value_t = std::thread::available_parallelism().map_or(1, |n| n.get()))]
    threads: usize,
}

pub fn run(args: Args) -> ExitCode {
    let mut log = std::io::stderr();
    match zwischen::tools::train::validation_loss(
        &args.net,
        &args.val_data,
        Target { wdl: args.wdl, score_scale: args.score_scale },
        args.threads.max(1),
        &mut log,
    ) {
        Ok((loss, positions)) => {
            println!("{}: validation loss {loss:.6} on {positions} positions", args.net.display());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
