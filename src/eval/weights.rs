//! Every evaluation weight, in one place. Values are (middlegame, endgame) pairs in
//! centipawns, seen from the side owning the piece or feature. Squares in `pst` are from
//! White's side (a1 = 0); Black's pieces look them up mirrored.
//!
//! `Weights` is `repr(C)` and made only of `S` values, so a tuner can treat it as one flat
//! array and name each index by field (see `FIELDS`).

use std::mem::offset_of;

use super::score::S;

#[repr(C)]
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    /// Indexed by piece type (pawn .. king; the king's entry stays zero).
    pub material: [S; 6],
    /// Piece-square tables, by piece type then square.
    pub pst: [[S; 64]; 6],
    /// By the number of safe squares the piece attacks.
    pub knight_mobility: [S; 9],
    pub bishop_mobility: [S; 14],
    pub rook_mobility: [S; 15],
    pub queen_mobility: [S; 28],
    /// Passed pawn by relative rank.
    pub passed_pawn: [S; 8],
    /// Per square of distance between the own king and the passer's stop square.
    pub passed_own_king_distance: S,
    /// Per square of distance between the enemy king and the passer's stop square.
    pub passed_enemy_king_distance: S,
    pub isolated_pawn: S,
    /// For each pawn with another own pawn in front on its file.
    pub doubled_pawn: S,
    /// A pawn that no own pawn can support and whose stop square an enemy pawn controls.
    pub backward_pawn: S,
    /// A pawn defended by an own pawn.
    pub supported_pawn: S,
    /// A pawn with an own pawn beside it.
    pub phalanx_pawn: S,
    pub bishop_pair: S,
    pub rook_open_file: S,
    pub rook_semi_open_file: S,
    /// For the king's file and its neighbours: the nearest own pawn in front of the king is one
    /// rank ahead, two ranks ahead, further, or missing.
    pub king_shelter: [S; 4],
    /// Per enemy-king-zone square attacked, by attacking piece type, when at least two pieces
    /// attack the zone.
    pub king_attack: [S; 6],
    /// For each enemy non-pawn piece attacked by an own pawn.
    pub threat_by_pawn: S,
    /// For each enemy piece attacked by an own knight or bishop, by the victim's type.
    pub threat_by_minor: [S; 6],
    /// For each enemy piece attacked by an own rook, by the victim's type.
    pub threat_by_rook: [S; 6],
    /// A knight / bishop on the 4th to 6th rank, defended by a pawn, that no enemy pawn can
    /// ever attack.
    pub knight_outpost: S,
    pub bishop_outpost: S,
    /// A passed pawn whose square in front is empty, by relative rank.
    pub passed_unblocked: [S; 8],
    /// For the side to move.
    pub tempo: S,
}

/// Name, first flat index and length of every field, for tracing and tuning.
pub const FIELDS: &[(&str, usize, usize)] = &{
    const fn f(name: &'static str, offset: usize, len: usize) -> (&'static str, usize, usize) {
        (name, offset / std::mem::size_of::<S>(), len)
    }
    [
        f("material", offset_of!(Weights, material), 6),
        f("pst", offset_of!(Weights, pst), 6 * 64),
        f("knight_mobility", offset_of!(Weights, knight_mobility), 9),
        f("bishop_mobility", offset_of!(Weights, bishop_mobility), 14),
        f("rook_mobility", offset_of!(Weights, rook_mobility), 15),
        f("queen_mobility", offset_of!(Weights, queen_mobility), 28),
        f("passed_pawn", offset_of!(Weights, passed_pawn), 8),
        f("passed_own_king_distance", offset_of!(Weights, passed_own_king_distance), 1),
        f("passed_enemy_king_distance", offset_of!(Weights, passed_enemy_king_distance), 1),
        f("isolated_pawn", offset_of!(Weights, isolated_pawn), 1),
        f("doubled_pawn", offset_of!(Weights, doubled_pawn), 1),
        f("backward_pawn", offset_of!(Weights, backward_pawn), 1),
        f("supported_pawn", offset_of!(Weights, supported_pawn), 1),
        f("phalanx_pawn", offset_of!(Weights, phalanx_pawn), 1),
        f("bishop_pair", offset_of!(Weights, bishop_pair), 1),
        f("rook_open_file", offset_of!(Weights, rook_open_file), 1),
        f("rook_semi_open_file", offset_of!(Weights, rook_semi_open_file), 1),
        f("king_shelter", offset_of!(Weights, king_shelter), 4),
        f("king_attack", offset_of!(Weights, king_attack), 6),
        f("threat_by_pawn", offset_of!(Weights, threat_by_pawn), 1),
        f("threat_by_minor", offset_of!(Weights, threat_by_minor), 6),
        f("threat_by_rook", offset_of!(Weights, threat_by_rook), 6),
        f("knight_outpost", offset_of!(Weights, knight_outpost), 1),
        f("bishop_outpost", offset_of!(Weights, bishop_outpost), 1),
        f("passed_unblocked", offset_of!(Weights, passed_unblocked), 8),
        f("tempo", offset_of!(Weights, tempo), 1),
    ]
};

/// Number of `S` values in `Weights`.
pub const WEIGHT_COUNT: usize = std::mem::size_of::<Weights>() / std::mem::size_of::<S>();

impl Weights {
    /// The weights as one flat slice, in field order.
    pub fn as_slice(&self) -> &[S] {
        // SAFETY: `Weights` is `repr(C)` and consists only of `S` values (arrays of them
        // included), so it has the layout of `[S; WEIGHT_COUNT]`.
        unsafe { std::slice::from_raw_parts(self as *const Weights as *const S, WEIGHT_COUNT) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [S] {
        // SAFETY: as in `as_slice`.
        unsafe { std::slice::from_raw_parts_mut(self as *mut Weights as *mut S, WEIGHT_COUNT) }
    }

    /// The flat index of `weight`, which must be a reference into `self`.
    #[inline(always)]
    pub fn index_of(&self, weight: &S) -> usize {
        (weight as *const S as usize - self as *const Weights as usize) / std::mem::size_of::<S>()
    }

    /// The field name and position within it of flat index `index`.
    pub fn name_of(index: usize) -> (&'static str, usize) {
        FIELDS
            .iter()
            .find(|(_, start, len)| (*start..start + len).contains(&index))
            .map(|&(name, start, _)| (name, index - start))
            .unwrap_or(("?", index))
    }
}

pub use super::tuned::WEIGHTS;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_cover_the_struct_exactly() {
        let mut next = 0;
        for &(name, start, len) in FIELDS {
            assert_eq!(start, next, "field {name} out of order");
            next += len;
        }
        assert_eq!(next, WEIGHT_COUNT);
        assert_eq!(Weights::name_of(WEIGHT_COUNT - 1), ("tempo", 0));
        assert_eq!(WEIGHTS.index_of(&WEIGHTS.pst[1][3]), 6 + 64 + 3);
    }

    #[test]
    fn values_are_sane() {
        let w = &WEIGHTS;
        assert!(w.material[1].mg > 2 * w.material[0].mg);
        assert!(w.material[4].eg > w.material[3].eg);
    }
}
