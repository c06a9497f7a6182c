//! Cuckoo tables of reversible moves (Marcel van Kervinck's method): the key change of every
//! move a knight, bishop, rook, queen or king can make on an empty board. Two positions whose
//! keys differ by one of them are one such move apart (if the squares between are empty), so
//! the search can ask in constant time whether a single move would bring an earlier position
//! back, one ply before the repetition is on the board.

use std::sync::OnceLock;

use super::{Bitboard, Piece, PieceType, Square, between, bishop_attacks, king_attacks};
use super::{knight_attacks, queen_attacks, rook_attacks, zobrist};

/// Slots per table: a power of two comfortably above the 3,668 moves, so that insertion
/// always finds a place.
const SIZE: usize = 8192;

struct Tables {
    /// Key change of each stored move; 0 marks an empty slot.
    keys: [u64; SIZE],
    /// The two squares of the move (either way round: both directions have one key).
    squares: [(Square, Square); SIZE],
}

fn first_slot(key: u64) -> usize {
    (key as usize) & (SIZE - 1)
}

fn second_slot(key: u64) -> usize {
    ((key >> 16) as usize) & (SIZE - 1)
}

fn empty_board_attacks(piece_type: PieceType, square: Square) -> Bitboard {
    match piece_type {
        PieceType::Knight => knight_attacks(square),
        PieceType::Bishop => bishop_attacks(square, Bitboard::EMPTY),
        PieceType::Rook => rook_attacks(square, Bitboard::EMPTY),
        PieceType::Queen => queen_attacks(square, Bitboard::EMPTY),
        PieceType::King => king_attacks(square),
        PieceType::Pawn => Bitboard::EMPTY,
    }
}

fn build() -> Box<Tables> {
    let mut tables =
        Box::new(Tables { keys: [0; SIZE], squares: [(Square::new(0), Square::new(0)); SIZE] });
    for piece in Piece::ALL {
        for from in Square::all() {
            let targets = empty_board_attacks(piece.piece_type(), from);
            for to in Square::all().filter(|&to| to.index() > from.index() && targets.contains(to))
            {
                let mut key = zobrist::piece_square(piece, from)
                    ^ zobrist::piece_square(piece, to)
                    ^ zobrist::side();
                let mut squares = (from, to);
                // Cuckoo insertion: take the slot, and move whatever sat there to its other slot.
                let mut slot = first_slot(key);
                loop {
                    std::mem::swap(&mut tables.keys[slot], &mut key);
                    std::mem::swap(&mut tables.squares[slot], &mut squares);
                    if key == 0 {
                        break;
                    }
                    slot = if slot == first_slot(key) { second_slot(key) } else { first_slot(key) };
                }
            }
        }
    }
    tables
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Box<Tables>> = OnceLock::new();
    TABLES.get_or_init(build)
}

/// If `key_change` (the XOR of two position keys, side to move included) is the change made
/// by one knight, bishop, rook, queen or king move, that move's two squares, either way
/// round. Whether the move is possible on the board (the squares between empty, the piece
/// on one of them) is for the caller to check.
#[inline]
pub fn reversible_move(key_change: u64) -> Option<(Square, Square)> {
    let tables = tables();
    [first_slot(key_change), second_slot(key_change)]
        .into_iter()
        .find(|&slot| tables.keys[slot] == key_change)
        .map(|slot| tables.squares[slot])
}

/// Whether the squares strictly between the two of a reversible move are empty.
#[inline]
pub fn path_is_clear((a, b): (Square, Square), occupied: Bitboard) -> bool {
    (between(a, b) & occupied).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::{Color, Position};

    #[test]
    fn every_reversible_move_is_stored_once() {
        let stored = tables().keys.iter().filter(|&&k| k != 0).count();
        // Per colour: knights 168, bishops 280, rooks 448, queens 728, kings 210.
        assert_eq!(stored, 2 * (168 + 280 + 448 + 728 + 210));
    }

    #[test]
    fn a_move_and_its_way_back_are_found_from_the_keys() {
        let start = Position::startpos();
        let mut after = start;
        after.make_move(after.parse_uci_move("g1f3", false).unwrap());
        let found = reversible_move(start.key() ^ after.key()).expect("a knight move");
        assert!(found == (Square::G1, Square::F3) || found == (Square::F3, Square::G1));
        // A pawn move is not reversible; neither is a position two moves away.
        let mut pawn = start;
        pawn.make_move(pawn.parse_uci_move("e2e4", false).unwrap());
        assert_eq!(reversible_move(start.key() ^ pawn.key()), None);
        let mut two = after;
        two.make_move(two.parse_uci_move("g8f6", false).unwrap());
        assert_eq!(reversible_move(start.key() ^ two.key()), None);
        assert_eq!(after.piece_on(Square::F3).map(|p| p.color()), Some(Color::White));
    }

    #[test]
    fn a_slider_needs_a_clear_path() {
        let occupied = Square::D1.bb();
        assert!(path_is_clear((Square::A1, Square::C1), occupied));
        assert!(!path_is_clear((Square::A1, Square::H1), occupied));
        assert!(path_is_clear((Square::G1, Square::F3), Bitboard::ALL));
    }
}
