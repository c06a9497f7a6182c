//! Move-ordering statistics learnt during search: which quiet moves and captures tend to cause
//! cutoffs, killers per ply, and counter-moves.

use crate::chess::{Color, Move, Piece, PieceType, Square};

use super::MAX_PLY;

/// Histories saturate at this magnitude ("gravity" keeps them inside it).
pub const HISTORY_MAX: i32 = 16_384;

#[inline(always)]
fn gravity(entry: &mut i16, bonus: i32) {
    let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    let value = *entry as i32;
    *entry = (value + bonus - value * bonus.abs() / HISTORY_MAX) as i16;
}

/// The bonus for a move that caused a cutoff at `depth`.
pub fn stat_bonus(depth: i32) -> i32 {
    (16 * depth * depth + 32 * depth + 16).min(1200)
}

/// A continuation history table: indexed by an earlier move's (piece, to) and then by the
/// current move's (piece, to).
pub type ContinuationTable = [[[[i16; 64]; 12]; 64]; 12];

pub struct History {
    /// Quiet moves by side, from, to.
    butterfly: Box<[[[i16; 64]; 64]; 2]>,
    /// Captures by moving piece, destination, captured piece type.
    capture: Box<[[[i16; 6]; 64]; 12]>,
    /// Quiet moves following the previous move of the opponent (1 ply) and own (2 plies).
    pub continuation: Box<ContinuationTable>,
    killers: Box<[[Move; 2]; MAX_PLY + 2]>,
    /// The reply that refuted a move, by that move's piece and destination.
    counter_moves: Box<[[Move; 64]; 12]>,
}

fn zeroed_box<T: Copy>(value: T) -> Box<T> {
    Box::new(value)
}

impl History {
    pub fn new() -> History {
        History {
            butterfly: zeroed_box([[[0; 64]; 64]; 2]),
            capture: zeroed_box([[[0; 6]; 64]; 12]),
            continuation: boxed_continuation(),
            killers: zeroed_box([[Move::NONE; 2]; MAX_PLY + 2]),
            counter_moves: zeroed_box([[Move::NONE; 64]; 12]),
        }
    }

    pub fn clear(&mut self) {
        *self = History::new();
    }

    #[inline]
    pub fn quiet(&self, side: Color, mv: Move) -> i32 {
        self.butterfly[side.index()][mv.from().index()][mv.to().index()] as i32
    }

    #[inline]
    pub fn update_quiet(&mut self, side: Color, mv: Move, bonus: i32) {
        gravity(&mut self.butterfly[side.index()][mv.from().index()][mv.to().index()], bonus);
    }

    #[inline]
    pub fn capture(&self, piece: Piece, to: Square, captured: PieceType) -> i32 {
        self.capture[piece.index()][to.index()][captured.index()] as i32
    }

    #[inline]
    pub fn update_capture(&mut self, piece: Piece, to: Square, captured: PieceType, bonus: i32) {
        gravity(&mut self.capture[piece.index()][to.index()][captured.index()], bonus);
    }

    #[inline]
    pub fn continuation(&self, previous: (Piece, Square), piece: Piece, to: Square) -> i32 {
        self.continuation[previous.0.index()][previous.1.index()][piece.index()][to.index()] as i32
    }

    #[inline]
    pub fn update_continuation(
        &mut self,
        previous: (Piece, Square),
        piece: Piece,
        to: Square,
        bonus: i32,
    ) {
        gravity(
            &mut self.continuation[previous.0.index()][previous.1.index()][piece.index()]
                [to.index()],
            bonus,
        );
    }

    #[inline]
    pub fn killers(&self, ply: usize) -> [Move; 2] {
        self.killers[ply.min(MAX_PLY + 1)]
    }

    pub fn add_killer(&mut self, ply: usize, mv: Move) {
        let slot = &mut self.killers[ply.min(MAX_PLY + 1)];
        if slot[0] != mv {
            slot[1] = slot[0];
            slot[0] = mv;
        }
    }

    pub fn clear_killers(&mut self, ply: usize) {
        self.killers[ply.min(MAX_PLY + 1)] = [Move::NONE; 2];
    }

    #[inline]
    pub fn counter_move(&self, previous: Option<(Piece, Square)>) -> Move {
        previous.map_or(Move::NONE, |(piece, to)| self.counter_moves[piece.index()][to.index()])
    }

    pub fn set_counter_move(&mut self, previous: Option<(Piece, Square)>, mv: Move) {
        if let Some((piece, to)) = previous {
            self.counter_moves[piece.index()][to.index()] = mv;
        }
    }
}

impl Default for History {
    fn default() -> Self {
        History::new()
    }
}

/// The continuation table is 1.2 MB: build it on the heap directly, not on the stack.
fn boxed_continuation() -> Box<ContinuationTable> {
    let zeroed: Vec<[[[i16; 64]; 12]; 64]> = vec![[[[0; 64]; 12]; 64]; 12];
    let boxed: Box<[[[[i16; 64]; 12]; 64]]> = zeroed.into_boxed_slice();
    boxed.try_into().unwrap_or_else(|_| unreachable!("the vector has exactly 12 rows"))
}
