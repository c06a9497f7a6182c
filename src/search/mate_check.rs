//! Exact mate distances. The main search prunes and reduces, so the first mate it sees may
//! not be the shortest one: a quicker mate can hide behind a reduced or pruned move (ours,
//! when we mate; the opponent's, when we are mated). Once an iteration ends in a mate close
//! enough to prove, a search without any pruning, reduction or table cutoff looks for a
//! shorter one. Mate-distance pruning bounds it to the plies of the shorter mate, so it costs
//! little beside the iteration; a node budget bounds it where it would not.
//!
//! A shorter mate found this way is exact (nothing was left out), so later iterations report
//! it even where their own pruned search loses sight of it again.

use super::worker::{RootMove, Worker};
use super::{INFINITY, MATE, MATE_BOUND};
use crate::chess::Position;

/// Mates up to this many plies away (mate in 6 or mated in 6) are checked.
const MAX_PLIES: i32 = 12;

/// The check may search this many nodes at least, and otherwise half as many as the search
/// has so far.
const MIN_NODE_BUDGET: u64 = 200_000;

impl Worker {
    /// After a completed iteration (single line): reports a proven mate where the iteration
    /// lost sight of it, or checks a mate score that has not been checked yet.
    pub(super) fn check_mate_distance(&mut self, root: &Position) {
        if let Some(proven) = &self.mate_check.proven {
            if self.root_moves[0].score != proven.score {
                let proven = proven.clone();
                if let Some(i) = self.root_moves.iter().position(|rm| rm.mv == proven.mv) {
                    let current = &self.root_moves[i];
                    self.root_moves[i] = RootMove {
                        previous_score: current.previous_score,
                        nodes: current.nodes,
                        ..proven
                    };
                    self.root_moves[..=i].rotate_right(1);
                }
            }
            return;
        }
        let reported = self.root_moves[0].score;
        // The plies to the mate: a shorter one is two plies shorter.
        let plies = MATE - reported.abs();
        if reported.abs() < MATE_BOUND
            || !(3..=MAX_PLIES).contains(&plies)
            || self.mate_check.checked == Some(reported)
        {
            return;
        }

        let saved_moves = self.root_moves.clone();
        let saved_depth = self.root_depth;
        let saved_tb_limit = self.tb_limit;
        self.exhaustive = true;
        self.tb_limit = 0;
        self.exhaustive_node_limit = Some(self.nodes + MIN_NODE_BUDGET.max(self.nodes / 2));
        // Deep enough that the mated side's node of a mate two plies shorter is a full node
        // (it must find that it has no legal move).
        self.root_depth = plies - 1;
        self.seldepth = 0;
        // A window that only a shorter mate gets into.
        let (alpha, beta) = if reported > 0 { (reported, INFINITY) } else { (-INFINITY, reported) };
        let score = self.search::<true>(root, alpha, beta, plies - 1, 0, false);
        self.exhaustive = false;
        self.tb_limit = saved_tb_limit;
        self.exhaustive_node_limit = None;
        self.root_depth = saved_depth;

        if self.stopped {
            // Out of budget, or a `stop` or the clock: the iteration itself is complete and
            // is reported; after a real stop the next one ends at its first check.
            self.stopped = false;
            self.root_moves = saved_moves;
            return;
        }
        let shorter = if reported > 0 { score > reported } else { score < reported };
        if shorter {
            self.root_moves.sort_by_key(|rm| -rm.score);
            self.root_moves[0].bound = None;
            self.mate_check.proven = Some(self.root_moves[0].clone());
        } else {
            self.root_moves = saved_moves;
            self.mate_check.checked = Some(reported);
        }
    }
}
