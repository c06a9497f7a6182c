//! Colours, piece types and coloured pieces.

use std::ops::Not;

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Color {
    White = 0,
    Black = 1,
}

impl Color {
    pub const BOTH: [Color; 2] = [Color::White, Color::Black];

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// +1 for White, -1 for Black: turns a White-positive score into this side's view.
    #[inline(always)]
    pub const fn sign(self) -> i32 {
        match self {
            Color::White => 1,
            Color::Black => -1,
        }
    }
}

impl Not for Color {
    type Output = Color;
    #[inline(always)]
    fn not(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum PieceType {
    Pawn = 0,
    Knight = 1,
    Bishop = 2,
    Rook = 3,
    Queen = 4,
    King = 5,
}

impl PieceType {
    pub const ALL: [PieceType; 6] = [
        PieceType::Pawn,
        PieceType::Knight,
        PieceType::Bishop,
        PieceType::Rook,
        PieceType::Queen,
        PieceType::King,
    ];

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Lower-case letter as used in FEN and UCI promotions.
    pub const fn letter(self) -> char {
        match self {
            PieceType::Pawn => 'p',
            PieceType::Knight => 'n',
            PieceType::Bishop => 'b',
            PieceType::Rook => 'r',
            PieceType::Queen => 'q',
            PieceType::King => 'k',
        }
    }

    pub fn from_letter(letter: char) -> Option<PieceType> {
        PieceType::ALL.into_iter().find(|pt| pt.letter() == letter.to_ascii_lowercase())
    }
}

/// A piece of one colour. `Option<Piece>` takes one byte, which keeps the board array small.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[rustfmt::skip]
pub enum Piece {
    WhitePawn, WhiteKnight, WhiteBishop, WhiteRook, WhiteQueen, WhiteKing,
    BlackPawn, BlackKnight, BlackBishop, BlackRook, BlackQueen, BlackKing,
}

impl Piece {
    #[rustfmt::skip]
    pub const ALL: [Piece; 12] = [
        Piece::WhitePawn, Piece::WhiteKnight, Piece::WhiteBishop,
        Piece::WhiteRook, Piece::WhiteQueen, Piece::WhiteKing,
        Piece::BlackPawn, Piece::BlackKnight, Piece::BlackBishop,
        Piece::BlackRook, Piece::BlackQueen, Piece::BlackKing,
    ];

    #[inline(always)]
    pub const fn new(color: Color, piece_type: PieceType) -> Piece {
        Piece::ALL[color.index() * 6 + piece_type.index()]
    }

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    #[inline(always)]
    pub const fn color(self) -> Color {
        if (self as u8) < 6 { Color::White } else { Color::Black }
    }

    #[inline(always)]
    pub const fn piece_type(self) -> PieceType {
        PieceType::ALL[self as usize % 6]
    }

    /// FEN letter: upper case for White.
    pub const fn letter(self) -> char {
        let lower = self.piece_type().letter();
        match self.color() {
            Color::White => lower.to_ascii_uppercase(),
            Color::Black => lower,
        }
    }

    pub fn from_letter(letter: char) -> Option<Piece> {
        let piece_type = PieceType::from_letter(letter)?;
        let color = if letter.is_ascii_uppercase() { Color::White } else { Color::Black };
        Some(Piece::new(color, piece_type))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piece_parts_round_trip() {
        for piece in Piece::ALL {
            assert_eq!(Piece::new(piece.color(), piece.piece_type()), piece);
            assert_eq!(Piece::from_letter(piece.letter()), Some(piece));
        }
        assert_eq!(Piece::from_letter('x'), None);
        assert_eq!(std::mem::size_of::<Option<Piece>>(), 1);
    }
}
