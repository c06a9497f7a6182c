//! `zwischen perft`: leaf counts of the legal move tree, one position or a suite.

use std::process::ExitCode;
use std::time::Instant;

use zwischen::chess::Position;

#[derive(clap::Args)]
pub struct Args {
    /// Depth in plies.
    #[arg(
        required_unless_present = "suite",
        value_parser = clap::value_parser!(u32).range(0..=zwischen::perft::MAX_DEPTH as i64)
    )]
    depth: Option<u32>,
    /// Position to start from (default: the start position).
    #[arg(long, conflicts_with = "suite")]
    fen: Option<String>,
    /// Print the count below each root move.
    #[arg(long, conflicts_with = "suite")]
    divide: bool,
    /// Write castling moves as king-takes-rook.
    #[arg(long, conflicts_with = "suite")]
    chess960: bool,
    /// Check every position of an EPD file of `FEN ;D1 n ;D2 n ...` lines (as in
    /// perft-suites/); exits non-zero on any mismatch.
    #[arg(long, value_name = "FILE", conflicts_with = "depth")]
    suite: Option<String>,
    /// With --suite: skip the counts above this many nodes (default: check them all).
    #[arg(long, value_name = "N", requires = "suite")]
    max_nodes: Option<u64>,
    /// Threads to count with.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1,
        value_parser = clap::value_parser!(u32).range(1..=1024)
    )]
    threads: u32,
    /// Size of the perft table shared by the threads, in MiB (0: no table).
    #[arg(
        long,
        value_name = "MIB",
        default_value_t = 0,
        value_parser = clap::value_parser!(u32).range(0..=1 << 20)
    )]
    hash: u32,
}

pub fn run(args: Args) -> ExitCode {
    let Args { depth, fen, divide, chess960, suite, max_nodes, threads, hash } = args;
    let perft = match zwischen::perft::Perft::new(threads as usize, hash as usize) {
        Ok(perft) => perft,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    match (suite, depth) {
        (Some(file), _) => run_perft_suite(&file, max_nodes.unwrap_or(u64::MAX), &perft),
        (None, Some(depth)) => run_perft(depth, fen.as_deref(), divide, chess960, &perft),
        (None, None) => unreachable!("clap requires a depth without --suite"),
    }
}

fn run_perft(
    depth: u32,
    fen: Option<&str>,
    divide: bool,
    chess960: bool,
    perft: &zwischen::perft::Perft,
) -> ExitCode {
    let pos = match fen {
        Some(fen) => match Position::from_fen(fen) {
            Ok(pos) => pos,
            Err(error) => {
                eprintln!("error: invalid FEN: {error}");
                return ExitCode::FAILURE;
            }
        },
        None => Position::startpos(),
    };
    let start = Instant::now();
    let split = match perft.divide(&pos, depth, &print_progress) {
        Ok(split) => split,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let seconds = start.elapsed().as_secs_f64();
    if divide {
        for (mv, count) in &split {
            println!("{}: {count}", mv.to_uci(chess960));
        }
        println!();
    }
    let nodes: u64 = if depth == 0 { 1 } else { split.iter().map(|(_, count)| count).sum() };
    println!("Nodes: {nodes}");
    println!("Time: {seconds:.3} s");
    println!("NPS: {:.0}", nodes as f64 / seconds.max(1e-9));
    ExitCode::SUCCESS
}

/// Progress of a long perft, on stderr so that stdout stays machine-readable.
fn print_progress(p: &zwischen::perft::Progress) {
    eprintln!("perft: {}", progress_text(p));
}

fn progress_text(p: &zwischen::perft::Progress) -> String {
    format!(
        "{}/{} root moves done ({}/{} subtrees), {:.0} s",
        p.root_moves_done,
        p.root_moves,
        p.items_done,
        p.items,
        p.elapsed.as_secs_f64()
    )
}

fn run_perft_suite(file: &str, max_nodes: u64, perft: &zwischen::perft::Perft) -> ExitCode {
    use zwischen::perft::suite;
    let cases = match std::fs::read_to_string(file) {
        Ok(text) => match suite::parse(&text) {
            Ok(cases) => cases,
            Err(error) => {
                eprintln!("error: {file}: {error}");
                return ExitCode::FAILURE;
            }
        },
        Err(error) => {
            eprintln!("error: cannot read {file}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let summary =
        suite::run(&cases, perft, max_nodes, &mut |mismatch| println!("{mismatch}"), &|p| {
            let count = p.count.map(|c| format!(": {}", progress_text(&c))).unwrap_or_default();
            eprintln!(
                "perft: position {}/{} (line {}), depth {}{count}; {:.0} s in all",
                p.number,
                p.positions,
                p.case.line,
                p.depth,
                p.elapsed.as_secs_f64()
            );
        });
    let summary = match summary {
        Ok(summary) => summary,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "{} positions, {} counts checked, {} over the node cap skipped, {} mismatches",
        summary.positions,
        summary.checked,
        summary.skipped,
        summary.mismatches.len()
    );
    println!("Nodes: {}", summary.nodes);
    println!("Time: {:.3} s", summary.seconds);
    println!("NPS: {:.0}", summary.nodes as f64 / summary.seconds.max(1e-9));
    if summary.mismatches.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
