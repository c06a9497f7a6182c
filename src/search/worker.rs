//! A search thread: iterative deepening with aspiration windows around the root search.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::chess::{Move, Piece, Position, Square};
use crate::eval::{self, AccumulatorStack, Network};

use super::correction::CorrectionHistory;
use super::history::History;
use super::params::*;
use super::tt::{Bound, TranspositionTable, TtEntry};
use super::{
    INFINITY, MATE, MATE_BOUND, MAX_PLY, PvInfo, Reporter, SearchJob, SearchResult, Shared,
    TB_BOUND, TB_WIN, TimeManager,
};
use crate::tablebase::{RankedMove, Tablebases};

/// Stack size for search threads: deep recursion with move lists on the stack.
pub const STACK_SIZE: usize = 64 << 20;

/// Per-ply search state.
#[derive(Copy, Clone, Default)]
pub(super) struct Frame {
    pub static_eval: i32,
    /// The move played from this ply, as (piece, destination); `None` for a null move.
    pub moved: Option<(Piece, Square)>,
    /// Plies since the last null move (repetitions cannot span one).
    pub plies_from_null: usize,
    /// A move to leave out here (the hash move, during its singular-extension test).
    pub excluded: Move,
    /// Double singular extensions on the path to this ply.
    pub double_extensions: i32,
    /// The move played from this ply when it was quiet (for the history it earns when the
    /// reply fails low); `Move::NONE` after a capture, promotion or null move.
    pub quiet_move: Move,
    /// Beta cutoffs at this ply below the node two plies up, so far (many mean that the node
    /// one ply up keeps having its moves refuted).
    pub cutoffs: i32,
}

#[derive(Clone, Debug)]
pub(super) struct RootMove {
    pub mv: Move,
    pub score: i32,
    pub previous_score: i32,
    pub bound: Option<Bound>,
    pub pv: Vec<Move>,
    pub seldepth: usize,
    /// Nodes spent below this move in this search (all iterations).
    pub nodes: u64,
    /// The score the endgame tables give this move, when the root is in them: shown
    /// instead of a search score that is no mate.
    pub tb_score: Option<i32>,
}

/// What the exact-mate checks of this search have found (see `mate_check.rs`, which reads
/// and writes it; kept here so that the two files do not import each other).
#[derive(Clone, Debug, Default)]
pub(super) struct MateCheck {
    /// A mate score already checked without finding a shorter mate.
    pub checked: Option<i32>,
    /// The root's exact mate score and its line, once a check found a shorter mate.
    pub proven: Option<RootMove>,
}

/// One search thread's private state; kept between searches so histories carry over.
pub struct Worker {
    pub id: usize,
    pub(super) history: History,
    pub(super) correction: CorrectionHistory,
    pub(super) frames: Vec<Frame>,
    pub(super) pv: Vec<[Move; MAX_PLY + 1]>,
    pub(super) pv_len: [usize; MAX_PLY + 2],
    /// Keys of the game before the root, then of each position on the current search path.
    pub(super) keys: Vec<u64>,
    pub(super) nodes: u64,
    /// Nodes not yet added to the shared counter.
    pub(super) unreported_nodes: u64,
    /// The other threads' nodes as of this thread's last report: a node limit counts every
    /// thread's nodes (as `go nodes` means), exactly at one thread.
    others_nodes: u64,
    /// Nodes between reports to the shared counter (fewer under a node limit, so that the
    /// threads see each other's counts in time).
    report_interval: u64,
    pub(super) seldepth: usize,
    /// Hash table probes of the main and quiescence searches in this search, and those that
    /// found the position.
    pub(super) hash_probes: u64,
    pub(super) hash_hits: u64,
    pub(super) root_moves: Vec<RootMove>,
    /// Index of the multi-PV line being searched.
    pub(super) pv_index: usize,
    pub(super) root_depth: i32,
    pub(super) stopped: bool,
    pub(super) time: Option<TimeManager>,
    pub(super) node_limit: Option<u64>,
    pub(super) lmr: Box<[[i32; 64]; 64]>,
    /// The network of this search and the accumulators
    /// along the search path.
    pub(super) net: Arc<Network>,
    pub(super) accumulators: AccumulatorStack,
    /// The endgame tables of this search, and the most pieces to probe in the search (0:
    /// no probing, the one check made at every node without tables).
    pub(super) tables: Option<Arc<Tablebases>>,
    pub(super) tb_limit: usize,
    pub(super) tb_depth: i32,
    pub(super) tb_fifty_move_rule: bool,
    /// Set while searching for a shorter mate: nothing pruned or reduced.
    pub(super) exhaustive: bool,
    /// Where that search gives up.
    pub(super) exhaustive_node_limit: Option<u64>,
    pub(super) mate_check: MateCheck,
    /// The hash table and the state shared with the other threads, held while a search
    /// runs (released after it, so that a new `Hash` size frees the old table).
    tt: Option<Arc<TranspositionTable>>,
    shared: Option<Arc<Shared>>,
}

