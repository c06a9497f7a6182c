//! Self-play training data: games at a fixed number of nodes per move from varied openings,
//! with the quiet positions of each game labelled by its search score and its result.
//!
//! `zwischen datagen --out FILE [--games N] [--nodes K] [--threads T] [--openings EPD]
//! [--eval network|NET] [--syzygy-path DIR] [--format pack|games|records]` (default: the
//! embedded network; with tables, a game that a capture brings into them ends with their
//! result) appends to FILE whole games in a game pack ([`pack`], blocks of 100 games), or
//! in the older formats: `games` ([`games`](crate::tools::records::games)) or `records` (a 32-byte
//! [`PackedPosition`](crate::tools::records::PackedPosition) for
//! each training position). A second run adds to the data already there (with a seed mixed
//! with the size of what is there, so it plays other games). Creating `FILE.stop` stops a
//! run cleanly after the games in progress; a run killed at any moment loses at most its
//! unwritten block. Readers take every format
//! ([`read_positions`](crate::tools::records::read_positions)). `zwischen
//! convert` turns any into `FEN;R;S` text lines, and text back into records (see
//! [`records`]).

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::records::pack::{self, PackWriter};
use super::records::{self, Game};
use crate::chess::{Color, Move, Position};
use crate::search::{self, Limits, SearchJob, Shared, Silent, ThreadPool, TranspositionTable};
use crate::tablebase::Tablebases;

/// How datagen stores what it plays.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// Whole games in blocks, range-coded: about 2 bytes a training position
    /// ([`pack`]).
    Pack,
    /// Whole games, every position with its move and score
    /// ([`games`](crate::tools::records::games)).
    Games,
    /// One 32-byte record for each training position
    /// ([`packed`](crate::tools::records::packed)).
    Records,
}

pub struct Settings {
    pub games: usize,
    pub nodes: u64,
    pub threads: usize,
    pub random_plies: usize,
    pub seed: u64,
    pub format: Format,
    /// Syzygy tables to end games with: a game that reaches a table position (right after a
    /// capture, where a WDL probe is exact) gets the table's result. Early nets often fail to
    /// convert won endgames at a few thousand nodes; the tables label those games right.
    pub tables: Option<Tablebases>,
}

/// A search score this large for both sides' searches in a row ends the game as won.
const ADJUDICATE_SCORE: i32 = 2000;
const ADJUDICATE_PLIES: u32 = 8;
/// Games longer than this are called drawn (they are almost always shuffling).
const MAX_GAME_PLIES: usize = 400;

