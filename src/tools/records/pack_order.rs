//! The move order of the game pack format ([`super::pack`]): each move of a game is stored as
//! its rank among the legal moves in this order, so the better the order guesses the move
//! the engine played, the fewer bits it costs (rank 0 is the cheapest).
//!
//! This order is part of the format. It uses only the rules (legal moves, attacks) and its
//! own state, which it learns from the moves of the games already coded in the same block,
//! never the engine's search or evaluation, so that files stay readable whatever the engine
//! becomes. Changing anything here changes what every file means: that needs a new format
//! version, with the old order kept to read the old files.

use crate::chess::{Bitboard, Color, Move, MoveKind, Piece, PieceType, Position, Square};

/// The order's own piece values (pawn, knight, bishop, rook, queen, king).
const VALUE: [i32; 6] = [100, 300, 320, 500, 900, 2000];
/// Bounds of the learnt quiet-move history.
const HISTORY_MAX: i32 = 8192;
const HISTORY_BONUS: i32 = 2048;
const HISTORY_MALUS: i32 = 512;

/// Score bands: good captures and queen promotions, then quiet moves, then the rest.
const GOOD_NOISY: i32 = 100_000;
const BAD_NOISY: i32 = -100_000;
/// Quiet-move terms.
const ESCAPE_BONUS: i32 = 6000;
const UNSAFE_MALUS: i32 = 6000;
const COUNTER_BONUS: i32 = 12_000;

/// What the order learns while a block is coded. A new block starts from `default()`.
#[derive(Clone)]
pub struct MoveOrder {
    /// How often a quiet move of this piece to this square was played (moving average).
    history: [[i32; 64]; 12],
    /// The move last played in answer to a move of this piece to this square.
    counter: [[u16; 64]; 12],
}

impl Default for MoveOrder {
    fn default() -> MoveOrder {
        MoveOrder { history: [[0; 64]; 12], counter: [[0; 64]; 12] }
    }
}

/// The piece and destination of the previous move (for the counter-move), if any.
pub type PreviousMove = Option<(Piece, Square)>;

impl MoveOrder {
    /// The legal moves of `pos`, most likely first. Ties go by the move's 16-bit code, so the
    /// order never depends on the order the generator produced the moves in.
    pub fn ordered(&self, pos: &Position, previous: PreviousMove) -> Vec<Move> {
        let counter = previous.map_or(0, |(piece, to)| self.counter[piece.index()][to.index()]);
        let mut scored: Vec<(i32, u16, Move)> = pos
            .legal_moves()
            .iter()
            .map(|&mv| (self.score(pos, mv, counter), mv.raw(), mv))
            .collect();
        scored.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.into_iter().map(|(_, _, mv)| mv).collect()
    }

    fn score(&self, pos: &Position, mv: Move, counter: u16) -> i32 {
        let us = pos.side_to_move();
        let piece = pos.piece_on(mv.from()).expect("a legal move moves a piece");
        let moving = VALUE[piece.piece_type().index()];
        let victim = pos.captured_type(mv).map_or(0, |t| VALUE[t.index()]);
        let promotion = mv.promotion_type();
        if victim > 0 || promotion.is_some() {
            let promoted = promotion.map_or(0, |t| VALUE[t.index()] - VALUE[0]);
            if promotion.is_some_and(|t| t != PieceType::Queen) {
                return BAD_NOISY - 1000 + promoted;
            }
            // What the capture wins if the piece is lost at once on its new square.
            let defended = attacked(pos, mv.to(), !us, mv);
            let gain = victim + promoted - if defended { moving + promoted } else { 0 };
            return if gain >= 0 {
                GOOD_NOISY + 8 * victim + gain - moving / 10
            } else {
                BAD_NOISY + gain
            };
        }
        let mut score = self.history[piece.index()][mv.to().index()];
        if mv.raw() == counter {
            score += COUNTER_BONUS;
        }
        if mv.kind() != MoveKind::Castling {
            let threatened_now = threatened(pos, mv.from(), moving, !us, Move::NONE);
            let threatened_after = threatened(pos, mv.to(), moving, !us, mv);
            if threatened_after {
                score -= UNSAFE_MALUS + moving;
            } else if threatened_now {
                score += ESCAPE_BONUS + moving;
            }
        }
        score
    }

    /// Learns from the move played (at `rank` in `ordered`).
    pub fn learn(&mut self, pos: &Position, ordered: &[Move], rank: usize, previous: PreviousMove) {
        let played = ordered[rank];
        if pos.is_noisy(played) {
            return;
        }
        let piece = pos.piece_on(played.from()).expect("a legal move moves a piece");
        add(&mut self.history[piece.index()][played.to().index()], HISTORY_BONUS);
        for &mv in &ordered[..rank] {
            if !pos.is_noisy(mv) {
                let other = pos.piece_on(mv.from()).expect("a legal move moves a piece");
                add(&mut self.history[other.index()][mv.to().index()], -HISTORY_MALUS);
            }
        }
        if let Some((piece, to)) = previous {
            self.counter[piece.index()][to.index()] = played.raw();
        }
    }
}

/// History with gravity: the closer to its bound, the less a bonus moves it.
fn add(entry: &mut i32, bonus: i32) {
    *entry += bonus - *entry * bonus.abs() / HISTORY_MAX;
}

/// Whether `by` attacks `square` once `mv` is made (the mover's origin emptied).
fn attacked(pos: &Position, square: Square, by: Color, mv: Move) -> bool {
    let occupied = occupied_after(pos, mv);
    (pos.attackers_to(square, occupied) & pos.color_bb(by) & occupied).non_empty()
}

/// Whether a piece worth `value` on `square` can be taken by `by` with profit: by a cheaper
/// piece, or at all if nothing defends it (after `mv`, `Move::NONE` for the position as is).
fn threatened(pos: &Position, square: Square, value: i32, by: Color, mv: Move) -> bool {
    let occupied = occupied_after(pos, mv);
    let around = pos.attackers_to(square, occupied) & occupied;
    let attackers = around & pos.color_bb(by);
    if attackers.is_empty() {
        return false;
    }
    let cheapest = PieceType::ALL
        .iter()
        .find(|&&t| (attackers & pos.type_bb(t)).non_empty())
        .map_or(0, |t| VALUE[t.index()]);
    if cheapest < value {
        return true;
    }
    let defenders = around & pos.color_bb(!by);
    // The moving piece does not defend its own square.
    let defenders =
        if mv.is_none() { defenders & !square.bb() } else { defenders & !mv.from().bb() };
    defenders.is_empty()
}

fn occupied_after(pos: &Position, mv: Move) -> Bitboard {
    if mv.is_none() { pos.occupied() } else { (pos.occupied() & !mv.from().bb()) | mv.to().bb() }
}
