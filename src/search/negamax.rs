//! The search proper: one principal-variation search for the root and every other node;
//! quiescence is in `qsearch.rs`.

use crate::chess::{Move, MoveKind, Position};

use super::correction::LastMoves;
use super::history::stat_bonus;
use super::movepick::{MovePicker, OrderingContext};
use super::params::*;
use super::repetition::upcoming_repetition;
use super::tt::{Bound, NO_EVAL, TtEntry, score_from_tt, score_to_tt, sharpen_eval};
use super::worker::Worker;
use super::{DRAW, INFINITY, MATE, MATE_BOUND, MAX_PLY, TB_BOUND, TB_WIN};
use crate::tablebase::Wdl;

/// Static evaluations are kept well inside the mate-score band.
const EVAL_LIMIT: i32 = 10_000;

/// A table result is exact: it is stored as if searched this many plies deeper.
const TB_DEPTH_BONUS: i32 = 6;

impl Worker {
    /// Enters the child position reached by `mv` (or a null move when `mv` is `None`).
    #[inline(always)]
    pub(super) fn push(&mut self, pos: &Position, mv: Option<Move>, child: &Position, ply: usize) {
        self.frames[ply].moved = mv.and_then(|mv| {
            let piece = pos.piece_on(mv.from())?;
            // Castling is recorded as the king's move to its destination.
            let to = if mv.kind() == MoveKind::Castling {
                child.king_square(pos.side_to_move())
            } else {
                mv.to()
            };
            Some((piece, to))
        });
        self.frames[ply].quiet_move = match mv {
            Some(mv) if !pos.is_noisy(mv) => mv,
            _ => Move::NONE,
        };
        self.frames[ply + 1].plies_from_null =
            if mv.is_some() { self.frames[ply].plies_from_null + 1 } else { 0 };
        self.frames[ply + 1].double_extensions = self.frames[ply].double_extensions;
        self.keys.push(child.key());
        self.accumulators.push(&self.net, ply, pos, mv);
    }

    /// The static evaluation of `pos`, the position at `ply` on the search path.
    #[inline]
    pub(super) fn static_eval(&mut self, pos: &Position, ply: usize) -> i32 {
        self.accumulators.evaluate(&self.net, ply, pos).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    #[inline(always)]
    pub(super) fn pop(&mut self) {
        self.keys.pop();
    }

    /// Draw by the 50-move rule (unless mated on that move), dead material, or repetition:
    /// one inside the search path, or a threefold one counting the game before the root.
    fn is_draw(&self, pos: &Position, ply: usize) -> bool {
        if pos.halfmove_clock() >= 100 {
            return !pos.in_check() || pos.has_legal_move();
        }
        if pos.is_insufficient_material() {
            return true;
        }
        let limit = (pos.halfmove_clock() as usize).min(self.frames[ply].plies_from_null);
        let n = self.keys.len();
        let key = pos.key();
        let mut earlier = 0;
        let mut distance = 4;
        while distance <= limit && distance < n {
            if self.keys[n - 1 - distance] == key {
                if distance < ply {
                    return true;
                }
                earlier += 1;
                if earlier >= 2 {
                    return true;
                }
            }
            distance += 2;
        }
        false
    }

    /// The uncorrected static evaluation of `pos` at `ply`: the one stored with `entry`, or
    /// the network's; `NO_EVAL` in check.
    pub(super) fn raw_eval(
        &mut self,
        pos: &Position,
        ply: usize,
        in_check: bool,
        entry: Option<TtEntry>,
    ) -> i32 {
        if in_check {
            return NO_EVAL;
        }
        entry
            .map(|e| e.eval)
            .filter(|&e| e != NO_EVAL)
            .unwrap_or_else(|| self.static_eval(pos, ply))
    }

    /// The two moves that led to `ply` (two plies back, then one).
    #[inline]
    pub(super) fn last_moves(&self, ply: usize) -> LastMoves {
        match ply {
            0 => [None, None],
            1 => [None, self.frames[0].moved],
            _ => [self.frames[ply - 2].moved, self.frames[ply - 1].moved],
        }
    }

    /// The correction history's adjustment to the static evaluation of `pos` at `ply`.
    #[inline]
    pub(super) fn correction(&self, pos: &Position, ply: usize) -> i32 {
        self.correction.correction(pos, self.last_moves(ply))
    }

    fn ordering_context(&self, hash_move: Move, ply: usize) -> OrderingContext {
        let [before, previous] = self.last_moves(ply);
        OrderingContext {
            hash_move,
            killers: self.history.killers(ply),
            counter: self.history.counter_move(previous),
            continuations: [previous, before],
        }
    }

    pub(super) fn update_pv(&mut self, ply: usize, mv: Move) {
        let child_len = self.pv_len[ply + 1].min(MAX_PLY - 1);
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply][0] = mv;
        head[ply][1..=child_len].copy_from_slice(&tail[0][..child_len]);
        self.pv_len[ply] = child_len + 1;
    }

