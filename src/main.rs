//! The `zwischen` command: with no arguments it speaks UCI on stdin/stdout; subcommands run
//! perft, the bench and developer tools.

use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};

mod cli;

use zwischen::chess::{self, Position};

#[derive(Parser)]
#[command(name = "zwischen", version, about = "Zwischen, a UCI chess engine")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaf nodes of the legal move tree to DEPTH, or check a suite of published
    /// counts (--suite). Progress of long runs goes to stderr.
    Perft {
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
    },
    /// Search the fixed bench positions to a fixed depth; prints "N nodes M nps" last.
    Bench {
        #[arg(default_value_t = zwischen::tools::bench::DEFAULT_DEPTH, value_parser = clap::value_parser!(i32).range(1..=64))]
        depth: i32,
        /// Load the Syzygy tables in these directories first (as `SyzygyPath`): the cost of
        /// loaded tables to a middlegame search.
        #[arg(long)]
        syzygy_path: Option<String>,
        /// Only the positions with at least 12 pieces (no search reaches the tables from them).
        #[arg(long)]
        middlegame: bool,
    },
    /// Probe Syzygy tables: reads one FEN a line from stdin and prints "WDL DTZ" for each
    /// (WDL -2..2 as if just after a capture or pawn move, DTZ in plies ignoring the halfmove
    /// clock), or "none" where the tables lack it; then, on stderr, the probe speed.
    #[command(hide = true)]
    SyzygyProbe {
        /// Directories of tables, as for the `SyzygyPath` option.
        #[arg(long)]
        syzygy_path: String,
        /// Probe every position this many times more to time the probes.
        #[arg(long, default_value_t = 0)]
        speed_rounds: usize,
    },
    /// Run an EPD test suite: search each position and check it against its bm/am moves.
    Epd {
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
    },
    /// Developer tool: self-play games whose quiet positions, labelled with score and result,
    /// train the network.
    #[command(hide = true)]
    Datagen {
        #[arg(long, default_value_t = 1000)]
        games: usize,
        /// Nodes searched per move (a hard limit).
        #[arg(long, default_value_t = 5000)]
        nodes: u64,
        /// Games played at once (default: every core).
        #[arg(long, default_value_t = std::thread::available_parallelism().map_or(1, |n| n.get()))]
        threads: usize,
        /// Random moves played from the opening before the game starts.
        #[arg(long, default_value_t = 8)]
        random_plies: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// EPD/FEN openings to start from (default: the start position).
        #[arg(long)]
        openings: Option<String>,
        /// Data file, appended to: a game pack (src/tools/records/pack.rs), or with `--format
        /// games` the older game file (src/tools/records/games.rs), or with `--format
        /// records` 32-byte records (src/tools/records/packed.rs).
        #[arg(long)]
        out: String,
        /// `pack` (about 2 bytes a training position), `games` (about 6) or `records` (32).
        #[arg(long, default_value = "pack", value_parser = ["pack", "games", "records"])]
        format: String,
        /// Network to play with: `network` (the embedded net) or a net file.
        #[arg(long, default_value = "network")]
        eval: String,
        /// Syzygy tables (as for SyzygyPath): a game reaching them gets their result.
        #[arg(long)]
        syzygy_path: Option<String>,
    },
    /// The self-play data kept in `data/`: stats, verify, add, convert.
    Data {
        #[command(subcommand)]
        command: cli::data::DataCommand,
    },
    /// Developer tool: convert datagen records to `FEN;result;score` text (--to-text) or back.
    #[command(hide = true)]
    Convert {
        input: String,
        output: String,
        #[arg(long)]
        to_text: bool,
    },
    /// Developer tool: train the NNUE on datagen records; writes the quantised net after every
    /// epoch (see src/tools/train/mod.rs).
    #[command(hide = true)]
    Train(TrainArgs),
    /// Developer tool: fit the UCI_ShowWDL model to datagen records (scores and results).
    #[command(hide = true)]
    FitWdl {
        /// A record file written by datagen (repeat for several).
        #[arg(long, required = true)]
        data: Vec<String>,
    },
    /// Developer tool: list the tunable search constants, one a line as OpenBench's SPSA takes
    /// them: "name, int, value, min, max, c_end, r_end". A tuning build (`--features tune`)
    /// has a UCI option for each.
    #[command(hide = true)]
    Tunables {
        /// The r_end (final learning rate) to print with each.
        #[arg(long, default_value_t = 0.002)]
        r_end: f64,
    },
    /// Print the magic numbers and Zobrist keys as the source of src/chess/generated.rs.
    #[command(hide = true)]
    GenerateTables {
        #[arg(long, default_value_t = chess::tables_gen::DEFAULT_SEED)]
        seed: u64,
    },
}

