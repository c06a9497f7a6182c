//! `zwischen datagen`: self-play games for the network (see src/tools/datagen/).

use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
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
}

pub fn run(args: Args) -> ExitCode {
    let Args {
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
    } = args;
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
