//! Correction history: how far the static evaluation has missed the search result in
//! positions that share a pawn structure, or one side's placement of its other pieces, or
//! that were reached by the same last two moves.
//! Learnt during search and added to the static evaluation, so that pruning decisions start
//! from a better guess (an evaluation that keeps misjudging a pawn structure or a piece
//! setup gets corrected for it).

use crate::chess::{Color, Piece, Position, Square};

use super::params::{correction_limit, correction_max_weight};

/// Entries per table and side to move (a power of two: indexed by the low bits of a key).
const ENTRIES: usize = 16_384;

/// Entries are kept in 1/`GRAIN` centipawns, so that small updates add up.
const GRAIN: i32 = 64;

/// Weights of one update are out of this total.
const WEIGHT_SCALE: i32 = 256;

/// A (piece, destination) pair: 12 pieces on 64 squares.
const PIECE_SQUARES: usize = 12 * 64;

/// The last two moves of the search path, as (piece, destination): two plies back, then one.
/// `None` for a null move or where the path is shorter.
pub type LastMoves = [Option<(Piece, Square)>; 2];

/// One table of entries in 1/`GRAIN` centipawns.
struct Table(Box<[i16]>);

impl Table {
    fn new(len: usize) -> Table {
        Table(vec![0; len].into_boxed_slice())
    }

    /// A table by side to move and the low bits of a key.
    fn keyed() -> Table {
        Table::new(2 * ENTRIES)
    }

    fn key_index(side: usize, key: u64) -> usize {
        side * ENTRIES + (key as usize & (ENTRIES - 1))
    }

    fn clear(&mut self) {
        self.0.fill(0);
    }

    fn get(&self, index: usize) -> i32 {
        self.0[index] as i32
    }

    /// Moves the entry toward itself plus `error` (in grains), by `weight`/`WEIGHT_SCALE`.
    fn update(&mut self, index: usize, error: i32, weight: i32) {
        let limit = correction_limit() * GRAIN;
        let entry = &mut self.0[index];
        let target = (*entry as i32 + error).clamp(-limit, limit);
        let blended = (*entry as i32 * (WEIGHT_SCALE - weight) + target * weight) / WEIGHT_SCALE;
        *entry = blended.clamp(-limit, limit) as i16;
    }
}

pub struct CorrectionHistory {
    pawn: Table,
    /// By the colour whose knights, bishops, rooks, queens and king make the key.
    non_pawn: [Table; 2],
    /// By the last two moves (the pieces' colours say who moved).
    continuation: Table,
}

/// Where `pos` is in each table: by its pawn key, a hash of each side's other pieces, and
/// the last two moves.
struct Keys {
    pawn: usize,
    non_pawn: [usize; 2],
    continuation: Option<usize>,
}

impl Keys {
    fn of(pos: &Position, last_moves: LastMoves) -> Keys {
        let side = pos.side_to_move().index();
        let piece_square = |(piece, to): (Piece, Square)| piece.index() * 64 + to.index();
        Keys {
            pawn: Table::key_index(side, pos.pawn_key()),
            non_pawn: [
                Table::key_index(side, pos.non_pawn_key(Color::White)),
                Table::key_index(side, pos.non_pawn_key(Color::Black)),
            ],
            continuation: match last_moves {
                [Some(before), Some(previous)] => {
                    Some(piece_square(before) * PIECE_SQUARES + piece_square(previous))
                }
                _ => None,
            },
        }
    }
}

impl CorrectionHistory {
    pub fn new() -> CorrectionHistory {
        CorrectionHistory {
            pawn: Table::keyed(),
            non_pawn: [Table::keyed(), Table::keyed()],
            continuation: Table::new(PIECE_SQUARES * PIECE_SQUARES),
        }
    }

    pub fn clear(&mut self) {
        self.pawn.clear();
        self.non_pawn.iter_mut().for_each(Table::clear);
        self.continuation.clear();
    }

    /// The correction (centipawns) to add to the static evaluation of `pos`, reached by
    /// `last_moves`: half the pawn table's entry and a quarter of each side's non-pawn entry
    /// and of the continuation entry.
    #[inline]
    pub fn correction(&self, pos: &Position, last_moves: LastMoves) -> i32 {
        let keys = Keys::of(pos, last_moves);
        let pawn = self.pawn.get(keys.pawn);
        let white = self.non_pawn[0].get(keys.non_pawn[0]);
        let black = self.non_pawn[1].get(keys.non_pawn[1]);
        let continuation = keys.continuation.map_or(0, |index| self.continuation.get(index));
        (2 * pawn + white + black + continuation) / (4 * GRAIN)
    }