/// `zwischen train`'s command line; the defaults are the library's
/// (`zwischen::tools::train::Settings::default`).
#[derive(clap::Args)]
struct TrainArgs {
    /// A data file (a game pack, games or 32-byte records) or a folder of packs (such as
    /// `data/`); repeat for several.
    #[arg(long, required = true)]
    data: Vec<std::path::PathBuf>,
    /// The quantised network file, rewritten after every epoch.
    #[arg(long)]
    out: std::path::PathBuf,
    /// Hidden width (default: the engine's, or the checkpoint's when resuming).
    #[arg(long)]
    hidden: Option<usize>,
    /// King buckets of the inputs: 1 (none), or 2, 4, 8 or 16, mirrored left-right;
    /// ignored when resuming.
    #[arg(long, default_value_t = train_defaults().king_buckets)]
    king_buckets: usize,
    /// Output buckets, chosen by the number of pieces (1 to 16); ignored when resuming.
    #[arg(long, default_value_t = train_defaults().output_buckets)]
    output_buckets: usize,
    /// Train king buckets without shared (factoriser) rows.
    #[arg(long)]
    no_factoriser: bool,
    #[arg(long, default_value_t = train_defaults().epochs)]
    epochs: usize,
    /// Positions per optimiser step.
    #[arg(long, default_value_t = train_defaults().batch)]
    batch: usize,
    /// Learning rate of the first epoch.
    #[arg(long, default_value_t = train_defaults().lr)]
    lr: f32,
    /// Last epoch's learning rate as a share of --lr (cosine in between).
    #[arg(long, default_value_t = train_defaults().final_lr_ratio)]
    final_lr_ratio: f32,
    /// Epochs (from 0) at which the learning rate drops by --lr-drop-factor, instead of the
    /// cosine schedule: e.g. `--lr-drops 20,30`.
    #[arg(long, value_delimiter = ',')]
    lr_drops: Vec<usize>,
    #[arg(long, default_value_t = train_defaults().lr_drop_factor)]
    lr_drop_factor: f32,
    /// Weight of the game result in the target (the rest is the search score).
    #[arg(long, default_value_t = train_defaults().wdl)]
    wdl: f32,
    #[arg(long, default_value_t = train_defaults().weight_decay)]
    weight_decay: f32,
    /// Training threads (default: every core).
    #[arg(long, default_value_t = train_defaults().threads)]
    threads: usize,
    #[arg(long, default_value_t = train_defaults().seed)]
    seed: u64,
    /// Share of the positions held out for validation.
    #[arg(long, default_value_t = train_defaults().val_fraction)]
    val_fraction: f64,
    /// A validation file (repeat for several) instead of --val-fraction of the data, which
    /// is then all trained on: the same validation set for runs on different data.
    #[arg(long)]
    val_data: Vec<std::path::PathBuf>,
    /// Also train on the left-right mirror of each position without castling rights.
    #[arg(long)]
    mirror: bool,
    /// Where the per-epoch float checkpoints go (default: next to --out).
    #[arg(long)]
    checkpoint_dir: Option<std::path::PathBuf>,
    /// Continue from a checkpoint (keep --epochs as in the original run).
    #[arg(long)]
    resume: Option<std::path::PathBuf>,
    /// Start from this net file (its width and buckets) instead of random weights, to train
    /// it on further data; --king-buckets and --output-buckets are then ignored.
    #[arg(long, conflicts_with = "resume")]
    init: Option<std::path::PathBuf>,
}

fn train_defaults() -> zwischen::tools::train::Settings {
    zwischen::tools::train::Settings::default()
}