impl Worker {
    pub fn new(id: usize) -> Worker {
        // (A tuning build makes new workers when a tunable changes, so this table follows it.)
        let (base, divisor) = (lmr_base() as f64 / 100.0, lmr_divisor() as f64 / 100.0);
        let mut lmr = Box::new([[0; 64]; 64]);
        for (depth, row) in lmr.iter_mut().enumerate().skip(1) {
            for (moves, r) in row.iter_mut().enumerate().skip(1) {
                *r = (base + (depth as f64).ln() * (moves as f64).ln() / divisor) as i32;
            }
        }
        Worker {
            id,
            history: History::new(),
            correction: CorrectionHistory::new(),
            frames: vec![Frame::default(); MAX_PLY + 8],
            pv: vec![[Move::NONE; MAX_PLY + 1]; MAX_PLY + 2],
            pv_len: [0; MAX_PLY + 2],
            keys: Vec::with_capacity(1024),
            nodes: 0,
            unreported_nodes: 0,
            others_nodes: 0,
            report_interval: 1024,
            seldepth: 0,
            hash_probes: 0,
            hash_hits: 0,
            root_moves: Vec::new(),
            pv_index: 0,
            root_depth: 0,
            stopped: false,
            time: None,
            node_limit: None,
            lmr,
            net: eval::current(),
            accumulators: AccumulatorStack::new(MAX_PLY + 8),
            tables: None,
            tb_limit: 0,
            tb_depth: 1,
            tb_fifty_move_rule: true,
            exhaustive: false,
            exhaustive_node_limit: None,
            mate_check: MateCheck::default(),
            tt: None,
            shared: None,
        }
    }

    /// Forgets everything learnt (`ucinewgame`).
    pub fn clear(&mut self) {
        self.history.clear();
        self.correction.clear();
    }

    /// This thread's hash table probes in its last search, and those that found the position.
    pub fn hash_hits(&self) -> (u64, u64) {
        (self.hash_probes, self.hash_hits)
    }

    /// Probes the hash table for `key`, counting the probe.
    #[inline(always)]
    pub(super) fn probe(&mut self, key: u64) -> Option<TtEntry> {
        let entry = self.tt().probe(key);
        self.hash_probes += 1;
        self.hash_hits += u64::from(entry.is_some());
        entry
    }

    /// The hash table of the search in progress.
    #[inline(always)]
    pub(super) fn tt(&self) -> &TranspositionTable {
        self.tt.as_deref().expect("the hash table is set while a search runs")
    }

    /// The state shared by the threads of the search in progress.
    #[inline(always)]
    pub(super) fn shared(&self) -> &Shared {
        self.shared.as_deref().expect("the shared state is set while a search runs")
    }

    pub(super) fn is_main(&self) -> bool {
        self.id == 0
    }