/// Plays the games and appends them to `path`; returns the number of training positions
/// written.
pub fn run(settings: &Settings, openings: &[String], path: &str) -> std::io::Result<usize> {
    let existing = std::fs::metadata(path).map_or(0, |m| m.len());
    let out = match settings.format {
        Format::Pack => Output::Pack(PackWriter::append(Path::new(path), pack::GAMES_PER_BLOCK)?),
        Format::Games => {
            Output::Bytes(BufWriter::new(records::games::open_for_append(Path::new(path))?))
        }
        Format::Records => {
            Output::Bytes(BufWriter::new(OpenOptions::new().create(true).append(true).open(path)?))
        }
    };
    // Mixing in the size of what is there makes a resumed run play new games.
    let seed = settings.seed ^ existing.wrapping_mul(0x2545_f491_4f6c_dd1d);
    eprintln!(
        "datagen: {existing} bytes already in {path}; {} games at {} nodes, {} threads, seed {seed}, {:?}",
        settings.games, settings.nodes, settings.threads, settings.format
    );
    let writer = Mutex::new(out);
    // `FILE.stop` asks for a clean stop: the games in progress end, the last block is
    // written and the file is whole (a killed generator loses its unwritten block).
    let stop_file = std::path::PathBuf::from(format!("{path}.stop"));
    let stop_file = &stop_file;
    let next_game = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let written = AtomicUsize::new(0);
    let started = Instant::now();
    std::thread::scope(|scope| {
        for thread in 0..settings.threads.max(1) {
            let (writer, next_game, finished, written) = (&writer, &next_game, &finished, &written);
            let builder = std::thread::Builder::new().stack_size(search::STACK_SIZE);
            let spawned = builder.spawn_scoped(scope, move || {
                let mut rng =
                    StdRng::seed_from_u64(seed ^ (thread as u64).wrapping_mul(0x9e37_79b9));
                let tt = Arc::new(TranspositionTable::new(16).expect("16 MB for the hash table"));
                let mut pool = ThreadPool::new(1);
                while next_game.fetch_add(1, Ordering::Relaxed) < settings.games {
                    if stop_file.exists() {
                        break;
                    }
                    let start = if openings.is_empty() {
                        Position::startpos()
                    } else {
                        let fen = &openings[rng.random_range(0..openings.len())];
                        Position::from_fen(fen).unwrap_or_else(|_| Position::startpos())
                    };
                    let game = play_game(start, settings, &mut rng, &tt, &mut pool);
                    if game.plies.is_empty() {
                        // Over before a move was searched (the tables or the rules ended it).
                        continue;
                    }
                    let records = game.training_records();
                    // A game (or, for packs, a block of games) is written at once and
                    // flushed, so a stop between writes never leaves a partial one.
                    if let Ok(mut w) = writer.lock() {
                        let written = match (&mut *w, settings.format) {
                            (Output::Pack(pack), _) => pack.push(game),
                            (Output::Bytes(out), Format::Records) => {
                                let bytes: Vec<u8> =
                                    records.iter().flat_map(|r| r.to_bytes()).collect();
                                out.write_all(&bytes).and_then(|()| out.flush())
                            }
                            (Output::Bytes(out), _) => {
                                out.write_all(&game.to_bytes()).and_then(|()| out.flush())
                            }
                        };
                        if let Err(error) = written {
                            eprintln!("error: cannot write to {path}: {error}");
                        }
                    }
                    let total = written.fetch_add(records.len(), Ordering::Relaxed) + records.len();
                    let games = finished.fetch_add(1, Ordering::Relaxed) + 1;
                    if games % 100 == 0 || games == settings.games {
                        let seconds = started.elapsed().as_secs_f64().max(1e-3);
                        let eta = (settings.games - games) as f64 * seconds / games as f64;
                        eprintln!(
                            "{games} games, {total} positions, {:.0} positions/hour, ETA {:.0} s",
                            total as f64 * 3600.0 / seconds,
                            eta
                        );
                    }
                }
            });
            if let Err(error) = spawned {
                eprintln!("error: cannot start a datagen thread: {error}");
            }
        }
    });
    match writer.into_inner().map_err(|_| std::io::Error::other("writer poisoned"))? {
        Output::Pack(mut pack) => pack.write_block()?,
        Output::Bytes(mut out) => out.flush()?,
    }
    if stop_file.exists() {
        eprintln!("datagen: stopped on request ({})", stop_file.display());
        let _ = std::fs::remove_file(stop_file);
    }
    Ok(written.into_inner())
}

/// Where datagen writes.
enum Output {
    Pack(PackWriter),
    Bytes(BufWriter<std::fs::File>),
}

