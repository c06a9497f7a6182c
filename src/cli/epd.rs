//! `zwischen epd`: an EPD test suite (bm/am) searched position by position.

use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The EPD file.
    file: String,
    /// Milliseconds per position (the default: 1000).
    #[arg(long, conflicts_with_all = ["depth", "nodes"])]
    movetime: Option<i64>,
    /// Fixed depth per position.
    #[arg(long, conflicts_with = "nodes")]
    depth: Option<i32>,
    /// Fixed nodes per position.
    #[arg(long)]
    nodes: Option<u64>,
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: u32,
    /// Hash table size in MiB.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=65536))]
    hash: u32,
}

pub fn run(args: Args) -> ExitCode {
    let Args { file, movetime, depth, nodes, threads, hash } = args;
    run_epd(&file, movetime, depth, nodes, threads as usize, hash as usize)
}

fn run_epd(
    file: &str,
    movetime: Option<i64>,
    depth: Option<i32>,
    nodes: Option<u64>,
    threads: usize,
    hash: usize,
) -> ExitCode {
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(error) => {
            eprintln!("error: cannot read {file}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let mut cases = Vec::new();
    for (i, line) in text.lines().enumerate() {
        match zwischen::tools::epd::parse_line(line, i + 1) {
            Some(Ok(case)) => cases.push(case),
            Some(Err(error)) => eprintln!("skipped: {error}"),
            None => {}
        }
    }
    let budget = match (movetime, depth, nodes) {
        (_, Some(depth), _) => zwischen::tools::epd::Budget::Depth(depth.clamp(1, 100)),
        (_, _, Some(nodes)) => zwischen::tools::epd::Budget::Nodes(nodes.max(1)),
        (movetime, _, _) => zwischen::tools::epd::Budget::MoveTime(movetime.unwrap_or(1000).max(1)),
    };
    let summary = zwischen::tools::epd::run(&cases, budget, threads, hash, &mut std::io::stdout());
    println!(
        "solved {}/{} ({:.1}%) in {:.1} s",
        summary.solved,
        summary.total,
        100.0 * summary.solved as f64 / summary.total.max(1) as f64,
        summary.seconds
    );
    ExitCode::SUCCESS
}
