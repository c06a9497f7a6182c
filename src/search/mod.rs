//! Search: iterative deepening over a principal-variation alpha-beta search with a shared
//! transposition table, on one or more threads (Lazy SMP).

mod correction;
mod history;
mod mate_check;
mod movepick;
mod negamax;
pub mod params;
mod pool;
mod qsearch;
mod repetition;
pub mod strength;
mod time;
pub mod tt;
pub mod wdl;
mod worker;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::chess::{Move, Position};
use crate::tablebase::Tablebases;
pub use pool::{ThreadPool, lock};
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
/// Score of a position the endgame tables show won, at the root; a table win found n plies
/// from the root scores `TB_WIN - n`. Below every mate score, above every evaluation; shown to
/// the GUI as centipawns (`cp 19990`), as other engines do.
pub const TB_WIN: i32 = 20_000;
/// Scores beyond this (in absolute value) are table wins or losses, or mates: proven results.
pub const TB_BOUND: i32 = TB_WIN - MAX_PLY as i32;

/// How the search uses the endgame tables (`Syzygy*` options).
#[derive(Clone, Debug)]
pub struct TablebaseUse {
    pub tables: Arc<Tablebases>,
    /// Probe in the search only at this remaining depth or more.
    pub probe_depth: i32,
    /// Probe only positions with at most this many pieces (kings included).
    pub probe_limit: usize,
    /// Whether cursed wins and blessed losses count as draws.
    pub fifty_move_rule: bool,
}

/// Everything a search needs to know about what to search.
#[derive(Clone, Debug)]
pub struct SearchJob {
    pub root: Position,
    /// Keys of the game's positions before the root, oldest first (for repetitions).
    pub history: Vec<u64>,
    pub limits: Limits,
    /// Restrict the root to these moves (`go searchmoves`); empty means all.
    pub search_moves: Vec<Move>,
    /// Lines to report (`MultiPV`).
    pub multipv: usize,
    pub move_overhead_ms: i64,
    /// Play weaker than full strength.
    pub strength: Option<strength::Strength>,
    /// Endgame tables to probe; `None` without tables.
    pub tablebases: Option<TablebaseUse>,
}

impl SearchJob {
    /// A plain search of `root` within `limits`: no game before it, all root moves, one
    /// line, no move overhead, full strength, no tables.
    pub fn new(root: Position, limits: Limits) -> SearchJob {
        SearchJob {
            root,
            history: Vec::new(),
            limits,
            search_moves: Vec::new(),
            multipv: 1,
            move_overhead_ms: 0,
            strength: None,
            tablebases: None,
        }
    }
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
    /// Table probes that found the position, all threads together.
    pub tbhits: u64,
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
    /// Successful table probes by all threads.
    pub tb_hits: AtomicU64,
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
            tb_hits: AtomicU64::new(0),
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
        self.clock_start.lock().map(|s| *s).unwrap_or_else(|e| *e.into_inner())
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
    /// The last completed iteration.
    pub depth: i32,
    pub seldepth: usize,
    pub pv: Vec<Move>,
    /// `Some` when the score is only a bound (the move was found in an unfinished window).
    pub bound: Option<Bound>,
    pub nodes: u64,
}

/// Passes everything on and remembers the first move and the node count of the last main
/// line shown, so that [`run`] can tell whether the move it plays and the search's whole
/// effort were shown.
struct RememberShown<'a> {
    inner: &'a dyn Reporter,
    /// The first move and the nodes of the last main line shown (none and 0 before one).
    last_shown: Mutex<(Option<Move>, u64)>,
}

impl Reporter for RememberShown<'_> {
    fn pv(&self, info: &PvInfo) {
        if info.multipv == 1 {
            *lock(&self.last_shown) = (info.pv.first().copied(), info.nodes);
        }
        self.inner.pv(info);
    }

    fn best_move(&self, best: Option<Move>, ponder: Option<Move>) {
        self.inner.best_move(best, ponder);
    }

    fn message(&self, text: &str) {
        self.inner.message(text);
    }
}