    /// Moves the entries of `pos` towards `error` (search score minus corrected evaluation,
    /// in centipawns), more so for deeper searches.
    pub fn update(&mut self, pos: &Position, last_moves: LastMoves, depth: i32, error: i32) {
        let keys = Keys::of(pos, last_moves);
        let weight = (depth + 1).min(correction_max_weight());
        let error = error * GRAIN;
        self.pawn.update(keys.pawn, error, weight);
        self.non_pawn[0].update(keys.non_pawn[0], error, weight);
        self.non_pawn[1].update(keys.non_pawn[1], error, weight);
        if let Some(index) = keys.continuation {
            self.continuation.update(index, error, weight);
        }
    }
}

impl Default for CorrectionHistory {
    fn default() -> Self {
        CorrectionHistory::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NO_MOVES: LastMoves = [None, None];

    #[test]
    fn learns_a_steady_error_and_stays_bounded() {
        let pos = Position::startpos();
        let mut history = CorrectionHistory::new();
        assert_eq!(history.correction(&pos, NO_MOVES), 0);
        // A search that keeps finding the evaluation 40 cp too low.
        for _ in 0..2000 {
            let error = 40 - history.correction(&pos, NO_MOVES);
            history.update(&pos, NO_MOVES, 8, error);
        }
        assert!(
            (history.correction(&pos, NO_MOVES) - 40).abs() <= 2,
            "{}",
            history.correction(&pos, NO_MOVES)
        );
        // A huge error moves it only up to the limit.
        for _ in 0..2000 {
            history.update(&pos, NO_MOVES, 20, 5000);
        }
        let correction = history.correction(&pos, NO_MOVES);
        assert!((correction_limit() - 1..=correction_limit()).contains(&correction));
        // The other side to move has its own entries.
        let mut black = pos;
        black.make_null_move();
        assert_eq!(history.correction(&black, NO_MOVES), 0);
        history.clear();
        assert_eq!(history.correction(&pos, NO_MOVES), 0);
    }

    #[test]
    fn a_side_keeps_its_entry_when_only_the_other_side_moves() {
        let mut history = CorrectionHistory::new();
        let before = Position::from_fen("4k3/8/8/8/8/8/4P3/R3K1N1 w - - 0 1").unwrap();
        for _ in 0..500 {
            history.update(&before, NO_MOVES, 8, 60);
        }
        assert!(history.correction(&before, NO_MOVES) >= correction_limit() - 1);
        // The same white pieces and pawns, the black king elsewhere: at least White's non-pawn
        // entry (a quarter of the correction) still applies.
        let moved = Position::from_fen("3k4/8/8/8/8/8/4P3/R3K1N1 w - - 0 1").unwrap();
        let correction = history.correction(&moved, NO_MOVES);
        assert!(correction >= correction_limit() / 4, "{correction}");
        assert!(correction < correction_limit(), "{correction}");
    }

    #[test]
    fn the_last_two_moves_carry_their_entry_to_other_positions() {
        let mut history = CorrectionHistory::new();
        let square = |name: &str| Square::parse(name).unwrap();
        let moves =
            [Some((Piece::WhiteKnight, square("f3"))), Some((Piece::BlackPawn, square("d5")))];
        let first = Position::from_fen("4k3/3p4/8/8/8/8/8/4K1N1 w - - 0 1").unwrap();
        for _ in 0..500 {
            history.update(&first, moves, 8, 60);
        }
        // Other pawns and pieces, the same last two moves: the continuation entry (a quarter)
        // applies; after other moves it does not.
        let second = Position::from_fen("r3k3/pp6/8/8/8/8/PP6/R3K3 w - - 0 1").unwrap();
        let correction = history.correction(&second, moves);
        assert!((correction_limit() / 4 - 1..=correction_limit() / 4).contains(&correction));
        let other = [moves[1], moves[0]];
        assert_eq!(history.correction(&second, other), 0);
        assert_eq!(history.correction(&second, NO_MOVES), 0);
    }
}
