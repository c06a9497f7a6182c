//! Search: iterative deepening over a principal-variation alpha-beta search with a shared
//! transposition table, on one or more threads (Lazy SMP).

mod history;
mod movepick;
mod negamax;
pub mod params;
mod time;
pub mod tt;
mod worker;

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use crate::chess::{Move, Position};
pub use time::{Limits, TimeManager};
pub use tt::{Bound, TranspositionTable};
pub use worker::{STACK_SIZE, Worker};

/// Deepest ply the search reaches.
pub const MAX_PLY: usize = 128;
/// Score of being mated now; mate in n plies scores `MATE - n`.
pub const MATE: i32 = 32_000;
/// Scores beyond this are mate scores.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32 - 1;
pub const INFINITY: i32 = MATE + 1;
pub const DRAW: i32 = 0;

/// Everything a search needs to know about what to search.
#[derive(Clone, Debug)]
pub struct SearchJob {
    pub root: Position,
    /// Keys of the game's positions before the root, oldest first (for repetitions).
    pub history: Vec<u64>,
    pub limits: Limits,
    /// Restrict the root to these moves (`go searchmoves`); empty means all.
    pub search_moves: Vec<Move>,
    pub multipv: usize,
    pub move_overhead_ms: i64,
}

/// A score as UCI shows it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ScoreReport {
    Centipawns(i32),
    /// Mate in this many moves; negative when being mated.
    Mate(i32),
}

impl ScoreReport {
    pub fn from_score(score: i32) -> ScoreReport {
        if score >= MATE_BOUND {
            ScoreReport::Mate((MATE - score + 1) / 2)
        } else if score <= -MATE_BOUND {
            ScoreReport::Mate(-(MATE + score) / 2)
        } else {
            ScoreReport::Centipawns(score)
        }
    }
}

/// One line of search output.
pub struct PvInfo<'a> {
    pub depth: i32,
    pub seldepth: usize,
    pub multipv: usize,
    pub score: i32,
    /// `Some` when the score is only a bound (aspiration window failed).
    pub bound: Option<Bound>,
    pub nodes: u64,
    pub time_ms: u64,
    pub hashfull: u32,
    pub pv: &'a [Move],
}

/// Where the search's output goes (the UCI printer, or nowhere for bench and tests).
pub trait Reporter: Sync {
    fn pv(&self, info: &PvInfo);
    fn best_move(&self, best: Option<Move>, ponder: Option<Move>);
    fn message(&self, text: &str);
}

/// A reporter that prints nothing.
pub struct Silent;

impl Reporter for Silent {
    fn pv(&self, _info: &PvInfo) {}
    fn best_move(&self, _best: Option<Move>, _ponder: Option<Move>) {}
    fn message(&self, _text: &str) {}
}

/// State shared by the search threads and the UCI thread.
pub struct Shared {
    /// Set to end the search (by `stop`, `quit`, or the main thread's time management).
    pub stop: AtomicBool,
    /// True while in `go ponder` before `ponderhit`: no time limit applies.
    pub pondering: AtomicBool,
    /// Nodes searched by all threads so far (helpers add in batches).
    pub nodes: AtomicU64,
    /// Set just before `bestmove` is written: whatever the GUI sends after it finds the
    /// search over.
    pub done: AtomicBool,
    /// When the clock for this move started: `go`, or `ponderhit` when pondering.
    pub clock_start: Mutex<Instant>,
}

impl Shared {
    pub fn new() -> Shared {
        Shared {
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(false),
            nodes: AtomicU64::new(0),
            done: AtomicBool::new(false),
            clock_start: Mutex::new(Instant::now()),
        }
    }

    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// `ponderhit`: the clock starts now and time limits apply.
    pub fn ponder_hit(&self) {
        if let Ok(mut start) = self.clock_start.lock() {
            *start = Instant::now();
        }
        self.pondering.store(false, Ordering::SeqCst);
    }

    pub fn clock_start(&self) -> Instant {
        self.clock_start
            .lock()
            .map(|s| *s)
            .unwrap_or_else(|e| *e.into_inner())
    }
}

impl Default for Shared {
    fn default() -> Self {
        Shared::new()
    }
}

/// The result of a finished search.
pub struct SearchResult {
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub score: i32,
    pub depth: i32,
    pub nodes: u64,
}

/// Runs a whole search on `workers` (the first is the main thread; the others help) and
/// reports the best move. Blocks until the search ends; `shared.stop` ends it early.
pub fn run(
    job: &SearchJob,
    tt: &TranspositionTable,
    shared: &Shared,
    workers: &mut [Worker],
    reporter: &dyn Reporter,
) -> SearchResult {
    tt.new_search();
    shared.nodes.store(0, Ordering::Relaxed);
    let result = match workers.split_first_mut() {
        Some((main, helpers)) => std::thread::scope(|scope| {
            for helper in helpers.iter_mut() {
                let builder = std::thread::Builder::new().stack_size(worker::STACK_SIZE);
                let spawned = builder.spawn_scoped(scope, || {
                    helper.iterative_deepening(job, tt, shared, &Silent)
                });
                if let Err(error) = spawned {
                    reporter.message(&format!("error: cannot start a search thread: {error}"));
                }
            }
            let result = main.iterative_deepening(job, tt, shared, reporter);
            shared.stop();
            result
        }),
        None => SearchResult {
            best: None,
            ponder: None,
            score: 0,
            depth: 0,
            nodes: 0,
        },
    };
    shared.done.store(true, Ordering::SeqCst);
    reporter.best_move(result.best, result.ponder);
    result
}