    /// Counts a node and, every so often, checks whether to stop.
    #[inline(always)]
    pub(super) fn count_node(&mut self) {
        self.nodes += 1;
        self.unreported_nodes += 1;
        if self.node_limit.is_some_and(|limit| self.nodes + self.others_nodes >= limit)
            && self.root_depth > 1
        {
            self.stopped = true;
            self.shared().stop();
        }
        if self.unreported_nodes >= self.report_interval {
            let reported = self.shared().nodes.fetch_add(self.unreported_nodes, Ordering::Relaxed);
            self.others_nodes = (reported + self.unreported_nodes).saturating_sub(self.nodes);
            self.unreported_nodes = 0;
            self.check_stop();
        }
    }

    fn check_stop(&mut self) {
        if self.exhaustive_node_limit.is_some_and(|limit| self.nodes >= limit) {
            self.stopped = true;
            return;
        }
        // The first iteration always completes, so there is always a move to play.
        if self.root_depth <= 1 {
            return;
        }
        if self.shared().stop.load(Ordering::Relaxed) {
            self.stopped = true;
            return;
        }
        if self.is_main()
            && !self.shared().pondering.load(Ordering::Relaxed)
            && let Some(time) = &self.time
            && time.hard_limit_reached(self.shared().clock_start().elapsed())
        {
            self.stopped = true;
            self.shared().stop();
        }
    }

    /// Iterative deepening from `job.root`; returns when done or stopped. The main thread
    /// (id 0) also honours `go infinite`/`go ponder` by waiting for `stop` or `ponderhit`.
    pub fn iterative_deepening(
        &mut self,
        job: &SearchJob,
        tt: &Arc<TranspositionTable>,
        shared: &Arc<Shared>,
        reporter: &dyn Reporter,
    ) -> SearchResult {
        self.tt = Some(Arc::clone(tt));
        self.shared = Some(Arc::clone(shared));
        self.prepare(job);
        let root = job.root;
        let max_depth = job.limits.depth.unwrap_or(MAX_PLY as i32 - 1).clamp(1, MAX_PLY as i32 - 1);
        // A limited strength chooses among several lines; only `job.multipv` are shown.
        let lines_wanted = match job.strength {
            Some(strength) => job.multipv.max(strength.candidate_lines()),
            None => job.multipv,
        };
        let multipv = lines_wanted.clamp(1, self.root_moves.len().max(1));
        let shown = job.multipv.clamp(1, multipv);
        let mut completed_depth = 0;
        // A decaying count of best-move changes between iterations.
        let mut instability = 0u32;
        let mut last_best = Move::NONE;

        if !self.root_moves.is_empty() {
            for depth in 1..=max_depth {
                // Helpers search some iterations deeper to diversify the shared table.
                let depth = if self.is_main() {
                    depth
                } else {
                    (depth + (self.id as i32 % 2)).min(max_depth)
                };
                self.root_depth = depth;
                // The last iteration's best score (the moves are sorted after each one).
                let previous_best = self.root_moves[0].score;
                for root_move in &mut self.root_moves {
                    root_move.previous_score = root_move.score;
                }
                for pv_index in 0..multipv {
                    self.pv_index = pv_index;
                    self.seldepth = 0;
                    self.aspiration(&root, depth, reporter, job);
                    if self.stopped {
                        break;
                    }
                    if self.is_main() && multipv == 1 {
                        self.check_mate_distance(&root);
                    }
                    // Sort the lines found so far; keep the unsearched ones in order.
                    self.root_moves[..=pv_index].sort_by_key(|rm| -rm.score);
                    // All lines at the end of the iteration; each line as it comes when slow.
                    let last_line = pv_index + 1 == multipv;
                    let slow = self.shared().clock_start().elapsed() > Duration::from_secs(3);
                    if self.is_main() && (last_line || slow) {
                        self.report(depth, (pv_index + 1).min(shown), reporter);
                    }
                }
                if self.stopped {
                    break;
                }
                completed_depth = depth;
                if self.root_moves[0].mv != last_best {
                    instability += 4;
                    last_best = self.root_moves[0].mv;
                }
                if !self.is_main() {
                    if self.shared().stop.load(Ordering::Relaxed) {
                        break;
                    }
                    continue;
                }
                if self.should_stop_deepening(job, depth, instability, previous_best) {
                    break;
                }
                instability /= 2;
            }
        }
        self.shared().nodes.fetch_add(self.unreported_nodes, Ordering::Relaxed);
        self.unreported_nodes = 0;
        // Holding no tables between searches lets a new `SyzygyPath` unmap the old ones.
        self.tables = None;
        self.tb_limit = 0;

        if self.is_main() {
            // In `go infinite` and `go ponder` the move waits for `stop` or `ponderhit`.
            while !self.shared().stop.load(Ordering::SeqCst)
                && (job.limits.infinite || self.shared().pondering.load(Ordering::SeqCst))
            {
                std::thread::sleep(Duration::from_millis(1));
            }
            self.shared().stop();
        }
        let result = self.result(job, completed_depth);
        self.tt = None;
        self.shared = None;
        result
    }

