//! Castling rights and the squares castling moves to (the same in standard chess and Chess960).

use super::{Color, Square};

/// Which side of the king the castling rook stands on.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum CastleSide {
    /// Towards the h-file ("O-O"): king ends on g1/g8, rook on f1/f8.
    King = 0,
    /// Towards the a-file ("O-O-O"): king ends on c1/c8, rook on d1/d8.
    Queen = 1,
}

impl CastleSide {
    pub const BOTH: [CastleSide; 2] = [CastleSide::King, CastleSide::Queen];

    /// Where the king lands.
    #[inline]
    pub const fn king_destination(self, color: Color) -> Square {
        match self {
            CastleSide::King => Square::G1.relative(color),
            CastleSide::Queen => Square::C1.relative(color),
        }
    }

    /// Where the rook lands.
    #[inline]
    pub const fn rook_destination(self, color: Color) -> Square {
        match self {
            CastleSide::King => Square::F1.relative(color),
            CastleSide::Queen => Square::D1.relative(color),
        }
    }

    /// The side of `king` that `rook` stands on.
    #[inline]
    pub const fn of_rook(king: Square, rook: Square) -> CastleSide {
        if rook.file() > king.file() { CastleSide::King } else { CastleSide::Queen }
    }
}

/// The four castling rights as a 4-bit set: White king side, White queen side, Black king
/// side, Black queen side.
#[derive(Copy, Clone, PartialEq, Eq, Default, Hash, Debug)]
pub struct CastlingRights(u8);

impl CastlingRights {
    pub const NONE: CastlingRights = CastlingRights(0);

    /// Index 0..4 of one right, as used for arrays indexed by right.
    #[inline(always)]
    pub const fn index(color: Color, side: CastleSide) -> usize {
        color as usize * 2 + side as usize
    }

    #[inline(always)]
    pub const fn has(self, color: Color, side: CastleSide) -> bool {
        self.0 & (1 << Self::index(color, side)) != 0
    }

    #[inline(always)]
    pub const fn has_any(self, color: Color) -> bool {
        self.0 & (3 << (2 * color as u8)) != 0
    }

    #[inline(always)]
    pub fn add(&mut self, color: Color, side: CastleSide) {
        self.0 |= 1 << Self::index(color, side);
    }

    #[inline(always)]
    pub fn remove(&mut self, color: Color, side: CastleSide) {
        self.0 &= !(1 << Self::index(color, side));
    }

    /// The 4-bit mask, 0..16.
    #[inline(always)]
    pub const fn bits(self) -> usize {
        self.0 as usize
    }

    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
}
