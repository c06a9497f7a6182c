//! Correction history: how far the static evaluation has missed the search result in
//! positions that share a pawn structure, or one side's placement of its other pieces.
//! Learnt during search and added to the static evaluation, so that pruning decisions start
//! from a better guess (an evaluation that keeps misjudging a pawn structure or a piece
//! setup gets corrected for it).

use crate::chess::{Color, PieceType, Position};

use super::params::{correction_limit, correction_max_weight};

/// Entries per table and side to move (a power of two: indexed by the low bits of a key).
const ENTRIES: usize = 16_384;

/// Entries are kept in 1/`GRAIN` centipawns, so that small updates add up.
const GRAIN: i32 = 64;

/// Weights of one update are out of this total.
const WEIGHT_SCALE: i32 = 256;

/// One table: by side to move and key; in 1/`GRAIN` centipawns.
struct Table(Box<[[i16; ENTRIES]; 2]>);

impl Table {
    fn new() -> Table {
        Table(Box::new([[0; ENTRIES]; 2]))
    }

    fn clear(&mut self) {
        self.0.iter_mut().for_each(|side| side.fill(0));
    }

    fn get(&self, side: usize, key: u64) -> i32 {
        self.0[side][key as usize & (ENTRIES - 1)] as i32
    }

    /// Moves the entry toward itself plus `error` (in grains), by `weight`/`WEIGHT_SCALE`.
    fn update(&mut self, side: usize, key: u64, error: i32, weight: i32) {
        let limit = correction_limit() * GRAIN;
        let entry = &mut self.0[side][key as usize & (ENTRIES - 1)];
        let target = (*entry as i32 + error).clamp(-limit, limit);
        let blended = (*entry as i32 * (WEIGHT_SCALE - weight) + target * weight) / WEIGHT_SCALE;
        *entry = blended.clamp(-limit, limit) as i16;
    }
}

pub struct CorrectionHistory {
    pawn: Table,
    /// By the colour whose knights, bishops, rooks, queens and king make the key.
    non_pawn: [Table; 2],
}

/// The keys of `pos` for the tables: its pawn key, and a hash of each side's other pieces.
struct Keys {
    side: usize,
    pawn: u64,
    non_pawn: [u64; 2],
}

impl Keys {
    fn of(pos: &Position) -> Keys {
        let non_pawn = |color: Color| {
            let own = pos.color_bb(color).0;
            let mut hash = 0u64;
            for piece_type in
                [PieceType::Knight, PieceType::Bishop, PieceType::Rook, PieceType::Queen]
            {
                hash =
                    (hash ^ (pos.type_bb(piece_type).0 & own)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                hash ^= hash >> 29;
            }
            hash ^ pos.king_square(color).index() as u64
        };
        Keys {
            side: pos.side_to_move().index(),
            pawn: pos.pawn_key(),
            non_pawn: [non_pawn(Color::White), non_pawn(Color::Black)],
        }
    }
}

impl CorrectionHistory {
    pub fn new() -> CorrectionHistory {
        CorrectionHistory { pawn: Table::new(), non_pawn: [Table::new(), Table::new()] }
    }

    pub fn clear(&mut self) {
        self.pawn.clear();
        self.non_pawn.iter_mut().for_each(Table::clear);
    }

    /// The correction (centipawns) to add to the static evaluation of `pos`: half the pawn
    /// table's entry and a quarter of each side's non-pawn entry.
    #[inline]
    pub fn correction(&self, pos: &Position) -> i32 {
        let keys = Keys::of(pos);
        let pawn = self.pawn.get(keys.side, keys.pawn);
        let white = self.non_pawn[0].get(keys.side, keys.non_pawn[0]);
        let black = self.non_pawn[1].get(keys.side, keys.non_pawn[1]);
        (2 * pawn + white + black) / (4 * GRAIN)
    }

    /// Moves the entries of `pos` towards `error` (search score minus corrected evaluation,
    /// in centipawns), more so for deeper searches.
    pub fn update(&mut self, pos: &Position, depth: i32, error: i32) {
        let keys = Keys::of(pos);
        let weight = (depth + 1).min(correction_max_weight());
        let error = error * GRAIN;
        self.pawn.update(keys.side, keys.pawn, error, weight);
        self.non_pawn[0].update(keys.side, keys.non_pawn[0], error, weight);
        self.non_pawn[1].update(keys.side, keys.non_pawn[1], error, weight);
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

    #[test]
    fn learns_a_steady_error_and_stays_bounded() {
        let pos = Position::startpos();
        let mut history = CorrectionHistory::new();
        assert_eq!(history.correction(&pos), 0);
        // A search that keeps finding the evaluation 40 cp too low.
        for _ in 0..2000 {
            let error = 40 - history.correction(&pos);
            history.update(&pos, 8, error);
        }
        assert!((history.correction(&pos) - 40).abs() <= 2, "{}", history.correction(&pos));
        // A huge error moves it only up to the limit.
        for _ in 0..2000 {
            history.update(&pos, 20, 5000);
        }
        let correction = history.correction(&pos);
        assert!((correction_limit() - 1..=correction_limit()).contains(&correction));
        // The other side to move has its own entries.
        let mut black = pos;
        black.make_null_move();
        assert_eq!(history.correction(&black), 0);
        history.clear();
        assert_eq!(history.correction(&pos), 0);
    }

    #[test]
    fn a_side_keeps_its_entry_when_only_the_other_side_moves() {
        let mut history = CorrectionHistory::new();
        let before = Position::from_fen("4k3/8/8/8/8/8/4P3/R3K1N1 w - - 0 1").unwrap();
        for _ in 0..500 {
            history.update(&before, 8, 60);
        }
        assert!(history.correction(&before) >= correction_limit() - 1);
        // The same white pieces and pawns, the black king elsewhere: at least White's non-pawn
        // entry (a quarter of the correction) still applies.
        let moved = Position::from_fen("3k4/8/8/8/8/8/4P3/R3K1N1 w - - 0 1").unwrap();
        let correction = history.correction(&moved);
        assert!(correction >= correction_limit() / 4, "{correction}");
        assert!(correction < correction_limit(), "{correction}");
    }
}