    fn prepare(&mut self, job: &SearchJob) {
        let root = &job.root;
        self.nodes = 0;
        self.unreported_nodes = 0;
        self.others_nodes = 0;
        (self.hash_probes, self.hash_hits) = (0, 0);
        self.stopped = false;
        self.root_depth = 0;
        self.exhaustive = false;
        self.exhaustive_node_limit = None;
        self.mate_check = MateCheck::default();
        self.keys.clear();
        self.keys.extend_from_slice(&job.history);
        self.keys.push(root.key());
        self.frames.fill(Frame::default());
        self.frames[0].plies_from_null = job.history.len();
        self.net = eval::current();
        self.accumulators.reset(&self.net, root);
        self.time = self
            .is_main()
            .then(|| TimeManager::new(&job.limits, root.side_to_move(), job.move_overhead_ms));
        // Node limits count the nodes of all threads together; every thread watches them.
        let strength_nodes = job.strength.map(|s| s.node_budget());
        self.node_limit = match (job.limits.nodes, strength_nodes) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.report_interval = self.node_limit.map_or(1024, |limit| (limit / 256).clamp(16, 1024));
        self.root_moves = root
            .legal_moves()
            .iter()
            .filter(|mv| job.search_moves.is_empty() || job.search_moves.contains(mv))
            .map(|&mv| RootMove {
                mv,
                score: -INFINITY,
                previous_score: -INFINITY,
                bound: None,
                pv: vec![mv],
                seldepth: 0,
                nodes: 0,
                tb_score: None,
            })
            .collect();
        self.prepare_tablebases(job);
        // Start from a sensible order: the static exchange and evaluation after each move.
        let mut scored: Vec<(i32, RootMove)> = self
            .root_moves
            .drain(..)
            .map(|rm| {
                let mut child = *root;
                child.make_move(rm.mv);
                (-self.net.evaluate(&child), rm)
            })
            .collect();
        scored.sort_by_key(|(score, _)| -score);
        self.root_moves = scored.into_iter().map(|(_, rm)| rm).collect();
    }

