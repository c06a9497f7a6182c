//! Zobrist hashing keys (drawn by `generate-tables`, see `generated.rs`).

use super::generated::{CASTLING_KEYS, EN_PASSANT_KEYS, PIECE_SQUARE_KEYS, SIDE_KEY};
use super::{CastlingRights, Piece, Square};

#[inline(always)]
pub fn piece_square(piece: Piece, square: Square) -> u64 {
    PIECE_SQUARE_KEYS[piece.index() * 64 + square.index()]
}

#[inline(always)]
pub fn castling(rights: CastlingRights) -> u64 {
    CASTLING_KEYS[rights.bits()]
}

/// Key of an en-passant square; only squares with a legal capture are hashed.
#[inline(always)]
pub fn en_passant(square: Square) -> u64 {
    EN_PASSANT_KEYS[square.file() as usize]
}

#[inline(always)]
pub fn side() -> u64 {
    SIDE_KEY
}
