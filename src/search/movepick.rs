//! Move ordering. All moves of a node are generated at once (they are legal, so a hash move
//! or killer needs no validation) and scored; `next` hands out the best remaining one.
//!
//! Order: hash move, captures and queen promotions that do not lose material (most valuable
//! victim first, then capture history), killers, counter-move, quiet moves by history,
//! losing captures, under-promotions.

use crate::chess::{MAX_MOVES, Move, MoveList, Piece, PieceType, Position, SEE_VALUES, Square};

use super::history::History;

const HASH_MOVE: i32 = 1 << 30;
const GOOD_NOISY: i32 = 1 << 26;
const KILLER: i32 = 1 << 24;
const COUNTER: i32 = KILLER - 2;
const BAD_NOISY: i32 = -(1 << 26);
const UNDER_PROMOTION: i32 = -(1 << 28);

/// What the ordering of one node depends on besides the position.
pub struct OrderingContext {
    pub hash_move: Move,
    pub killers: [Move; 2],
    pub counter: Move,
    /// The opponent's last move and our own move before it, as (piece, destination).
    pub continuations: [Option<(Piece, Square)>; 2],
}

pub struct MovePicker {
    moves: MoveList,
    scores: [i32; MAX_MOVES],
    next: usize,
}

impl MovePicker {
    /// All legal moves, or only captures and promotions when `noisy_only` (unless in check,
    /// where every evasion is needed).
    pub fn new(
        pos: &Position,
        context: &OrderingContext,
        history: &History,
        noisy_only: bool,
    ) -> MovePicker {
        let moves = if noisy_only && !pos.in_check() {
            pos.noisy_moves()
        } else {
            pos.legal_moves()
        };
        let mut scores = [0; MAX_MOVES];
        let side = pos.side_to_move();
        for (score, &mv) in scores.iter_mut().zip(moves.iter()) {
            *score = if mv == context.hash_move {
                HASH_MOVE
            } else if let Some(promotion) = mv.promotion_type() {
                if promotion == PieceType::Queen {
                    GOOD_NOISY + SEE_VALUES[4] * 16
                } else {
                    UNDER_PROMOTION
                }
            } else if let Some(victim) = pos.captured_type(mv) {
                let mover = pos.piece_on(mv.from()).unwrap_or(Piece::WhitePawn);
                let order =
                    SEE_VALUES[victim.index()] * 16 + history.capture(mover, mv.to(), victim) / 16;
                if pos.see_ge(mv, 0) {
                    GOOD_NOISY + order
                } else {
                    BAD_NOISY + order
                }
            } else if mv == context.killers[0] {
                KILLER
            } else if mv == context.killers[1] {
                KILLER - 1
            } else if mv == context.counter {
                COUNTER
            } else {
                let piece = pos.piece_on(mv.from()).unwrap_or(Piece::WhitePawn);
                let mut score = history.quiet(side, mv);
                for previous in context.continuations.iter().flatten() {
                    score += history.continuation(*previous, piece, mv.to());
                }
                score
            };
        }
        MovePicker {
            moves,
            scores,
            next: 0,
        }
    }

    /// The best move not yet handed out, with its ordering score.
    pub fn next(&mut self) -> Option<(Move, i32)> {
        let len = self.moves.len();
        if self.next >= len {
            return None;
        }
        let mut best = self.next;
        for i in self.next + 1..len {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        self.moves.as_mut_slice().swap(self.next, best);
        self.scores.swap(self.next, best);
        let picked = (self.moves.as_slice()[self.next], self.scores[self.next]);
        self.next += 1;
        Some(picked)
    }

    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }
}

/// Ordering scores from here up are hash moves, good captures, killers and counter-moves.
pub const KILLER_FLOOR: i32 = COUNTER;

/// Whether an ordering score marks a capture or promotion that does not lose material.
pub fn is_good_noisy(score: i32) -> bool {
    (GOOD_NOISY..HASH_MOVE).contains(&score)
}
