//! 64-bit sets of squares.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

use super::{Color, Square};

/// A set of squares, bit `i` standing for the square with index `i`.
#[derive(Copy, Clone, PartialEq, Eq, Default, Hash)]
pub struct Bitboard(pub u64);

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard(0);
    pub const ALL: Bitboard = Bitboard(!0);
    pub const FILE_A: Bitboard = Bitboard(0x0101_0101_0101_0101);
    pub const FILE_H: Bitboard = Bitboard(0x8080_8080_8080_8080);
    pub const RANK_1: Bitboard = Bitboard(0xff);
    pub const RANK_8: Bitboard = Bitboard(0xff << 56);
    pub const LIGHT_SQUARES: Bitboard = Bitboard(0x55aa_55aa_55aa_55aa);

    #[inline(always)]
    pub const fn file(file: u8) -> Bitboard {
        Bitboard(Self::FILE_A.0 << file)
    }

    #[inline(always)]
    pub const fn rank(rank: u8) -> Bitboard {
        Bitboard(Self::RANK_1.0 << (8 * rank))
    }

    /// Rank `rank` counted from `color`'s side (0 = its back rank).
    #[inline(always)]
    pub const fn relative_rank(color: Color, rank: u8) -> Bitboard {
        match color {
            Color::White => Self::rank(rank),
            Color::Black => Self::rank(7 - rank),
        }
    }

    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[inline(always)]
    pub const fn non_empty(self) -> bool {
        self.0 != 0
    }

    #[inline(always)]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    #[inline(always)]
    pub const fn more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    #[inline(always)]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & (1u64 << sq.index()) != 0
    }

    /// The lowest square; the set must not be empty.
    #[inline(always)]
    pub const fn lsb(self) -> Square {
        Square::new(self.0.trailing_zeros() as u8)
    }

    /// The highest square; the set must not be empty.
    #[inline(always)]
    pub const fn msb(self) -> Square {
        Square::new(63 - self.0.leading_zeros() as u8)
    }

    /// Shifts every square one rank forward, as `color`'s pawns move.
    #[inline(always)]
    pub const fn forward(self, color: Color) -> Bitboard {
        match color {
            Color::White => Bitboard(self.0 << 8),
            Color::Black => Bitboard(self.0 >> 8),
        }
    }

    /// Squares attacked by pawns of `color` standing on this set.
    #[inline(always)]
    pub const fn pawn_attacks(self, color: Color) -> Bitboard {
        Bitboard(self.forward_west(color).0 | self.forward_east(color).0)
    }

    /// One step forward and towards the a-file (from White's view).
    #[inline(always)]
    pub const fn forward_west(self, color: Color) -> Bitboard {
        self.forward(color).shift_west()
    }

    /// One step forward and towards the h-file.
    #[inline(always)]
    pub const fn forward_east(self, color: Color) -> Bitboard {
        self.forward(color).shift_east()
    }

    #[inline(always)]
    pub const fn shift_west(self) -> Bitboard {
        Bitboard((self.0 & !Self::FILE_A.0) >> 1)
    }

    #[inline(always)]
    pub const fn shift_east(self) -> Bitboard {
        Bitboard((self.0 & !Self::FILE_H.0) << 1)
    }
}

impl Iterator for Bitboard {
    type Item = Square;

    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            let sq = self.lsb();
            self.0 &= self.0 - 1;
            Some(sq)
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.count() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bitboard {}

macro_rules! bit_op {
    ($trait:ident, $fn:ident, $assign_trait:ident, $assign_fn:ident, $op:tt) => {
        impl $trait for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $fn(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $assign_trait for Bitboard {
            #[inline(always)]
            fn $assign_fn(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}

bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl From<Square> for Bitboard {
    #[inline(always)]
    fn from(sq: Square) -> Bitboard {
        sq.bb()
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Bitboard({:#018x})", self.0)?;
        for rank in (0..8).rev() {
            for file in 0..8 {
                let set = self.contains(Square::from_file_rank(file, rank));
                write!(f, "{}", if set { 'X' } else { '.' })?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterates_squares_in_order() {
        let bb = Square::A1.bb() | Square::E4.bb() | Square::H8.bb();
        assert_eq!(bb.collect::<Vec<_>>(), vec![Square::A1, Square::E4, Square::H8]);
        assert_eq!(bb.count(), 3);
        assert!(bb.more_than_one());
        assert!(!Square::C3.bb().more_than_one());
    }

    #[test]
    fn pawn_attacks_do_not_wrap() {
        let a2 = Square::A2.bb();
        assert_eq!(a2.pawn_attacks(Color::White), Square::B3.bb());
        let h7 = Square::H7.bb();
        assert_eq!(h7.pawn_attacks(Color::Black), Square::G6.bb());
        let d4 = Square::D4.bb();
        assert_eq!(d4.pawn_attacks(Color::White), Square::C5.bb() | Square::E5.bb());
    }
}
