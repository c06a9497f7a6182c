//! Table wins played out: with the 3-4 piece tables, Zwischen converts every won start it is
//! given, mating before the 50-move rule and never repeating a position three times, against
//! itself with tables (the defender plays the longest resistance the tables know).
//!
//! The starts are hard ones: for each material, the longest win (by DTZ) among random
//! positions in which the side to move wins. `scripts/tb_conversion.py` plays the same kind of
//! starts against Stockfish at a fixed time a move.

use std::collections::HashMap;
use std::sync::Arc;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use zwischen::chess::{Color, Position};
use zwischen::search::{
    self, Limits, STACK_SIZE, SearchJob, Shared, Silent, TablebaseUse, ThreadPool,
    TranspositionTable,
};
use zwischen::tablebase::{Tablebases, Wdl};

/// Nodes searched a move, by both sides.
const NODES: u64 = 2000;
/// Random positions tried for each start; the longest win among them is kept.
const SAMPLES: usize = 48;
const STARTS_PER_MATERIAL: usize = 40;

fn tables() -> Arc<Tablebases> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy");
    let (tables, report) = Tablebases::load(dir);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    Arc::new(tables)
}

/// A random position with `material` (the strong side's letters, then the weak side's, e.g.
/// "KQ" and "KR") and the strong side to move, or `None` where the placement is not legal.
fn random_position(strong: &str, weak: &str, rng: &mut StdRng) -> Option<Position> {
    let mut board = [None::<char>; 64];
    let white_strong = rng.random_bool(0.5);
    for (letters, white) in [(strong, white_strong), (weak, !white_strong)] {
        for letter in letters.chars() {
            let square = loop {
                let square = rng.random_range(0..64usize);
                if board[square].is_none() {
                    break square;
                }
            };
            board[square] = Some(if white { letter } else { letter.to_ascii_lowercase() });
        }
    }
    let mut placement = String::new();
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            match board[rank * 8 + file] {
                Some(letter) => {
                    if empty > 0 {
                        placement.push_str(&empty.to_string());
                        empty = 0;
                    }
                    placement.push(letter);
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            placement.push_str(&empty.to_string());
        }
        if rank > 0 {
            placement.push('/');
        }
    }
    let side = if white_strong { 'w' } else { 'b' };
    let pos = Position::from_fen(&format!("{placement} {side} - - 0 1")).ok()?;
    pos.has_legal_move().then_some(pos)
}

/// `count` hard starts with this material: each the longest win of `SAMPLES` random tries.
fn hard_starts(
    tables: &Tablebases,
    strong: &str,
    weak: &str,
    count: usize,
    rng: &mut StdRng,
) -> Vec<Position> {
    let mut starts = Vec::new();
    while starts.len() < count {
        let best = (0..SAMPLES)
            .filter_map(|_| random_position(strong, weak, rng))
            .filter(|pos| tables.probe_wdl(pos) == Some(Wdl::Win))
            .filter_map(|pos| Some((tables.probe_dtz(&pos)?, pos)))
            .max_by_key(|(dtz, _)| *dtz);
        if let Some((_, pos)) = best {
            starts.push(pos);
        }
    }
    starts
}

/// How a played-out start ended.
#[derive(Debug, PartialEq)]
enum Ending {
    /// The side that started with the win mated.
    Mate,
    Stalemate,
    FiftyMoves,
    Repetition,
    Lost,
}

/// Plays `start` out with tables on both sides at `NODES` a move.
fn play_out(start: Position, tables: &Arc<Tablebases>) -> (Ending, usize) {
    let winner = start.side_to_move();
    let tt = std::sync::Arc::new(TranspositionTable::new(4).unwrap());
    let mut pool = ThreadPool::new(1);
    let mut pos = start;
    // Keys since the last capture or pawn move, the current position last.
    let mut keys: Vec<u64> = vec![pos.key()];
    let mut seen: HashMap<u64, u32> = HashMap::from([(pos.key(), 1)]);
    let mut ply = 0;
    loop {
        if !pos.has_legal_move() {
            let ending = match (pos.in_check(), pos.side_to_move() == winner) {
                (false, _) => Ending::Stalemate,
                (true, false) => Ending::Mate,
                (true, true) => Ending::Lost,
            };
            return (ending, ply);
        }
        if pos.halfmove_clock() >= 100 {
            return (Ending::FiftyMoves, ply);
        }
        let job = SearchJob {
            history: keys[..keys.len() - 1].to_vec(),
            tablebases: Some(TablebaseUse {
                tables: Arc::clone(tables),
                probe_depth: 1,
                probe_limit: 7,
                fifty_move_rule: true,
            }),
            ..SearchJob::new(pos, Limits { nodes: Some(NODES), ..Limits::default() })
        };
        let best =
            search::run(&job, &tt, &std::sync::Arc::new(Shared::new()), &mut pool, &Silent).best;
        pos.make_move(best.expect("a position with legal moves has a best move"));
        if pos.halfmove_clock() == 0 {
            keys.clear();
            seen.clear();
        }
        keys.push(pos.key());
        let count = seen.entry(pos.key()).or_insert(0);
        *count += 1;
        ply += 1;
        if *count >= 3 {
            return (Ending::Repetition, ply);
        }
    }
}

#[test]
fn every_table_win_is_converted_before_the_fifty_move_rule() {
    let tables = tables();
    let materials = [("KQ", "KR"), ("KR", "K"), ("KBN", "K"), ("KP", "K"), ("KQ", "KQ")];
    let mut starts: Vec<Position> = [
        // Two KQvKR starts that 25b66dc drew by repetition.
        "4Q1K1/8/8/8/8/8/3k4/6r1 w - - 0 1",
        "8/K7/8/1Q3rk1/8/8/8/8 w - - 0 1",
    ]
    .iter()
    .map(|fen| Position::from_fen(fen).unwrap())
    .collect();
    let mut rng = StdRng::seed_from_u64(25);
    for (strong, weak) in materials {
        starts.extend(hard_starts(&tables, strong, weak, STARTS_PER_MATERIAL, &mut rng));
    }
    assert!(starts.len() >= 200);
    // Two threads share the starts (with the search's stack size).
    let chunks: Vec<Vec<Position>> =
        starts.chunks(starts.len().div_ceil(2)).map(|c| c.to_vec()).collect();
    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let tables = &tables;
                std::thread::Builder::new()
                    .stack_size(STACK_SIZE)
                    .spawn_scoped(scope, move || {
                        chunk
                            .into_iter()
                            .filter_map(|start| {
                                let (ending, plies) = play_out(start, tables);
                                (ending != Ending::Mate).then(|| {
                                    format!("{}: {ending:?} after {plies} plies", start.to_fen())
                                })
                            })
                            .collect::<Vec<_>>()
                    })
                    .unwrap()
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let total = starts.len();
    assert!(failures.is_empty(), "{} of {total} not converted: {failures:#?}", failures.len());
    // Every start is won for the side to move: white and black both appear.
    assert!(starts.iter().any(|p| p.side_to_move() == Color::White));
    assert!(starts.iter().any(|p| p.side_to_move() == Color::Black));
}
