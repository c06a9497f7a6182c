//! Which moves give check: the squares from which each piece type would check the enemy king,
//! and the pieces whose move uncovers a check, worked out once for a position so that the
//! search can ask about many of its moves for a few instructions each.

use super::attacks::{bishop_attacks, knight_attacks, line, pawn_attacks, rook_attacks};
use super::{Bitboard, Move, MoveKind, PieceType, Position, Square};

#[derive(Copy, Clone, Debug)]
pub struct Checks {
    /// The enemy king.
    king: Square,
    /// By piece type: the squares where a piece of the side to move would give check (with
    /// today's blockers; the king gives none).
    squares: [Bitboard; 6],
    /// Pieces of the side to move that alone stand between one of its sliders and the enemy
    /// king: moving one off that line gives a discovered check.
    discoverers: Bitboard,
}

impl Checks {
    pub fn new(pos: &Position) -> Checks {
        let us = pos.side_to_move();
        let king = pos.king_square(!us);
        let occupied = pos.occupied();
        let diagonal = bishop_attacks(king, occupied);
        let orthogonal = rook_attacks(king, occupied);
        let mut squares = [Bitboard::EMPTY; 6];
        // A pawn of ours checks from where an enemy pawn on the king's square would capture.
        squares[PieceType::Pawn.index()] = pawn_attacks(!us, king);
        squares[PieceType::Knight.index()] = knight_attacks(king);
        squares[PieceType::Bishop.index()] = diagonal;
        squares[PieceType::Rook.index()] = orthogonal;
        squares[PieceType::Queen.index()] = diagonal | orthogonal;

        let discoverers = pos.lone_blockers(king, us) & pos.color_bb(us);
        Checks { king, squares, discoverers }
    }

    /// Whether `mv`, legal in `pos` (the position these were made for), gives check.
    #[inline]
    pub fn gives_check(&self, pos: &Position, mv: Move) -> bool {
        if mv.kind() != MoveKind::Normal {
            // Castling, en passant and promotions are rare: just play them.
            let mut child = *pos;
            child.make_move(mv);
            return child.in_check();
        }
        let (from, to) = (mv.from(), mv.to());
        let direct = pos
            .piece_on(from)
            .is_some_and(|piece| self.squares[piece.piece_type().index()].contains(to));
        // A discovered check needs the piece to leave the line it blocks.
        direct || (self.discoverers.contains(from) && !line(self.king, from).contains(to))
    }
}
