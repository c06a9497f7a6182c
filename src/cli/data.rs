//! `zwischen data`: the self-play data kept in `data/` (see `src/tools/data.rs`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;
use zwischen::tools::data;

#[derive(Subcommand)]
pub enum DataCommand {
    /// Games, plies and training positions of packs (files, or folders of `.zwp` files); the
    /// last line is `N positions, M bytes (X bytes a position)`.
    Stats {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Checks the chunks of a data folder against its manifest: sizes, SHA-256, every block
    /// decoded, counts; and that every pack there is listed.
    Verify {
        #[arg(default_value = "data")]
        dir: PathBuf,
    },
    /// Adds a generator's pack to a data folder as new chunks (at most 32 MiB each) and lists
    /// them in its manifest.
    Add {
        file: PathBuf,
        /// The commit of the build that played the games.
        #[arg(long)]
        build: String,
        /// Nodes a move the games were played at.
        #[arg(long)]
        nodes: u64,
        /// The datagen seed.
        #[arg(long)]
        seed: u64,
        /// The day (YYYY-MM-DD) the chunk is added.
        #[arg(long)]
        date: String,
        #[arg(long, default_value = "data")]
        dir: PathBuf,
    },
    /// Converts game files of the older format (`ZWGAMES1`) into one new pack.
    Convert {
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        #[arg(long)]
        out: PathBuf,
    },
}

pub fn run(command: DataCommand) -> ExitCode {
    match command {
        DataCommand::Stats { paths } => match data::stats(&paths, &mut std::io::stdout()) {
            Ok(total) if total.errors.is_empty() => ExitCode::SUCCESS,
            Ok(_) => ExitCode::FAILURE,
            Err(error) => {
                eprintln!("error: {error}");
                ExitCode::FAILURE
            }
        },
        DataCommand::Verify { dir } => match data::verify(&dir, |line| eprintln!("{line}")) {
            Ok(problems) if problems.is_empty() => {
                let chunks = data::read_manifest(&dir).unwrap_or_default();
                let positions: usize = chunks.iter().map(|c| c.positions).sum();
                println!(
                    "{}: {} chunks, {positions} positions: clean",
                    dir.display(),
                    chunks.len()
                );
                ExitCode::SUCCESS
            }
            Ok(problems) => {
                for problem in &problems {
                    println!("{problem}");
                }
                println!("{}: {} problems", dir.display(), problems.len());
                ExitCode::FAILURE
            }
            Err(error) => {
                eprintln!("error: {error}");
                ExitCode::FAILURE
            }
        },
        DataCommand::Add { file, build, nodes, seed, date, dir } => {
            let origin = data::Origin { build, nodes, seed, date };
            match data::add(&dir, &file, &origin) {
                Ok(chunks) => {
                    for chunk in chunks {
                        println!(
                            "added {}: {} positions, {} games, {} bytes",
                            chunk.file, chunk.positions, chunk.games, chunk.bytes
                        );
                    }
                    ExitCode::SUCCESS
                }
                Err(error) => {
                    eprintln!("error: {error}");
                    ExitCode::FAILURE
                }
            }
        }
        DataCommand::Convert { inputs, out } => match data::convert(&inputs, &out) {
            Ok(games) => {
                println!("{games} games written to {}", out.display());
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("error: {error}");
                ExitCode::FAILURE
            }
        },
    }
}
