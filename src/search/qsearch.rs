//! Quiescence search: at the horizon, captures and promotions only (every evasion when in
//! check), until the position is quiet enough for the static evaluation. In a decided window
//! its first ply also tries quiet checks: there a quiet mate is what the search looks for.

use crate::chess::{Move, MoveKind, Position, SEE_VALUES};

use super::movepick::{MovePicker, OrderingContext};
use super::params::*;
use super::tt::{Bound, score_from_tt, score_to_tt, sharpen_eval};
use super::worker::Worker;
use super::{DRAW, INFINITY, MATE, MATE_BOUND, MAX_PLY};

impl Worker {
    /// Quiescence search: only captures and promotions (all evasions when in check), until
    /// the position is quiet enough for the static evaluation. `first_ply` is set where the
    /// main search reaches its horizon: quiet checks that do not lose material are tried
    /// there when the window is decided (`is_decided`).
    pub(super) fn qsearch<const PV: bool>(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        first_ply: bool,
    ) -> i32 {
        self.count_node();
        if self.stopped {
            return 0;
        }
        if PV {
            self.pv_len[ply] = 0;
        }
        self.seldepth = self.seldepth.max(ply + 1);
        if pos.is_insufficient_material()
            || (pos.halfmove_clock() >= 100 && (!pos.in_check() || pos.has_legal_move()))
        {
            return DRAW;
        }
        let in_check = pos.in_check();
        if ply >= MAX_PLY - 1 {
            return if in_check { DRAW } else { self.static_eval(pos, ply) };
        }

        let key = pos.key();
        let entry = self.probe(key);
        let hash_move = entry.map_or(Move::NONE, |e| e.mv);
        let hash_score = entry.map(|e| score_from_tt(e.score, ply, pos.halfmove_clock()));
        if !PV
            && let (Some(e), Some(score)) = (entry, hash_score)
            && e.bound.allows_cutoff(score, alpha, beta)
        {
            return score;
        }

        // Standing pat: the side to move may decline every capture.
        let raw_eval = self.raw_eval(pos, ply, in_check, entry);
        let mut best_score = -INFINITY;
        if !in_check {
            let stored = entry.zip(hash_score).map(|(e, score)| (e.bound, score));
            best_score = sharpen_eval(raw_eval + self.correction(pos, ply), stored, MATE_BOUND);
            if best_score >= beta {
                return best_score;
            }
            alpha = alpha.max(best_score);
        }
        let stand_pat = best_score;

        let context = OrderingContext {
            hash_move,
            killers: [Move::NONE; 2],
            counter: Move::NONE,
            continuations: [None, None],
        };
        // Out of check the picker hands out only captures and queen promotions that do not
        // lose material.
        let mut picker = MovePicker::new(pos, context, true);
        picker.quiet_checks = first_ply && !in_check && is_decided(alpha, beta);
        let mut best_move = Move::NONE;
        let mut moves_searched = 0;
        // The square the last move went to: recapturing there is never pruned.
        let last_to = ply.checked_sub(1).and_then(|p| self.frames[p].moved).map(|(_, to)| to);
        while let Some((mv, _)) = picker.next(pos, &self.history) {
            moves_searched += 1;
            // Captures that neither check, promote nor recapture, once a score is safe from
            // mate. (Quiet checks are exempt: they are tried for the mates they may give.)
            if !in_check
                && pos.is_noisy(mv)
                && mv.kind() != MoveKind::Promotion
                && best_score > -MATE_BOUND
                && Some(mv.to()) != last_to
                && !picker.gives_check(pos, mv)
            {
                // Move-count pruning: the first two captures were the likeliest to help.
                if moves_searched > 2 {
                    continue;
                }
                // Delta pruning: even winning this piece outright would not reach alpha.
                let futility_base = stand_pat + delta_margin();
                let gain = pos.captured_type(mv).map_or(0, |pt| SEE_VALUES[pt.index()]);
                if futility_base + gain <= alpha {
                    best_score = best_score.max(futility_base + gain);
                    continue;
                }
                // Nor an even trade, when the margin alone leaves the score below alpha.
                if futility_base <= alpha && !pos.see_ge(mv, 1) {
                    best_score = best_score.max(futility_base);
                    continue;
                }
            }
            let mut child = *pos;
            child.make_move(mv);
            self.tt().prefetch(child.key());
            self.push(pos, Some(mv), &child, ply);
            let score = -self.qsearch::<PV>(&child, -beta, -alpha, ply + 1, false);
            self.pop();
            if self.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = mv;
                    if PV {
                        self.update_pv(ply, mv);
                    }
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                }
            }
        }
        if in_check && moves_searched == 0 {
            return -MATE + ply as i32;
        }
        let bound = if best_score >= beta { Bound::Lower } else { Bound::Upper };
        self.tt().store(key, best_move, score_to_tt(best_score, ply), raw_eval, 0, bound, PV);
        best_score
    }
}
