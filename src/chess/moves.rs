//! 16-bit moves and fixed-capacity move lists.

use std::fmt;
use std::mem::MaybeUninit;

use super::{PieceType, Square};

/// What kind of move a [`Move`] is. Captures are not marked: the board tells.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum MoveKind {
    Normal = 0,
    Promotion = 1,
    EnPassant = 2,
    /// Encoded as "king takes own rook": `from` is the king, `to` the castling rook.
    /// One encoding serves standard chess and Chess960.
    Castling = 3,
}

/// A move packed in 16 bits: from (6), to (6), promotion piece (2), kind (2).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct Move(u16);

impl Move {
    /// No move (a1a1 is never legal, so the zero value is free).
    pub const NONE: Move = Move(0);

    #[inline(always)]
    pub const fn new(from: Square, to: Square, kind: MoveKind) -> Move {
        Move(from.index() as u16 | (to.index() as u16) << 6 | (kind as u16) << 14)
    }

    /// `promotion` must be a knight, bishop, rook or queen.
    #[inline(always)]
    pub const fn promotion(from: Square, to: Square, promotion: PieceType) -> Move {
        let code = promotion as u16 - PieceType::Knight as u16;
        Move(
            from.index() as u16
                | (to.index() as u16) << 6
                | (code & 3) << 12
                | (MoveKind::Promotion as u16) << 14,
        )
    }

    #[inline(always)]
    pub const fn from(self) -> Square {
        Square::new((self.0 & 63) as u8)
    }

    #[inline(always)]
    pub const fn to(self) -> Square {
        Square::new((self.0 >> 6 & 63) as u8)
    }

    #[inline(always)]
    pub const fn kind(self) -> MoveKind {
        match self.0 >> 14 {
            0 => MoveKind::Normal,
            1 => MoveKind::Promotion,
            2 => MoveKind::EnPassant,
            _ => MoveKind::Castling,
        }
    }

    /// The promoted-to piece type, for promotions.
    #[inline(always)]
    pub const fn promotion_type(self) -> Option<PieceType> {
        match self.kind() {
            MoveKind::Promotion => Some(PieceType::ALL[(self.0 >> 12 & 3) as usize + 1]),
            _ => None,
        }
    }

    #[inline(always)]
    pub const fn is_none(self) -> bool {
        self.0 == 0
    }

    #[inline(always)]
    pub const fn raw(self) -> u16 {
        self.0
    }

    #[inline(always)]
    pub const fn from_raw(raw: u16) -> Move {
        Move(raw)
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_none() {
            return write!(f, "Move::NONE");
        }
        write!(f, "{}{}", self.from(), self.to())?;
        if let Some(pt) = self.promotion_type() {
            write!(f, "{}", pt.letter())?;
        }
        match self.kind() {
            MoveKind::EnPassant => write!(f, "(ep)"),
            MoveKind::Castling => write!(f, "(castle)"),
            _ => Ok(()),
        }
    }
}

/// The most legal moves any chess position has is 218; 256 leaves room.
pub const MAX_MOVES: usize = 256;

/// A list of moves on the stack.
#[derive(Clone)]
pub struct MoveList {
    /// Only the first `len` entries are initialised: a list is made at every search node,
    /// and clearing 512 bytes each time showed in profiles.
    moves: [MaybeUninit<Move>; MAX_MOVES],
    len: usize,
}

impl MoveList {
    #[inline(always)]
    pub fn new() -> MoveList {
        MoveList { moves: [const { MaybeUninit::uninit() }; MAX_MOVES], len: 0 }
    }

    /// Adds a move; a move past capacity is dropped (positions accepted by the FEN
    /// validator never get there).
    #[inline(always)]
    pub fn push(&mut self, mv: Move) {
        if let Some(slot) = self.moves.get_mut(self.len) {
            slot.write(mv);
            self.len += 1;
        }
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline(always)]
    pub fn as_slice(&self) -> &[Move] {
        // SAFETY: entries below `len` were written by `push`, and `len <= MAX_MOVES`.
        unsafe { std::slice::from_raw_parts(self.moves.as_ptr().cast::<Move>(), self.len) }
    }

    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        // SAFETY: as in `as_slice`.
        unsafe { std::slice::from_raw_parts_mut(self.moves.as_mut_ptr().cast::<Move>(), self.len) }
    }

    pub fn contains(&self, mv: Move) -> bool {
        self.as_slice().contains(&mv)
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip() {
        for from in Square::all() {
            for to in Square::all() {
                for kind in [MoveKind::Normal, MoveKind::EnPassant, MoveKind::Castling] {
                    let mv = Move::new(from, to, kind);
                    assert_eq!((mv.from(), mv.to(), mv.kind()), (from, to, kind));
                    assert_eq!(mv.promotion_type(), None);
                }
                for pt in [PieceType::Knight, PieceType::Bishop, PieceType::Rook, PieceType::Queen]
                {
                    let mv = Move::promotion(from, to, pt);
                    assert_eq!((mv.from(), mv.to(), mv.kind()), (from, to, MoveKind::Promotion));
                    assert_eq!(mv.promotion_type(), Some(pt));
                    assert_eq!(Move::from_raw(mv.raw()), mv);
                }
            }
        }
    }

    #[test]
    fn list_is_bounded() {
        let mut list = MoveList::new();
        for _ in 0..MAX_MOVES + 10 {
            list.push(Move::new(Square::A2, Square::A3, MoveKind::Normal));
        }
        assert_eq!(list.len(), MAX_MOVES);
    }
}