    /// Sets the score and line of root move `index` after its search: the first move of the
    /// line and every move that beat `alpha` get their score (and their line where a PV
    /// search left it in `pv[1]`); the others are marked unsearched, keeping their order.
    fn record_root_move(
        &mut self,
        index: usize,
        score: i32,
        alpha: i32,
        first: bool,
        pv_searched: bool,
    ) {
        let seldepth = self.seldepth;
        let child_line = &self.pv[1][..self.pv_len[1]];
        let root_move = &mut self.root_moves[index];
        if first || score > alpha {
            root_move.score = score;
            root_move.seldepth = seldepth;
            let mv = root_move.mv;
            root_move.pv.clear();
            root_move.pv.push(mv);
            if pv_searched {
                root_move.pv.extend_from_slice(child_line);
            }
        } else {
            root_move.score = -INFINITY;
        }
    }

    /// The late-move reduction of the root move `mv`, the `number`-th of its line: quiet
    /// moves and losing captures from the third on, by the reduction table (a ply less for a
    /// check), never below a one-ply search; none for promotions, near mate scores or in the
    /// search for a shorter mate.
    fn root_reduction(
        &self,
        root: &Position,
        mv: Move,
        number: usize,
        depth: i32,
        alpha: i32,
    ) -> i32 {
        if number <= 2
            || depth < lmr_min_depth()
            || self.exhaustive
            || alpha.abs() >= MATE_BOUND
            || mv.promotion_type().is_some()
            || (root.is_noisy(mv) && root.see_ge(mv, 0))
        {
            return 0;
        }
        let reduction = self.table_reduction(depth, number) - root.gives_check(mv) as i32;
        reduction.clamp(0, depth - 2)
    }

    /// The late-move reduction table's entry for the `number`-th move at `depth`.
    #[inline]
    pub(super) fn table_reduction(&self, depth: i32, number: usize) -> i32 {
        self.lmr[depth.min(63) as usize][number.min(63)]
    }

