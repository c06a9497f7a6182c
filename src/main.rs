//! The `zwischen` command: with no arguments it speaks UCI on stdin/stdout; subcommands run
//! perft, the bench and developer tools, each in its own file under src/cli/.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cli;

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
    Perft(cli::perft::Args),
    /// Search the fixed bench positions to a fixed depth; prints "N nodes M nps" last.
    Bench(cli::bench::Args),
    /// Probe Syzygy tables: reads one FEN a line from stdin and prints "WDL DTZ" for each
    /// (WDL -2..2 as if just after a capture or pawn move, DTZ in plies ignoring the halfmove
    /// clock), or "none" where the tables lack it; then, on stderr, the probe speed.
    #[command(hide = true)]
    SyzygyProbe(cli::syzygy_probe::Args),
    /// Run an EPD test suite: search each position and check it against its bm/am moves.
    Epd(cli::epd::Args),
    /// Developer tool: self-play games whose quiet positions, labelled with score and result,
    /// train the network.
    #[command(hide = true)]
    Datagen(cli::datagen::Args),
    /// The self-play data kept in `data/`: stats, verify, add, convert.
    Data {
        #[command(subcommand)]
        command: cli::data::DataCommand,
    },
    /// Developer tool: convert datagen records to `FEN;result;score` text (--to-text) or back.
    #[command(hide = true)]
    Convert(cli::convert::Args),
    /// Developer tool: train the NNUE on datagen records; writes the quantised net after every
    /// epoch (see src/tools/train/mod.rs).
    #[command(hide = true)]
    Train(cli::train::Args),
    /// Developer tool: a net's loss on validation files (the same set for every run).
    #[command(hide = true)]
    ValLoss(cli::val_loss::Args),
    /// Developer tool: fit the UCI_ShowWDL model, and the trainer's score scale, to datagen
    /// records (scores and results).
    #[command(hide = true)]
    FitWdl(cli::fit_wdl::Args),
    /// Developer tool: list the tunable search constants, one a line as OpenBench's SPSA takes
    /// them: "name, int, value, min, max, c_end, r_end". A tuning build (`--features tune`)
    /// has a UCI option for each.
    #[command(hide = true)]
    Tunables(cli::tunables::Args),
    /// Print the magic numbers and Zobrist keys as the source of src/chess/generated.rs.
    #[command(hide = true)]
    GenerateTables(cli::generate_tables::Args),
}

fn main() -> ExitCode {
    let Some(command) = Cli::parse().command else {
        zwischen::uci::run();
        return ExitCode::SUCCESS;
    };
    match command {
        Command::Perft(args) => cli::perft::run(args),
        Command::Bench(args) => cli::bench::run(args),
        Command::SyzygyProbe(args) => cli::syzygy_probe::run(args),
        Command::Epd(args) => cli::epd::run(args),
        Command::Datagen(args) => cli::datagen::run(args),
        Command::Data { command } => cli::data::run(command),
        Command::Convert(args) => cli::convert::run(args),
        Command::Train(args) => cli::train::run(args),
        Command::ValLoss(args) => cli::val_loss::run(args),
        Command::FitWdl(args) => cli::fit_wdl::run(args),
        Command::Tunables(args) => cli::tunables::run(args),
        Command::GenerateTables(args) => cli::generate_tables::run(args),
    }
}