/// One game, from `pos` after the random opening plies to its end.
fn play_game(
    mut pos: Position,
    settings: &Settings,
    rng: &mut StdRng,
    tt: &Arc<TranspositionTable>,
    pool: &mut ThreadPool,
) -> Game {
    // Random plies first, for variety.
    let start = pos;
    let mut opening = Vec::new();
    for _ in 0..settings.random_plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return Game { start, opening, result: 1, plies: Vec::new() };
        }
        let mv = moves.as_slice()[rng.random_range(0..moves.len())];
        opening.push(mv);
        pos.make_move(mv);
    }
    tt.clear();
    pool.clear();
    let mut history: Vec<u64> = Vec::new();
    let mut seen: HashMap<u64, u32> = HashMap::new();
    let mut plies: Vec<(Move, i16)> = Vec::new();
    let mut decisive_plies = 0;
    let mut last_winner = None;
    let result: u8 = loop {
        if pos.legal_moves().is_empty() {
            break if !pos.in_check() {
                1
            } else if pos.side_to_move() == Color::White {
                0
            } else {
                2
            };
        }
        if pos.halfmove_clock() >= 100
            || pos.is_insufficient_material()
            || plies.len() > MAX_GAME_PLIES
        {
            break 1;
        }
        if pos.halfmove_clock() == 0
            && let Some(wdl) = settings.tables.as_ref().and_then(|t| t.probe_wdl(&pos))
        {
            // Cursed wins and blessed losses are draws under the 50-move rule.
            let white_outcome = wdl.outcome(true) * pos.side_to_move().sign();
            break (white_outcome + 1) as u8;
        }
        let count = seen.entry(pos.key()).or_insert(0);
        *count += 1;
        if *count >= 3 {
            break 1;
        }
        let job = SearchJob {
            history: history.clone(),
            ..SearchJob::new(pos, Limits { nodes: Some(settings.nodes), ..Limits::default() })
        };
        let shared = Arc::new(Shared::new());
        let found = search::run(&job, tt, &shared, pool, &Silent);
        let Some(best) = found.best else { break 1 };
        let white_score = found.score * pos.side_to_move().sign();
        // Adjudicate clear wins to save time.
        if white_score.abs() >= ADJUDICATE_SCORE {
            let winner = white_score > 0;
            decisive_plies = if last_winner == Some(winner) { decisive_plies + 1 } else { 1 };
            last_winner = Some(winner);
            if decisive_plies >= ADJUDICATE_PLIES {
                break if winner { 2 } else { 0 };
            }
        } else {
            decisive_plies = 0;
        }
        plies.push((best, white_score.clamp(-32000, 32000) as i16));
        history.push(pos.key());
        pos.make_move(best);
        if pos.halfmove_clock() == 0 {
            history.clear();
        }
    };
    Game { start, opening, result, plies }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::records::PackedPosition;

    fn settings(tables: Option<Tablebases>) -> Settings {
        let format = Format::Games;
        Settings { games: 1, nodes: 2000, threads: 1, random_plies: 0, seed: 1, format, tables }
    }

    fn play(fen: &str, settings: &Settings) -> (u8, Vec<PackedPosition>) {
        let tt = Arc::new(TranspositionTable::new(1).unwrap());
        let mut rng = StdRng::seed_from_u64(1);
        let mut pool = ThreadPool::new(1);
        let game = play_game(Position::from_fen(fen).unwrap(), settings, &mut rng, &tt, &mut pool);
        (game.result, game.training_records())
    }

    #[test]
    fn a_game_reaching_the_tables_gets_their_result() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy");
        let (tables, report) = Tablebases::load(dir);
        assert!(report.errors.is_empty());
        let with_tables = settings(Some(tables));
        // The first position is in the tables (its counter is 0): the game ends there.
        // Black to move wins K+Q v K+R; Black to move loses it; a drawn K+R v K+R (the
        // results were checked with python-chess's prober).
        assert_eq!(play("3qk3/8/8/8/8/8/8/3RK3 b - - 0 1", &with_tables), (0, Vec::new()));
        assert_eq!(play("8/8/8/3k4/8/8/1r6/K1Q5 b - - 0 1", &with_tables), (2, Vec::new()));
        assert_eq!(play("8/r7/3k4/8/8/3K4/8/7R w - - 0 1", &with_tables), (1, Vec::new()));
        // Five pieces are beyond the tables: the game is played until a capture brings it
        // into them, and ends there as won (every recorded position has five pieces).
        let (result, records) = play("4k3/8/8/8/8/8/3r4/3QK2R w - - 0 1", &with_tables);
        assert_eq!(result, 2);
        assert!(records.iter().all(|r| r.occupied.count_ones() == 5), "{records:?}");
        // Without tables the same K+R v K+R is played on (a position is recorded).
        let (_, records) = play("8/r7/3k4/8/8/3K4/8/7R w - - 0 1", &settings(None));
        assert!(!records.is_empty());
    }
}
