//! `zwischen syzygy-probe`: Syzygy probes of FENs read from stdin (a developer tool).

use std::process::ExitCode;
use std::time::Instant;

use zwischen::chess::Position;

#[derive(clap::Args)]
pub struct Args {
    /// Directories of tables, as for the `SyzygyPath` option.
    #[arg(long)]
    syzygy_path: String,
    /// Probe every position this many times more to time the probes.
    #[arg(long, default_value_t = 0)]
    speed_rounds: usize,
}

pub fn run(args: Args) -> ExitCode {
    let Args { syzygy_path, speed_rounds } = args;
    run_syzygy_probe(&syzygy_path, speed_rounds)
}

fn run_syzygy_probe(syzygy_path: &str, speed_rounds: usize) -> ExitCode {
    use std::io::BufRead;
    let (tables, report) = zwischen::tablebase::Tablebases::load(syzygy_path);
    for error in &report.errors {
        eprintln!("{error}");
    }
    eprintln!("{}", tables.summary(&report));
    let mut positions = Vec::new();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        match Position::from_fen(line.trim()) {
            Ok(pos) => {
                match (tables.probe_wdl(&pos), tables.probe_dtz(&pos)) {
                    (Some(wdl), Some(dtz)) => println!("{} {dtz}", wdl.as_number()),
                    _ => println!("none"),
                }
                positions.push(pos);
            }
            Err(error) => {
                eprintln!("invalid FEN '{}': {error}", line.trim());
                println!("none");
            }
        }
    }
    if speed_rounds > 0 && !positions.is_empty() {
        let probes = (speed_rounds * positions.len()) as f64;
        let start = Instant::now();
        let mut found = 0usize;
        for _ in 0..speed_rounds {
            found += positions.iter().filter(|p| tables.probe_wdl(p).is_some()).count();
        }
        let wdl_rate = probes / start.elapsed().as_secs_f64().max(1e-9);
        let start = Instant::now();
        for _ in 0..speed_rounds {
            found += positions.iter().filter(|p| tables.probe_dtz(p).is_some()).count();
        }
        let dtz_rate = probes / start.elapsed().as_secs_f64().max(1e-9);
        eprintln!(
            "{probes} probes each: {wdl_rate:.0} WDL probes/s, {dtz_rate:.0} DTZ probes/s ({found} found)"
        );
    }
    ExitCode::SUCCESS
}