    /// Principal-variation search. `PV` nodes have an open window; the others are searched
    /// with a null window and `cut_node` says whether a fail-high is expected. The root is
    /// the PV node at ply 0: it searches `root_moves` from the current multi-PV line on, in
    /// their order, records each one's score and line there, and skips the steps that say so
    /// (it must search its moves whatever the table, the draw rules or the pruning say).
    pub(super) fn search<const PV: bool>(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        mut beta: i32,
        mut depth: i32,
        ply: usize,
        cut_node: bool,
    ) -> i32 {
        let in_check = pos.in_check();
        let root = ply == 0;
        // Check extension: a checked side gets one more ply to find its way out. Bounded by
        // twice the root depth, or long checking sequences would never reach the horizon.
        if in_check && !root && (ply as i32) < 2 * self.root_depth {
            depth += 1;
        }
        if depth <= 0 {
            return self.qsearch::<PV>(pos, alpha, beta, ply, true);
        }
        self.count_node();
        if self.stopped {
            return 0;
        }
        if PV {
            self.pv_len[ply] = 0;
        }
        self.seldepth = self.seldepth.max(ply + 1);
        self.frames[ply + 2].cutoffs = 0;

        // Step 1. Draws, and the end of the ply range; Step 2, mate distance pruning (not at
        // the root, which is searched whatever it is).
        if !root {
            if self.is_draw(pos, ply) {
                return DRAW;
            }
            if ply >= MAX_PLY - 1 {
                return if in_check { DRAW } else { self.static_eval(pos, ply) };
            }
            // A side that can bring back an earlier position with one move can hold a draw.
            if alpha < DRAW
                && upcoming_repetition(&self.keys, pos, ply, self.frames[ply].plies_from_null)
            {
                alpha = DRAW;
                if alpha >= beta {
                    return alpha;
                }
            }

            // Step 2. Mate distance pruning: no line here can beat a mate already found nearer
            // the root.
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }

        // Step 3. Transposition table: a deep enough stored result decides non-PV nodes
        // (not while a move is excluded: the stored result includes that move).
        let excluded = self.frames[ply].excluded;
        let key = pos.key();
        let entry = self.probe(key);
        let hash_move = entry.map_or(Move::NONE, |e| e.mv);
        let hash_score = entry.map(|e| score_from_tt(e.score, ply, pos.halfmove_clock()));
        // A node that is or was on a principal variation: reduced less, and remembered as such.
        let tt_pv = PV || entry.is_some_and(|e| e.was_pv);
        // A search for the shortest mate (see `mate_check.rs`) cuts nothing it has not seen:
        // no table cutoffs, pruning or reductions.
        let pruning = !self.exhaustive;
        if !PV
            && pruning
            && excluded.is_none()
            && let (Some(e), Some(score)) = (entry, hash_score)
            && e.depth >= depth
            && e.bound.allows_cutoff(score, alpha, beta)
        {
            return score;
        }

        // Step 3b. Endgame tables, right after a capture or pawn move (where the WDL tables are
        // exact whatever the game before). A win or loss is a bound; where it settles the
        // window, or the position is drawn, it is the result. Otherwise a PV node searches on,
        // its score kept at or above a won result and at or below a lost one.
        let mut tb_floor = -INFINITY;
        let mut tb_ceiling = INFINITY;
        if self.tb_limit > 0
            && !root
            && pos.halfmove_clock() == 0
            && excluded.is_none()
            && depth >= self.tb_depth
            && pos.occupied().count() as usize <= self.tb_limit
            && let Some(tables) = &self.tables
            && let Some(wdl) = tables.probe_wdl(pos)
            // A mated position is lost in the table, but the search scores it as a mate.
            && !(wdl == Wdl::Loss && in_check && !pos.has_legal_move())
        {
            self.shared().tb_hits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let (score, bound) = match wdl.outcome(self.tb_fifty_move_rule) {
                1 => (TB_WIN - ply as i32, Bound::Lower),
                -1 => (-TB_WIN + ply as i32, Bound::Upper),
                // A cursed win is a draw, but one the opponent may still spoil.
                _ => (DRAW + (wdl.as_number()).signum(), Bound::Exact),
            };
            if bound.allows_cutoff(score, alpha, beta) {
                let stored_depth = (depth + TB_DEPTH_BONUS).min(MAX_PLY as i32 - 1);
                self.tt().store(
                    key,
                    Move::NONE,
                    score_to_tt(score, ply),
                    NO_EVAL,
                    stored_depth,
                    bound,
                    PV,
                );
                return score;
            }
            if PV {
                if bound == Bound::Lower {
                    tb_floor = score;
                    alpha = alpha.max(score);
                } else {
                    tb_ceiling = score;
                }
            }
        }

        // Step 4. Static evaluation, sharpened by the stored score's bound.
        let raw_eval = self.raw_eval(pos, ply, in_check, entry);
        // The correction history's view of how far the evaluation misses with these pawns and
        // pieces; the table keeps the uncorrected evaluation.
        let static_eval = if in_check { NO_EVAL } else { raw_eval + self.correction(pos, ply) };
        let stored = entry.zip(hash_score).map(|(e, score)| (e.bound, score));
        let eval = if in_check { NO_EVAL } else { sharpen_eval(static_eval, stored, TB_BOUND) };
        self.frames[ply].static_eval = static_eval;
        let improving = !in_check
            && ply >= 2
            && self.frames[ply - 2].static_eval != NO_EVAL
            && static_eval > self.frames[ply - 2].static_eval;

        if !PV && !in_check && excluded.is_none() && pruning {
            // Step 5. Reverse futility pruning: far enough above beta, a shallow search
            // will not fall below it. Not in a decided window (`is_decided`), nor when beta is a
            // mated score: no margin on the static eval shows that this side escapes a mate
            // (the search for a shorter mate would take every such node for an escape, and
            // report a longer mate).
            if depth <= rfp_max_depth()
                && eval.abs() < MATE_BOUND
                && !is_decided(alpha, beta)
                && eval - rfp_margin() * (depth - improving as i32) >= beta
            {
                // Halfway back to beta: the eval of a node this far above it overstates it.
                return (eval + beta) / 2;
            }

            // Step 5b. Razoring: far below alpha near the horizon, only a capture could help;
            // if the quiescence search cannot lift the score to alpha, neither will a move.
            if depth <= razor_max_depth()
                && alpha < MATE_BOUND
                && eval + razor_base() + razor_per_depth2() * depth * depth <= alpha
            {
                let score = self.qsearch::<false>(pos, alpha, alpha + 1, ply, false);
                if self.stopped {
                    return 0;
                }
                if score <= alpha {
                    return score;
                }
            }

            // Step 6. Null-move pruning: if passing still fails high, a real move will too.
            // Not without pieces (zugzwang is common in pawn endings) or twice in a row.
            if depth >= nmp_min_depth()
                && eval >= beta
                && beta > -MATE_BOUND
                && ply >= 1
                && self.frames[ply - 1].moved.is_some()
                && pos.has_non_pawn_material(pos.side_to_move())
            {
                let reduction = nmp_base_reduction()
                    + depth / nmp_depth_divisor()
                    + ((eval - beta) / nmp_eval_divisor()).min(3);
                let mut child = *pos;
                child.make_null_move();
                self.push(pos, None, &child, ply);
                let score = -self.search::<false>(
                    &child,
                    -beta,
                    -beta + 1,
                    depth - reduction,
                    ply + 1,
                    !cut_node,
                );
                self.pop();
                if self.stopped {
                    return 0;
                }
                if score >= beta {
                    // Unproven by a real move: no mate or table win from a null move.
                    return if score >= TB_BOUND { beta } else { score };
                }
            }
        }

        // Step 6b. ProbCut: a good capture that beats beta by a margin in a shallower search
        // would almost surely beat beta in the full one. Not where the table already says a
        // search nearly this deep stays below that margin.
        let probcut_beta = beta + probcut_margin();
        if !PV
            && pruning
            && !in_check
            && excluded.is_none()
            && depth >= probcut_min_depth()
            && beta.abs() < MATE_BOUND
            && !entry.zip(hash_score).is_some_and(|(e, score)| {
                e.depth > depth - probcut_depth_reduction() && score < probcut_beta
            })
        {
            let context = OrderingContext {
                hash_move,
                killers: [Move::NONE; 2],
                counter: Move::NONE,
                continuations: [None, None],
            };
            let mut picker = MovePicker::new(pos, context, true);
            while let Some((mv, _)) = picker.next(pos, &self.history) {
                if !pos.see_ge(mv, probcut_beta - raw_eval) {
                    continue;
                }
                let mut child = *pos;
                child.make_move(mv);
                self.tt().prefetch(child.key());
                self.push(pos, Some(mv), &child, ply);
                // A quiescence search first: most captures fail it, cheaply.
                let mut score = -self.qsearch::<false>(
                    &child,
                    -probcut_beta,
                    -probcut_beta + 1,
                    ply + 1,
                    false,
                );
                if score >= probcut_beta {
                    score = -self.search::<false>(
                        &child,
                        -probcut_beta,
                        -probcut_beta + 1,
                        depth - probcut_depth_reduction(),
                        ply + 1,
                        !cut_node,
                    );
                }
                self.pop();
                if self.stopped {
                    return 0;
                }
                if score >= probcut_beta {
                    let stored_depth = depth - probcut_depth_reduction() + 1;
                    self.tt().store(
                        key,
                        mv,
                        score_to_tt(score, ply),
                        raw_eval,
                        stored_depth,
                        Bound::Lower,
                        false,
                    );
                    return score;
                }
            }
        }

        // Step 7. Internal iterative reduction: without a hash move, a deep search here is
        // probably wasted; search it shallower and let the next iteration do it properly.
        if pruning
            && !root
            && hash_move.is_none()
            && excluded.is_none()
            && depth >= iir_min_depth()
            && (PV || cut_node)
        {
            depth -= 1;
        }

        // Step 8. The moves.
        let context = self.ordering_context(hash_move, ply);
        // A capture for hash move: the quiet moves after it are likely worse.
        let hash_move_noisy = !hash_move.is_none() && pos.is_noisy(hash_move);
        let mut picker = MovePicker::new(pos, context, false);
        // Near the horizon a quiet check may be a mate that nothing else would show.
        picker.keep_quiet_checks = depth <= QUIET_CHECKS_MAX_DEPTH;
        if !root {
            self.history.clear_killers(ply + 1);
        }
        let us = pos.side_to_move();
        let mut best_score = tb_floor;
        let mut best_move = Move::NONE;
        let mut moves_searched = 0;
        // Legal moves met, pruned ones included: none at all is mate or stalemate.
        let mut moves_seen = 0;
        let mut quiets_tried = [Move::NONE; 64];
        let mut quiet_count = 0;
        let mut noisy_tried = [Move::NONE; 32];
        let mut noisy_count = 0;

        // The root's moves come from `root_moves`, from the current multi-PV line on.
        let mut root_index = self.pv_index;
        loop {
            let (mv, order_score) = if root {
                let Some(root_move) = self.root_moves.get(root_index) else { break };
                root_index += 1;
                (root_move.mv, 0)
            } else {
                let Some(next) = picker.next(pos, &self.history) else { break };
                next
            };
            if mv == excluded {
                continue;
            }
            moves_seen += 1;
            let noisy = pos.is_noisy(mv);

            // Step 9. Shallow-depth pruning, once a move has been found that avoids mate.
            // Checking moves are kept: a quiet check may be a mate the static eval cannot see
            // (near the horizon the picker still hands them out once quiet moves are skipped).
            let gives_check = picker.gives_check(pos, mv);
            if pruning && !root && best_score > -MATE_BOUND && pos.has_non_pawn_material(us) {
                if !noisy && !gives_check {
                    // Late-move pruning: at low depth, late quiet moves rarely matter. Not
                    // when alpha is a mate: a late quiet move may mate sooner.
                    let limit = (lmp_base() + depth * depth) / (2 - improving as i32);
                    if depth <= lmp_max_depth() && moves_searched >= limit && alpha < MATE_BOUND {
                        picker.skip_quiets = true;
                        continue;
                    }
                    // Futility pruning: a quiet move will not lift a hopeless eval to alpha.
                    // Not when alpha is a mate: no eval reaches it, but a quiet move may mate
                    // sooner.
                    if !in_check
                        && depth <= fp_max_depth()
                        && alpha < MATE_BOUND
                        && eval + fp_base() + fp_per_depth() * depth <= alpha
                    {
                        picker.skip_quiets = true;
                        continue;
                    }
                    // History pruning: near the horizon, a quiet move that has kept failing
                    // elsewhere (killers and counter-moves score far above this) is skipped.
                    if depth <= hp_max_depth() && order_score < -hp_margin() * depth {
                        continue;
                    }
                    // SEE pruning: moving onto a square that loses material.
                    if depth <= see_max_depth() && !pos.see_ge(mv, see_quiet_margin() * depth) {
                        continue;
                    }
                } else if depth <= see_max_depth()
                    && !pos.see_ge(mv, see_noisy_margin() * depth * depth)
                {
                    continue;
                }
            }

            // Step 10. Singular extension: if every other move fails well below the hash
            // move's stored score, the hash move is the only good one and gets an extra ply.
            // If even without it the search beats beta, several moves do: cut (multi-cut).
            let mut extension = 0;
            if mv == hash_move
                && pruning
                && !root
                && excluded.is_none()
                && depth >= se_min_depth()
                && let (Some(e), Some(hash_score)) = (entry, hash_score)
                && e.depth >= depth - 3
                && e.bound != Bound::Upper
                && hash_score.abs() < TB_BOUND
            {
                let singular_beta = hash_score - se_margin_per_depth() * depth;
                self.frames[ply].excluded = mv;
                let score = self.search::<false>(
                    pos,
                    singular_beta - 1,
                    singular_beta,
                    (depth - 1) / 2,
                    ply,
                    cut_node,
                );
                self.frames[ply].excluded = Move::NONE;
                if self.stopped {
                    return 0;
                }
                if score < singular_beta {
                    extension = 1;
                    // Double extension: far below, the hash move is the only move by a wide
                    // margin (a bounded number of times on one path, or the search explodes).
                    if !PV
                        && score < singular_beta - se_double_margin()
                        && self.frames[ply].double_extensions < se_double_limit()
                    {
                        extension = 2;
                    }
                } else if singular_beta >= beta {
                    return singular_beta;
                } else if hash_score >= beta {
                    // Negative extension: another move is nearly as good and the hash move is
                    // expected to fail high anyway: search it a ply shallower.
                    extension = -1;
                }
            }

            let nodes_before = self.nodes;
            let mut child = *pos;
            child.make_move(mv);
            self.tt().prefetch(child.key());
            self.push(pos, Some(mv), &child, ply);
            if extension >= 2 {
                self.frames[ply + 1].double_extensions += 1;
            }
            moves_searched += 1;
            let new_depth = depth - 1 + extension;

            // Step 11. Late-move reductions: later moves are searched shallower first, and
            // again at full depth only if they beat alpha.
            let mut score = -INFINITY;
            // Not once alpha is a mate: a reduced move may mate sooner (as with the pruning).
            // The root's late moves have a rule of their own (`root_reduction`); they are
            // searched again at full depth, still with a null window, if they beat alpha.
            if root {
                if moves_searched > 1 {
                    let number = moves_searched as usize;
                    let reduced = new_depth - self.root_reduction(pos, mv, number, depth, alpha);
                    score = -self.search::<false>(&child, -alpha - 1, -alpha, reduced, 1, true);
                    if score > alpha && reduced < new_depth {
                        score =
                            -self.search::<false>(&child, -alpha - 1, -alpha, new_depth, 1, true);
                    }
                }
            } else if depth >= lmr_min_depth()
                && pruning
                && moves_searched > 1 + PV as i32
                && alpha < MATE_BOUND
                && mv.promotion_type().is_none()
                && (!noisy || !super::movepick::is_good_noisy(order_score))
            {
                let mut reduction = self.table_reduction(depth, moves_searched as usize);
                reduction += (!tt_pv) as i32 + cut_node as i32 + (!improving) as i32;
                if order_score >= super::movepick::KILLER_FLOOR {
                    reduction -= 1;
                }
                if !noisy {
                    reduction -= order_score
                        .clamp(-4 * lmr_history_divisor(), 4 * lmr_history_divisor())
                        / lmr_history_divisor();
                }
                if gives_check {
                    reduction -= 1;
                }
                if !noisy && hash_move_noisy {
                    reduction += 1;
                }
                // The replies keep refuting this node's moves: it is probably an all-node.
                if self.frames[ply + 1].cutoffs > 3 {
                    reduction += 1;
                }
                let reduced = (new_depth - reduction.max(0)).clamp(1, new_depth);
                score = -self.search::<false>(&child, -alpha - 1, -alpha, reduced, ply + 1, true);
                if score > alpha && reduced < new_depth {
                    // The reduced search beat alpha: search again, a ply deeper still if it
                    // beat the best score by a wide margin, a ply shallower if only just.
                    let deeper = score > best_score + lmr_deeper_margin() + 2 * new_depth;
                    let shallower = score < best_score + lmr_shallower_margin();
                    let research_depth = new_depth + deeper as i32 - shallower as i32;
                    if research_depth > reduced {
                        score = -self.search::<false>(
                            &child,
                            -alpha - 1,
                            -alpha,
                            research_depth,
                            ply + 1,
                            !cut_node,
                        );
                    }
                    // What the full-depth search said of this move teaches its continuation
                    // history now, not only at a cutoff.
                    if !noisy {
                        let bonus = stat_bonus(research_depth);
                        self.update_continuations(
                            pos,
                            ply,
                            mv,
                            if score > alpha { bonus } else { -bonus },
                        );
                    }
                }
            } else if !PV || moves_searched > 1 {
                score = -self.search::<false>(
                    &child,
                    -alpha - 1,
                    -alpha,
                    new_depth,
                    ply + 1,
                    !cut_node,
                );
            }
            // Only a PV search leaves a move's line in `pv[1]`. (A root move that failed high
            // on the null window keeps that bound: the aspiration loop widens the window.)
            let pv_searched = moves_searched == 1 || (score > alpha && (!root || score < beta));
            if PV && pv_searched {
                score = -self.search::<true>(&child, -beta, -alpha, new_depth, ply + 1, false);
            }
            self.pop();
            if root {
                self.root_moves[root_index - 1].nodes += self.nodes - nodes_before;
            }
            if self.stopped {
                return 0;
            }
            if root {
                self.record_root_move(
                    root_index - 1,
                    score,
                    alpha,
                    moves_searched == 1,
                    pv_searched,
                );
            }

            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = mv;
                    if PV {
                        self.update_pv(ply, mv);
                    }
                    if score >= beta {
                        if root {
                            break;
                        }
                        self.frames[ply].cutoffs += 1;
                        self.update_histories(
                            pos,
                            ply,
                            depth,
                            mv,
                            noisy,
                            &quiets_tried[..quiet_count],
                            &noisy_tried[..noisy_count],
                        );
                        break;
                    }
                    alpha = score;
                }
            }
            if noisy {
                if noisy_count < noisy_tried.len() {
                    noisy_tried[noisy_count] = mv;
                    noisy_count += 1;
                }
            } else if quiet_count < quiets_tried.len() {
                quiets_tried[quiet_count] = mv;
                quiet_count += 1;
            }
        }

        if moves_seen == 0 {
            // With the hash move left out, no other move: that move is singular.
            if !excluded.is_none() {
                return alpha;
            }
            // No legal move at all: mate or stalemate.
            return if in_check { -MATE + ply as i32 } else { DRAW };
        }

        // Step 12. Store the result. Where no move beat a table win (every move may have been
        // pruned: the win opens the pruning gate), the table's floor is the result, a lower
        // bound.
        best_score = best_score.min(tb_ceiling);
        let table_floor_held =
            best_move.is_none() && best_score == tb_floor && tb_floor > -INFINITY;
        let bound = if best_score >= beta || table_floor_held {
            Bound::Lower
        } else if PV && !best_move.is_none() {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if excluded.is_none() && !root {
            self.tt().store(
                key,
                best_move,
                score_to_tt(best_score, ply),
                raw_eval,
                depth,
                bound,
                tt_pv,
            );
        }

        // Step 12b. No move here reached alpha: the opponent's quiet move that led here was a
        // good one; its histories learn that as they would from a cutoff at the node above.
        if best_move.is_none() && excluded.is_none() && ply >= 1 {
            self.reward_prior_quiet_move(pos, ply, depth);
        }

        // Step 13. Teach the correction history how far the static evaluation missed, where
        // the result says so: a quiet best move (a capture's gain is no fault of the
        // evaluation) and a bound on the right side of the evaluation.
        if !in_check
            && !root
            && excluded.is_none()
            && (best_move.is_none() || !pos.is_noisy(best_move))
            && best_score.abs() < TB_BOUND
            && !(bound == Bound::Lower && best_score <= static_eval)
            && !(bound == Bound::Upper && best_score >= static_eval)
        {
            let last_moves = self.last_moves(ply);
            self.correction.update(pos, last_moves, depth, best_score - static_eval);
        }
        best_score
    }

    /// Adds `bonus` to the continuation histories of the quiet move `mv` played at `ply`.
    fn update_continuations(&mut self, pos: &Position, ply: usize, mv: Move, bonus: i32) {
        if let Some(piece) = pos.piece_on(mv.from()) {
            for earlier in self.last_moves(ply).into_iter().flatten() {
                self.history.update_continuation(earlier, piece, mv.to(), bonus);
            }
        }
    }

    /// Rewards the quiet move that led to the node at `ply` (played by the opponent of the
    /// side to move in `pos`), after every reply failed low there.
    fn reward_prior_quiet_move(&mut self, pos: &Position, ply: usize, depth: i32) {
        let prior = self.frames[ply - 1].quiet_move;
        // The piece, with the destination as the move ordering indexes it (for castling, not
        // the king's square that `moved` records).
        let Some((piece, _)) = self.frames[ply - 1].moved else {
            return;
        };
        if prior.is_none() {
            return;
        }
        let bonus = stat_bonus(depth);
        self.history.update_quiet(!pos.side_to_move(), prior, bonus);
        for earlier in self.last_moves(ply - 1).into_iter().flatten() {
            self.history.update_continuation(earlier, piece, prior.to(), bonus);
        }
    }

    /// Rewards the move that caused a cutoff and penalises the ones tried before it.
    #[allow(clippy::too_many_arguments)]
    fn update_histories(
        &mut self,
        pos: &Position,
        ply: usize,
        depth: i32,
        best: Move,
        noisy: bool,
        quiets: &[Move],
        noisy_moves: &[Move],
    ) {
        let bonus = stat_bonus(depth);
        let us = pos.side_to_move();
        let [_, previous] = self.last_moves(ply);
        if !noisy {
            self.history.add_killer(ply, best);
            self.history.set_counter_move(previous, best);
            for (mv, delta) in
                std::iter::once((best, bonus)).chain(quiets.iter().map(|&q| (q, -bonus)))
            {
                self.history.update_quiet(us, mv, delta);
                self.update_continuations(pos, ply, mv, delta);
            }
        } else if let (Some(piece), Some(victim)) =
            (pos.piece_on(best.from()), pos.captured_type(best))
        {
            self.history.update_capture(piece, best.to(), victim, bonus);
        }
        for &mv in noisy_moves {
            if let (Some(piece), Some(victim)) = (pos.piece_on(mv.from()), pos.captured_type(mv)) {
                self.history.update_capture(piece, mv.to(), victim, -bonus);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn late_quiet_root_moves_are_reduced_and_the_others_are_not() {
        let mut worker = Worker::new(0);
        // White can take a loose pawn (Qxd5), promote (b8=Q), check (Qe3+) or wait (Kf1).
        let pos = Position::from_fen("4k3/1P6/8/3p4/8/8/3Q4/4K3 w - - 0 1").unwrap();
        let mv = |uci| pos.parse_uci_move(uci, false).unwrap();
        let (quiet, check, capture, promotion) = (mv("e1f1"), mv("d2e3"), mv("d2d5"), mv("b7b8q"));

        let quiet_reduction = worker.root_reduction(&pos, quiet, 10, 10, 0);
        assert_eq!(quiet_reduction, worker.lmr[10][10]);
        assert!(quiet_reduction > 1);
        assert_eq!(worker.root_reduction(&pos, check, 10, 10, 0), quiet_reduction - 1);
        // The first two moves of a line, good captures and promotions: full depth.
        assert_eq!(worker.root_reduction(&pos, quiet, 1, 10, 0), 0);
        assert_eq!(worker.root_reduction(&pos, quiet, 2, 10, 0), 0);
        assert_eq!(worker.root_reduction(&pos, capture, 10, 10, 0), 0);
        assert_eq!(worker.root_reduction(&pos, promotion, 10, 10, 0), 0);
        // Too shallow, near a mate score, or in the search for a shorter mate: none either.
        assert_eq!(worker.root_reduction(&pos, quiet, 10, lmr_min_depth() - 1, 0), 0);
        assert_eq!(worker.root_reduction(&pos, quiet, 10, 10, MATE_BOUND), 0);
        assert_eq!(worker.root_reduction(&pos, quiet, 10, 10, -MATE_BOUND), 0);
        // Never below a one-ply search.
        assert_eq!(worker.root_reduction(&pos, quiet, 63, 3, 0), 1);
        worker.exhaustive = true;
        assert_eq!(worker.root_reduction(&pos, quiet, 10, 10, 0), 0);
    }
}