/// Runs a whole search on the threads of `pool` (the main search on this thread, the helpers
/// on theirs) and reports the best move. Blocks until the search ends; `shared.stop` ends it
/// early.
pub fn run(
    job: &SearchJob,
    tt: &Arc<TranspositionTable>,
    shared: &Arc<Shared>,
    pool: &mut ThreadPool,
    reporter: &dyn Reporter,
) -> SearchResult {
    // Lets the tests check the panic policy of the UCI layer (tests/stress.rs); compiled only
    // into test builds with the `test-hooks` feature, never into the engine users run.
    #[cfg(feature = "test-hooks")]
    if std::env::var_os("ZWISCHEN_TEST_PANIC").is_some() {
        panic!("ZWISCHEN_TEST_PANIC is set");
    }
    tt.new_search();
    shared.nodes.store(0, Ordering::Relaxed);
    shared.tb_hits.store(0, Ordering::Relaxed);
    if let Some(error) = pool.start_error() {
        reporter.message(&format!("error: {error}"));
    }
    let reporter = RememberShown { inner: reporter, last_shown: Mutex::new((None, 0)) };
    let (main_result, helper_results) =
        pool.search(job, tt, shared, |main| main.iterative_deepening(job, tt, shared, &reporter));
    let mut results = vec![main_result];
    results.extend(helper_results);
    let mut best = pick_best(results);
    best.nodes = shared.nodes.load(Ordering::Relaxed);
    // The last line shown is the one played: a helper's move, a move found in an unfinished
    // iteration, or a weaker line chosen by a limited strength gets its line shown now. With
    // a single line it also carries the nodes of the whole search (as Stockfish's last line
    // does), where the search went on after its last line: a stopped iteration, or helpers
    // that were still searching.
    let (shown_move, shown_nodes) = *lock(&reporter.last_shown);
    let unshown_nodes = job.multipv == 1 && best.nodes > shown_nodes;
    if best.best.is_some() && !best.pv.is_empty() && (best.best != shown_move || unshown_nodes) {
        let elapsed = shared.clock_start().elapsed().as_millis() as u64;
        reporter.pv(&PvInfo {
            depth: best.depth.max(1),
            seldepth: best.seldepth.max(1),
            multipv: 1,
            score: best.score,
            bound: best.bound,
            nodes: best.nodes,
            time_ms: elapsed,
            hashfull: tt.hashfull(),
            tbhits: shared.tb_hits.load(Ordering::Relaxed),
            pv: &best.pv,
        });
    }
    shared.done.store(true, Ordering::SeqCst);
    reporter.best_move(best.best, best.ponder);
    best
}

/// Lazy SMP: each thread votes for its move, weighted by its score and completed depth; the
/// thread of the most supported move (preferring deeper, then better, results) wins. The
/// main thread's result stands unless a helper's move is better supported.
fn pick_best(mut results: Vec<SearchResult>) -> SearchResult {
    if results.len() == 1 {
        return results.remove(0);
    }
    let eligible = |r: &SearchResult| r.best.is_some() && r.depth > 0 && r.score > -INFINITY;
    let min_score = results.iter().filter(|r| eligible(r)).map(|r| r.score).min().unwrap_or(0);
    let weight = |r: &SearchResult| (r.score - min_score + 14) as i64 * r.depth as i64;
    let votes = |mv: Option<Move>| {
        results.iter().filter(|r| eligible(r) && r.best == mv).map(weight).sum::<i64>()
    };
    let mut best_index = 0;
    for i in 1..results.len() {
        let (candidate, current) = (&results[i], &results[best_index]);
        if !eligible(candidate) {
            continue;
        }
        let better = if candidate.score >= MATE_BOUND || current.score >= MATE_BOUND {
            // A found mate beats anything; the shorter one wins.
            candidate.score > current.score
        } else {
            votes(candidate.best) > votes(current.best)
                || (votes(candidate.best) == votes(current.best)
                    && weight(candidate) > weight(current))
        };
        if better || !eligible(current) {
            best_index = i;
        }
    }
    results.swap_remove(best_index)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_limit_counts_every_thread() {
        let root = Position::from_fen(
            "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R2QKB1R w KQ - 0 8",
        )
        .unwrap();
        let limit = 100_000;
        for threads in [1, 2, 4] {
            let tt = Arc::new(TranspositionTable::new(16).unwrap());
            let mut pool = ThreadPool::new(threads);
            let job = SearchJob::new(root, Limits { nodes: Some(limit), ..Limits::default() });
            let result = run(&job, &tt, &Arc::new(Shared::new()), &mut pool, &Silent);
            let nodes = result.nodes as f64;
            assert!(
                (nodes - limit as f64).abs() <= 0.02 * limit as f64,
                "{threads} threads searched {nodes} nodes"
            );
            assert!(result.best.is_some());
        }
    }
}
