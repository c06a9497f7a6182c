//! The rules of chess: board representation, legal move generation, FEN, hashing, perft.

mod attacks;
mod bitboard;
mod castling;
mod checks;
pub mod cuckoo;
mod fen;
#[rustfmt::skip]
mod generated;
mod magic;
mod movegen;
mod moves;
mod notation;
mod perft;
mod piece;
mod position;
mod san;
mod see;
mod square;
pub mod tables_gen;
mod zobrist;

pub use attacks::{
    between, bishop_attacks, king_attacks, knight_attacks, line, pawn_attacks, queen_attacks,
    rook_attacks,
};
pub use bitboard::Bitboard;
pub use castling::{CastleSide, CastlingRights};
pub use checks::Checks;
pub use fen::{FenError, START_FEN};
pub use movegen::{ALL, GenKinds, MoveCounter, MoveSink, NOISY, QUIET};
pub use moves::{MAX_MOVES, Move, MoveKind, MoveList};
pub use notation::MoveError;
pub use perft::{divide, perft};
pub use piece::{Color, Piece, PieceType};
pub use position::Position;
pub use see::SEE_VALUES;
pub use square::Square;
/// The key of the side to move (every move changes a position's key by it).
pub use zobrist::side as side_key;
