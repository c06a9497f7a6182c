//! `zwischen bench`: the node-count benchmark.

use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    #[arg(default_value_t = zwischen::tools::bench::DEFAULT_DEPTH, value_parser = clap::value_parser!(i32).range(1..=64))]
    depth: i32,
    /// Load the Syzygy tables in these directories first (as `SyzygyPath`): the cost of
    /// loaded tables to a middlegame search.
    #[arg(long)]
    syzygy_path: Option<String>,
    /// Only the positions with at least 12 pieces (no search reaches the tables from them).
    #[arg(long)]
    middlegame: bool,
}

pub fn run(args: Args) -> ExitCode {
    let Args { depth, syzygy_path, middlegame } = args;
    let tablebases = match syzygy_path {
        None => None,
        Some(path) => {
            let (tables, report) = zwischen::tablebase::Tablebases::load(&path);
            for error in &report.errors {
                eprintln!("{error}");
            }
            eprintln!("{}", tables.summary(&report));
            Some(zwischen::search::TablebaseUse {
                tables: std::sync::Arc::new(tables),
                probe_depth: 1,
                probe_limit: 7,
                fifty_move_rule: true,
            })
        }
    };
    let result = zwischen::tools::bench::run_with_tables(depth, tablebases, middlegame);
    if result.tbhits > 0 {
        eprintln!("{} tbhits", result.tbhits);
    }
    let hit_rate = result.hash_hits as f64 * 100.0 / result.hash_probes.max(1) as f64;
    eprintln!(
        "hash: {} of {} probes found the position ({hit_rate:.1} %)",
        result.hash_hits, result.hash_probes
    );
    println!("{} nodes {} nps", result.nodes, result.nps);
    ExitCode::SUCCESS
}