    /// Takes the job's tables, and when the root is in them keeps only the root moves that
    /// keep its best result (see `Tablebases::rank_root_moves`); the search chooses among
    /// those.
    fn prepare_tablebases(&mut self, job: &SearchJob) {
        let Some(tb) = &job.tablebases else {
            self.tables = None;
            self.tb_limit = 0;
            return;
        };
        self.tb_limit = tb.probe_limit.min(tb.tables.max_pieces());
        self.tb_depth = tb.probe_depth;
        self.tb_fifty_move_rule = tb.fifty_move_rule;
        self.tables = Some(Arc::clone(&tb.tables));
        if self.tb_limit == 0 || self.root_moves.is_empty() {
            return;
        }
        let moves: Vec<Move> = self.root_moves.iter().map(|rm| rm.mv).collect();
        // A position already repeated since the last capture or pawn move: no more shuffling.
        let mut keys: Vec<u64> = job.history.iter().copied().chain([job.root.key()]).collect();
        keys.sort_unstable();
        let repeated = keys.windows(2).any(|w| w[0] == w[1]);
        let Some(kept) = tb.tables.rank_root_moves(&job.root, &moves, repeated, tb.fifty_move_rule)
        else {
            return;
        };
        if self.is_main() {
            self.shared().tb_hits.fetch_add(moves.len() as u64, Ordering::Relaxed);
        }
        self.root_moves.retain_mut(|rm| match kept.iter().find(|k| k.mv == rm.mv) {
            Some(ranked) => {
                rm.tb_score = Some(root_tb_score(ranked, tb.fifty_move_rule));
                true
            }
            None => false,
        });
    }

