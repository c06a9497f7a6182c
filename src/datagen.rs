//! Self-play data for tuning the evaluation: games at a fixed number of nodes per move from
//! varied openings, with the quiet positions of each game labelled by its result.
//!
//! `zwischen datagen --games N --nodes K --threads T --out FILE [--openings EPD]` writes one
//! line per position: `FEN;R;S` with R = 1.0, 0.5 or 0.0 the result and S the search score
//! in centipawns, both from White's point of view.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::chess::{Color, Position};
use crate::search::{
    self, Limits, MATE_BOUND, SearchJob, Shared, Silent, TranspositionTable, Worker,
};

pub struct Settings {
    pub games: usize,
    pub nodes: u64,
    pub threads: usize,
    pub random_plies: usize,
    pub seed: u64,
}

/// Plays the games and writes the labelled positions to `out`; returns the number written.
pub fn run(settings: &Settings, openings: &[String], out: File) -> std::io::Result<usize> {
    let writer = Mutex::new(BufWriter::new(out));
    let next_game = AtomicUsize::new(0);
    let written = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for thread in 0..settings.threads.max(1) {
            let (writer, next_game, written) = (&writer, &next_game, &written);
            let builder = std::thread::Builder::new().stack_size(search::STACK_SIZE);
            let spawned = builder.spawn_scoped(scope, move || {
                let mut rng = StdRng::seed_from_u64(
                    settings.seed ^ (thread as u64).wrapping_mul(0x9e37_79b9),
                );
                let tt = TranspositionTable::new(16).expect("16 MB for the hash table");
                let mut workers = vec![Worker::new(0)];
                loop {
                    let game = next_game.fetch_add(1, Ordering::Relaxed);
                    if game >= settings.games {
                        break;
                    }
                    let start = if openings.is_empty() {
                        Position::startpos()
                    } else {
                        let fen = &openings[rng.random_range(0..openings.len())];
                        Position::from_fen(fen).unwrap_or_else(|_| Position::startpos())
                    };
                    let lines = play_game(start, settings, &mut rng, &tt, &mut workers);
                    if let Ok(mut w) = writer.lock() {
                        for line in &lines {
                            let _ = writeln!(w, "{line}");
                        }
                    }
                    let total = written.fetch_add(lines.len(), Ordering::Relaxed) + lines.len();
                    if (game + 1) % 100 == 0 {
                        eprintln!("{} games, {total} positions", game + 1);
                    }
                }
            });
            if let Err(error) = spawned {
                eprintln!("error: cannot start a datagen thread: {error}");
            }
        }
    });
    writer.into_inner().map_err(|_| std::io::Error::other("writer poisoned"))?.flush()?;
    Ok(written.into_inner())
}

/// One game; returns its recorded positions with the result appended.
fn play_game(
    mut pos: Position,
    settings: &Settings,
    rng: &mut StdRng,
    tt: &TranspositionTable,
    workers: &mut [Worker],
) -> Vec<String> {
    // Random plies first, for variety.
    for _ in 0..settings.random_plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return Vec::new();
        }
        pos.make_move(moves.as_slice()[rng.random_range(0..moves.len())]);
    }
    tt.clear();
    for worker in workers.iter_mut() {
        worker.clear();
    }
    let mut history: Vec<u64> = Vec::new();
    let mut seen: HashMap<u64, u32> = HashMap::new();
    let mut recorded = Vec::new();
    let mut decisive_plies = 0;
    let mut last_winner = None;
    let result: f32 = loop {
        if pos.legal_moves().is_empty() {
            break if pos.in_check() {
                if pos.side_to_move() == Color::White { 0.0 } else { 1.0 }
            } else {
                0.5
            };
        }
        if pos.halfmove_clock() >= 100 || pos.is_insufficient_material() || history.len() > 600 {
            break 0.5;
        }
        let count = seen.entry(pos.key()).or_insert(0);
        *count += 1;
        if *count >= 3 {
            break 0.5;
        }
        let job = SearchJob {
            root: pos,
            history: history.clone(),
            limits: Limits { nodes: Some(settings.nodes), ..Limits::default() },
            search_moves: Vec::new(),
            multipv: 1,
            move_overhead_ms: 0,
            strength: None,
        };
        let shared = Shared::new();
        let found = search::run(&job, tt, &shared, workers, &Silent);
        let Some(best) = found.best else { break 0.5 };
        let white_score = found.score * pos.side_to_move().sign();
        // Adjudicate clear wins to save time.
        if white_score.abs() >= 1500 {
            let winner = white_score > 0;
            decisive_plies = if last_winner == Some(winner) { decisive_plies + 1 } else { 1 };
            last_winner = Some(winner);
            if decisive_plies >= 6 {
                break if winner { 1.0 } else { 0.0 };
            }
        } else {
            decisive_plies = 0;
        }
        // Keep quiet positions: not in check, best move quiet, no mate in sight.
        if !pos.in_check() && !pos.is_noisy(best) && found.score.abs() < MATE_BOUND {
            recorded.push((pos.to_fen(), white_score));
        }
        history.push(pos.key());
        pos.make_move(best);
        if pos.halfmove_clock() == 0 {
            history.clear();
        }
    };
    recorded.into_iter().map(|(fen, score)| format!("{fen};{result:.1};{score}")).collect()
}