impl From<TrainArgs> for zwischen::tools::train::Settings {
    fn from(args: TrainArgs) -> Self {
        zwischen::tools::train::Settings {
            // A folder stands for its packs (`data/` holds the chunks we keep).
            data: zwischen::tools::data::pack_files(&args.data)
                .unwrap_or_else(|_| args.data.clone()),
            out: args.out,
            hidden: args.hidden,
            king_buckets: args.king_buckets,
            output_buckets: args.output_buckets,
            no_factoriser: args.no_factoriser,
            epochs: args.epochs,
            batch: args.batch,
            lr: args.lr,
            final_lr_ratio: args.final_lr_ratio,
            lr_drops: args.lr_drops,
            lr_drop_factor: args.lr_drop_factor,
            wdl: args.wdl,
            weight_decay: args.weight_decay,
            threads: args.threads,
            seed: args.seed,
            val_fraction: args.val_fraction,
            val_data: args.val_data,
            mirror: args.mirror,
            checkpoint_dir: args.checkpoint_dir,
            resume: args.resume,
            init: args.init,
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        None => {
            zwischen::uci::run();
            ExitCode::SUCCESS
        }
        Some(Command::Perft { depth, fen, divide, chess960, suite, max_nodes, threads, hash }) => {
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
        Some(Command::Bench { depth, syzygy_path, middlegame }) => {
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
            println!("{} nodes {} nps", result.nodes, result.nps);
            ExitCode::SUCCESS
        }
        Some(Command::SyzygyProbe { syzygy_path, speed_rounds }) => {
            run_syzygy_probe(&syzygy_path, speed_rounds)
        }
        Some(Command::Epd { file, movetime, depth, nodes, threads, hash }) => {
            run_epd(&file, movetime, depth, nodes, threads as usize, hash as usize)
        }
        Some(Command::Datagen {
            games,
            nodes,
            threads,
            random_plies,
            seed,
            openings,
            out,
            eval,
            syzygy_path,
            format,
        }) => {
            match eval.as_str() {
                "network" => {}
                file => match std::fs::read(file) {
                    Err(error) => {
                        eprintln!("error: cannot read the network {file}: {error}");
                        return ExitCode::FAILURE;
                    }
                    Ok(bytes) => match zwischen::eval::Network::from_bytes(&bytes) {
                        Ok(network) => zwischen::eval::set_current(network),
                        Err(error) => {
                            eprintln!("error: cannot load the network {file}: {error}");
                            return ExitCode::FAILURE;
                        }
                    },
                },
            }
            let tables = syzygy_path.map(|path| {
                let (tables, report) = zwischen::tablebase::Tablebases::load(&path);
                for error in &report.errors {
                    eprintln!("error: {error}");
                }
                eprintln!("{}", tables.summary(&report));
                tables
            });
            let format = match format.as_str() {
                "records" => zwischen::tools::datagen::Format::Records,
                "games" => zwischen::tools::datagen::Format::Games,
                _ => zwischen::tools::datagen::Format::Pack,
            };
            let settings = zwischen::tools::datagen::Settings {
                games,
                nodes,
                threads,
                random_plies,
                seed,
                format,
                tables,
            };
            let openings: Vec<String> = match openings.map(std::fs::read_to_string).transpose() {
                Ok(text) => text
                    .unwrap_or_default()
                    .lines()
                    .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
                    .map(|l| l.split_whitespace().take(4).collect::<Vec<_>>().join(" "))
                    .collect(),
                Err(error) => {
                    eprintln!("error: cannot read the openings: {error}");
                    return ExitCode::FAILURE;
                }
            };
            match zwischen::tools::datagen::run(&settings, &openings, &out) {
                Ok(count) => {
                    println!("{count} positions appended to {out}");
                    ExitCode::SUCCESS
                }
                Err(error) => {
                    eprintln!("error: {error}");
                    ExitCode::FAILURE
                }
            }
        }
        Some(Command::Data { command }) => cli::data::run(command),
        Some(Command::Convert { input, output, to_text }) => {
            match zwischen::tools::records::convert(&input, &output, to_text) {
                Ok(count) => {
                    println!("{count} positions written to {output}");
                    ExitCode::SUCCESS
                }
                Err(error) => {
                    eprintln!("error: {error}");
                    ExitCode::FAILURE
                }
            }
        }
        Some(Command::Train(args)) => {
            match zwischen::tools::train::run(&args.into(), &mut std::io::stdout()) {
                Ok(_) => ExitCode::SUCCESS,
                Err(error) => {
                    eprintln!("error: {error}");
                    ExitCode::FAILURE
                }
            }
        }
        Some(Command::FitWdl { data }) => run_fit_wdl(&data),
        Some(Command::Tunables { r_end }) => {
            for t in zwischen::search::params::TUNABLES {
                println!(
                    "{}, int, {}, {}, {}, {}, {r_end}",
                    t.name, t.default, t.min, t.max, t.step
                );
            }
            ExitCode::SUCCESS
        }
        Some(Command::GenerateTables { seed }) => {
            print!("{}", chess::tables_gen::generate(seed));
            ExitCode::SUCCESS
        }
    }
}

fn run_fit_wdl(paths: &[String]) -> ExitCode {
    let mut samples = Vec::new();
    for path in paths {
        match zwischen::tools::wdl_fit::load_records(std::path::Path::new(path), &mut samples) {
            Ok(0) => {}
            Ok(skipped) => eprintln!("{path}: {skipped} records could not be read, skipped"),
            Err(error) => {
                eprintln!("error: cannot read {path}: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    let fit = zwischen::tools::wdl_fit::fit(&samples);
    println!(
        "{} positions, A = {:.1}, B = {:.1}, mean log-likelihood {:.5}",
        fit.samples, fit.a, fit.b, fit.mean_log_likelihood
    );
    ExitCode::SUCCESS
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