    /// Searches the current multi-PV line at `depth` with a window around the last score,
    /// widening it on failure.
    fn aspiration(
        &mut self,
        root: &Position,
        depth: i32,
        reporter: &dyn Reporter,
        job: &SearchJob,
    ) {
        let previous = self.root_moves[self.pv_index].previous_score;
        let mut delta = aspiration_delta();
        let (mut alpha, mut beta) = if depth >= aspiration_min_depth() && previous.abs() < TB_BOUND
        {
            ((previous - delta).max(-INFINITY), (previous + delta).min(INFINITY))
        } else {
            (-INFINITY, INFINITY)
        };
        loop {
            let score = self.search::<true>(root, alpha, beta, depth, 0, false);
            // Put the best move of this attempt first among the lines not yet fixed (also
            // when stopped: a move that already beat the old best is the better choice).
            self.root_moves[self.pv_index..].sort_by_key(|rm| -rm.score);
            if self.stopped {
                return;
            }
            if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITY);
                self.root_moves[self.pv_index].bound = Some(Bound::Upper);
            } else if score >= beta {
                beta = (score + delta).min(INFINITY);
                self.root_moves[self.pv_index].bound = Some(Bound::Lower);
            } else {
                self.root_moves[self.pv_index].bound = None;
                return;
            }
            // Show long fail-highs/lows so a GUI sees progress.
            let elapsed = self.shared().clock_start().elapsed();
            if self.is_main() && job.multipv == 1 && elapsed > Duration::from_secs(3) {
                self.report(depth, 1, reporter);
            }
            delta += delta / 2;
        }
    }

    /// Decides after a completed iteration whether to start another one; `previous_best` is
    /// the best score of the iteration before it.
    fn should_stop_deepening(
        &self,
        job: &SearchJob,
        depth: i32,
        instability: u32,
        previous_best: i32,
    ) -> bool {
        let best = &self.root_moves[0];
        if let Some(mate) = job.limits.mate
            && best.score >= MATE_BOUND
            && (MATE - best.score + 1) / 2 <= mate as i32
        {
            return true;
        }
        if self.shared().pondering.load(Ordering::Relaxed) {
            return false;
        }
        let Some(time) = &self.time else { return false };
        // `go movetime` asks for that much thinking: only the hard limit ends it (as in
        // Stockfish, whose time management applies to clocks alone).
        if !time.is_timed() || time.is_fixed() {
            return false;
        }
        // Only one legal move: no need to think.
        if self.root_moves.len() == 1 && depth >= 4 {
            return true;
        }
        // Think longer when the best move keeps changing or the score drops (against the
        // last iteration's best score, whichever move had it).
        let drop = if previous_best > -INFINITY {
            (previous_best - best.score).clamp(0, tm_drop_cap()) as u32
        } else {
            0
        };
        let scale = 100 + tm_instability_percent() as u32 * instability.min(10) + drop;
        // Think longer when the best move took a small share of the effort (the others
        // needed long searches to refute), less when it took nearly all of it.
        let best_share = (best.nodes * 100 / self.nodes.max(1)).min(100) as u32;
        let share_scale = (tm_node_share_pivot() as u32 - best_share) * tm_node_share_gain() as u32;
        let scale = scale * share_scale / 10_000;
        !time.may_continue(self.shared().clock_start().elapsed(), scale)
    }

    fn report(&self, depth: i32, lines: usize, reporter: &dyn Reporter) {
        let elapsed = self.shared().clock_start().elapsed().as_millis() as u64;
        let nodes = self.shared().nodes.load(Ordering::Relaxed) + self.unreported_nodes;
        let hashfull = self.tt().hashfull();
        let tbhits = self.shared().tb_hits.load(Ordering::Relaxed);
        for (i, rm) in self.root_moves.iter().take(lines).enumerate() {
            if rm.score == -INFINITY {
                continue;
            }
            // The tables know better than an evaluation; a mate found by the search is exact.
            let (score, bound) = match rm.tb_score {
                Some(tb_score) if rm.score.abs() < MATE_BOUND => (tb_score, None),
                _ => (rm.score, rm.bound),
            };
            reporter.pv(&PvInfo {
                depth,
                seldepth: rm.seldepth.max(1),
                multipv: i + 1,
                score,
                bound,
                nodes,
                time_ms: elapsed,
                hashfull,
                tbhits,
                pv: &rm.pv,
            });
        }
    }

    fn result(&self, job: &SearchJob, depth: i32) -> SearchResult {
        let root = &job.root;
        let mut chosen = self.root_moves.first();
        if let Some(strength) = job.strength {
            let lines: Vec<(Move, i32)> = self
                .root_moves
                .iter()
                .take(strength.candidate_lines().max(job.multipv))
                .filter(|rm| rm.score > -INFINITY)
                .map(|rm| (rm.mv, rm.score))
                .collect();
            let mut rng = rand::rng();
            let pick = strength.choose(&lines, || rand::RngExt::random::<f64>(&mut rng));
            if let Some(pick) = pick {
                chosen = self.root_moves.iter().find(|rm| rm.mv == pick).or(chosen);
            }
        }
        let Some(best) = chosen else {
            return SearchResult {
                best: None,
                ponder: None,
                score: 0,
                depth,
                seldepth: 0,
                pv: Vec::new(),
                bound: None,
                nodes: self.nodes,
            };
        };
        let mut ponder = best.pv.get(1).copied();
        if ponder.is_none() {
            // Fall back on the hash table for the expected reply.
            let mut child = *root;
            child.make_move(best.mv);
            ponder = self
                .tt()
                .probe(child.key())
                .map(|e| e.mv)
                .filter(|&mv| !mv.is_none() && child.legal_moves().contains(mv));
        }
        let score = match best.tb_score {
            Some(tb_score) if best.score.abs() < MATE_BOUND => tb_score,
            _ => best.score,
        };
        SearchResult {
            best: Some(best.mv),
            ponder,
            score,
            depth,
            seldepth: best.seldepth,
            pv: best.pv.clone(),
            bound: if best.tb_score.is_some() { None } else { best.bound },
            nodes: self.nodes,
        }
    }
}

/// The score shown for a root move the tables ranked: a win or loss in the table band,
/// nearer the mate band the sooner the counter is zeroed; a draw as 0.
fn root_tb_score(ranked: &RankedMove, fifty_move_rule: bool) -> i32 {
    let plies = (ranked.plies as i32).min(MAX_PLY as i32 - 1);
    match ranked.wdl.outcome(fifty_move_rule) {
        1 => TB_WIN - plies,
        -1 => -TB_WIN + plies,
        _ => 0,
    }
}
