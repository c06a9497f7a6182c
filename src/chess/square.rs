//! Squares of the board, numbered a1 = 0, b1 = 1, ..., h8 = 63.

use std::fmt;

use super::{Bitboard, Color};

/// One of the 64 squares. Always in range: every constructor checks or masks.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Square(u8);

macro_rules! square_consts {
    ($($name:ident = $idx:expr),* $(,)?) => {
        impl Square { $(pub const $name: Square = Square($idx);)* }
    };
}

square_consts!(
    A1 = 0,
    B1 = 1,
    C1 = 2,
    D1 = 3,
    E1 = 4,
    F1 = 5,
    G1 = 6,
    H1 = 7,
    A2 = 8,
    B2 = 9,
    C2 = 10,
    D2 = 11,
    E2 = 12,
    F2 = 13,
    G2 = 14,
    H2 = 15,
    A3 = 16,
    B3 = 17,
    C3 = 18,
    D3 = 19,
    E3 = 20,
    F3 = 21,
    G3 = 22,
    H3 = 23,
    A4 = 24,
    B4 = 25,
    C4 = 26,
    D4 = 27,
    E4 = 28,
    F4 = 29,
    G4 = 30,
    H4 = 31,
    A5 = 32,
    B5 = 33,
    C5 = 34,
    D5 = 35,
    E5 = 36,
    F5 = 37,
    G5 = 38,
    H5 = 39,
    A6 = 40,
    B6 = 41,
    C6 = 42,
    D6 = 43,
    E6 = 44,
    F6 = 45,
    G6 = 46,
    H6 = 47,
    A7 = 48,
    B7 = 49,
    C7 = 50,
    D7 = 51,
    E7 = 52,
    F7 = 53,
    G7 = 54,
    H7 = 55,
    A8 = 56,
    B8 = 57,
    C8 = 58,
    D8 = 59,
    E8 = 60,
    F8 = 61,
    G8 = 62,
    H8 = 63,
);

impl Square {
    /// The square with index `index & 63`.
    #[inline(always)]
    pub const fn new(index: u8) -> Square {
        Square(index & 63)
    }

    /// `file` and `rank` count from 0; both must be below 8.
    #[inline(always)]
    pub const fn from_file_rank(file: u8, rank: u8) -> Square {
        Square::new(rank * 8 + file)
    }

    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    #[inline(always)]
    pub const fn file(self) -> u8 {
        self.0 & 7
    }

    #[inline(always)]
    pub const fn rank(self) -> u8 {
        self.0 >> 3
    }

    #[inline(always)]
    pub const fn bb(self) -> Bitboard {
        Bitboard(1u64 << self.0)
    }

    /// The same square seen from `color`'s side: ranks mirrored for Black.
    #[inline(always)]
    pub const fn relative(self, color: Color) -> Square {
        match color {
            Color::White => self,
            Color::Black => Square(self.0 ^ 56),
        }
    }

    /// The square `delta` steps away in index terms; the caller knows it stays on the board.
    #[inline(always)]
    pub const fn offset(self, delta: i8) -> Square {
        Square::new(self.0.wrapping_add(delta as u8))
    }

    /// Parses `e4`-style names.
    pub fn parse(text: &str) -> Option<Square> {
        match text.as_bytes() {
            [f @ b'a'..=b'h', r @ b'1'..=b'8'] => Some(Square::from_file_rank(f - b'a', r - b'1')),
            _ => None,
        }
    }

    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, (b'1' + self.rank()) as char)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for sq in Square::all() {
            assert_eq!(Square::parse(&sq.to_string()), Some(sq));
        }
        assert_eq!(Square::parse("e4"), Some(Square::E4));
        assert_eq!(Square::parse("i1"), None);
        assert_eq!(Square::parse("a9"), None);
        assert_eq!(Square::parse("a"), None);
    }

    #[test]
    fn relative_mirrors_ranks_for_black() {
        assert_eq!(Square::E1.relative(Color::Black), Square::E8);
        assert_eq!(Square::C7.relative(Color::White), Square::C7);
    }
}
