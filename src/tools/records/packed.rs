//! The training-data record: one position with its search score and game result in 32 bytes.
//!
//! Layout (little-endian):
//!
//! | bytes | field |
//! |-------|-------|
//! | 0..8   | occupancy bitboard, bit i = square i (a1 = 0, h8 = 63) |
//! | 8..24  | one 4-bit code per occupied square, in increasing square order, low nibble first |
//! | 24..26 | search score in centipawns, White's point of view (i16) |
//! | 26     | game result: 0 Black won, 1 draw, 2 White won |
//! | 27     | side to move: 0 White, 1 Black |
//! | 28     | en-passant square, 64 if none |
//! | 29     | halfmove clock (saturating at 255) |
//! | 30..32 | fullmove number (u16) |
//!
//! Piece codes: 0-5 White pawn, knight, bishop, rook, queen, king; 6-11 the same for Black;
//! 12 a White rook that still castles, 13 a Black one (so castling rights, Chess960 included,
//! survive the round trip to FEN).

use thiserror::Error;

use crate::chess::{CastleSide, Color, FenError, Piece, PieceType, Position, Square};

pub const RECORD_BYTES: usize = 32;

/// Reads the next record of a record file into `record`; `Ok(false)` at the end of the file
/// (a partial record at the end counts as the end).
pub fn read_record(
    reader: &mut impl std::io::Read,
    record: &mut [u8; RECORD_BYTES],
) -> std::io::Result<bool> {
    match reader.read_exact(record) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

const CASTLING_ROOK: [u8; 2] = [12, 13];
const NO_SQUARE: u8 = 64;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct PackedPosition {
    pub occupied: u64,
    pub codes: [u8; 16],
    /// Centipawns, White's point of view.
    pub score: i16,
    /// 0 Black won, 1 draw, 2 White won.
    pub result: u8,
    pub side: Color,
    pub en_passant: u8,
    pub halfmove: u8,
    pub fullmove: u16,
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum PackedError {
    #[error("more than 32 pieces on the board")]
    TooManyPieces,
    #[error("unknown piece code {0}")]
    BadPieceCode(u8),
    #[error("result byte {0} is not 0, 1 or 2")]
    BadResult(u8),
    #[error("side-to-move byte {0} is not 0 or 1")]
    BadSide(u8),
    #[error("en-passant byte {0} is not a square or 64")]
    BadEnPassant(u8),
    #[error("the text line is not `FEN;result;score`")]
    BadLine,
    #[error("bad result `{0}` (want 1.0, 0.5 or 0.0)")]
    BadResultText(String),
    #[error("bad score `{0}`")]
    BadScore(String),
    #[error("bad FEN: {0}")]
    Fen(#[from] FenError),
}

impl PackedPosition {
    /// Packs `pos` with its White-relative `score` and `result` (0, 1 or 2 as above).
    pub fn pack(pos: &Position, score: i16, result: u8) -> PackedPosition {
        let mut castling_rooks = 0u64;
        for color in Color::BOTH {
            for side in CastleSide::BOTH {
                if let Some(rook) = pos.castling_rook(color, side) {
                    castling_rooks |= 1 << rook.index();
                }
            }
        }
        let occupied = pos.occupied();
        let mut codes = [0u8; 16];
        for (i, square) in occupied.into_iter().enumerate() {
            let piece = pos.piece_on(square).expect("occupied square has a piece");
            let code = if castling_rooks & (1 << square.index()) != 0 {
                CASTLING_ROOK[piece.color().index()]
            } else {
                piece.index() as u8
            };
            codes[i / 2] |= code << (4 * (i % 2));
        }
        PackedPosition {
            occupied: occupied.0,
            codes,
            score,
            result,
            side: pos.side_to_move(),
            en_passant: pos.en_passant().map_or(NO_SQUARE, |sq| sq.index() as u8),
            halfmove: pos.halfmove_clock().min(255) as u8,
            fullmove: pos.fullmove_number(),
        }
    }

    pub fn to_bytes(&self) -> [u8; RECORD_BYTES] {
        let mut bytes = [0u8; RECORD_BYTES];
        bytes[0..8].copy_from_slice(&self.occupied.to_le_bytes());
        bytes[8..24].copy_from_slice(&self.codes);
        bytes[24..26].copy_from_slice(&self.score.to_le_bytes());
        bytes[26] = self.result;
        bytes[27] = self.side.index() as u8;
        bytes[28] = self.en_passant;
        bytes[29] = self.halfmove;
        bytes[30..32].copy_from_slice(&self.fullmove.to_le_bytes());
        bytes
    }

    /// Reads a record, checking every field that can be out of range.
    pub fn from_bytes(bytes: &[u8; RECORD_BYTES]) -> Result<PackedPosition, PackedError> {
        let occupied = u64::from_le_bytes(bytes[0..8].try_into().expect("8 bytes"));
        if occupied.count_ones() > 32 {
            return Err(PackedError::TooManyPieces);
        }
        let codes: [u8; 16] = bytes[8..24].try_into().expect("16 bytes");
        for i in 0..occupied.count_ones() as usize {
            let code = (codes[i / 2] >> (4 * (i % 2))) & 15;
            if code > 13 {
                return Err(PackedError::BadPieceCode(code));
            }
        }
        let side = match bytes[27] {
            0 => Color::White,
            1 => Color::Black,
            other => return Err(PackedError::BadSide(other)),
        };
        if bytes[26] > 2 {
            return Err(PackedError::BadResult(bytes[26]));
        }
        if bytes[28] > NO_SQUARE {
            return Err(PackedError::BadEnPassant(bytes[28]));
        }
        Ok(PackedPosition {
            occupied,
            codes,
            score: i16::from_le_bytes([bytes[24], bytes[25]]),
            result: bytes[26],
            side,
            en_passant: bytes[28],
            halfmove: bytes[29],
            fullmove: u16::from_le_bytes([bytes[30], bytes[31]]),
        })
    }

    /// Whether any castling right is held (a castling rook is on the board).
    pub fn has_castling_rights(&self) -> bool {
        (0..self.occupied.count_ones() as usize)
            .any(|i| (self.codes[i / 2] >> (4 * (i % 2))) & 15 >= 12)
    }

    /// The pieces on the board with their squares (castling rooks as plain rooks).
    pub fn pieces(&self) -> impl Iterator<Item = (Piece, Square)> + '_ {
        let mut occupied = self.occupied;
        (0..self.occupied.count_ones() as usize).map(move |i| {
            let square = Square::new(occupied.trailing_zeros() as u8);
            occupied &= occupied - 1;
            let code = (self.codes[i / 2] >> (4 * (i % 2))) & 15;
            let piece = match code {
                12 => Piece::new(Color::White, PieceType::Rook),
                13 => Piece::new(Color::Black, PieceType::Rook),
                _ => Piece::ALL[code as usize],
            };
            (piece, square)
        })
    }

    /// The position as FEN (Shredder-FEN castling letters, which every reader here accepts).
    pub fn to_fen(&self) -> String {
        let mut board = [None; 64];
        let mut castling = String::new();
        let mut occupied = self.occupied;
        for i in 0..self.occupied.count_ones() as usize {
            let square = occupied.trailing_zeros() as usize;
            occupied &= occupied - 1;
            let code = (self.codes[i / 2] >> (4 * (i % 2))) & 15;
            board[square] = Some(code);
            if code >= 12 {
                let file = (b'a' + (square % 8) as u8) as char;
                castling.push(if code == 12 { file.to_ascii_uppercase() } else { file });
            }
        }
        let mut fen = String::new();
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match board[rank * 8 + file] {
                    None => empty += 1,
                    Some(code) => {
                        if empty > 0 {
                            fen.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        let piece = match code {
                            12 => Piece::new(Color::White, PieceType::Rook),
                            13 => Piece::new(Color::Black, PieceType::Rook),
                            _ => Piece::ALL[code as usize],
                        };
                        fen.push(piece.letter());
                    }
                }
            }
            if empty > 0 {
                fen.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                fen.push('/');
            }
        }
        // Shredder-FEN lists White's rights first, each side's from the h-file down.
        let mut letters: Vec<char> = castling.chars().collect();
        letters
            .sort_by_key(|c| (c.is_ascii_lowercase(), std::cmp::Reverse(c.to_ascii_lowercase())));
        let castling: String = letters.into_iter().collect();
        let en_passant = if self.en_passant == NO_SQUARE {
            "-".to_string()
        } else {
            Square::new(self.en_passant).to_string()
        };
        let side = if self.side == Color::White { 'w' } else { 'b' };
        let castling = if castling.is_empty() { "-".to_string() } else { castling };
        format!("{fen} {side} {castling} {en_passant} {} {}", self.halfmove, self.fullmove)
    }

    pub fn to_position(&self) -> Result<Position, FenError> {
        Position::from_fen(&self.to_fen())
    }

    /// The inspection format: `FEN;R;S` with R 1.0/0.5/0.0 and S centipawns, both White's view.
    pub fn to_text(&self) -> String {
        let result = ["0.0", "0.5", "1.0"][self.result as usize];
        let fen = self.to_position().map_or_else(|_| self.to_fen(), |pos| pos.to_fen());
        format!("{fen};{result};{}", self.score)
    }

    pub fn from_text(line: &str) -> Result<PackedPosition, PackedError> {
        let mut fields = line.trim().split(';');
        let (Some(fen), Some(result), Some(score), None) =
            (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            return Err(PackedError::BadLine);
        };
        let result = match result.trim() {
            "1.0" | "1" => 2,
            "0.5" => 1,
            "0.0" | "0" => 0,
            other => return Err(PackedError::BadResultText(other.to_string())),
        };
        let score: i16 =
            score.trim().parse().map_err(|_| PackedError::BadScore(score.trim().to_string()))?;
        let pos = Position::from_fen(fen.trim())?;
        Ok(PackedPosition::pack(&pos, score, result))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(fen: &str) {
        let pos = Position::from_fen(fen).unwrap();
        let packed = PackedPosition::pack(&pos, -123, 2);
        let read = PackedPosition::from_bytes(&packed.to_bytes()).unwrap();
        assert_eq!(read, packed);
        assert_eq!(read.to_position().unwrap(), pos, "{fen}");
        assert_eq!(read.score, -123);
        let pieces: Vec<_> = read.pieces().collect();
        assert_eq!(pieces.len(), pos.occupied().count() as usize);
        for (piece, square) in pieces {
            assert_eq!(pos.piece_on(square), Some(piece));
        }
    }

    #[test]
    fn positions_survive_the_round_trip() {
        round_trip("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        round_trip("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
        round_trip("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3");
        round_trip("1r1k2r1/8/8/8/8/8/8/R2K1R2 w FAgb - 4 30");
        round_trip("8/8/8/8/8/6q1/P4k2/7K w - - 99 140");
        round_trip("r3k3/8/8/8/8/8/8/4K2R b Kq - 0 1");
    }

    #[test]
    fn text_round_trip() {
        let line = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1;0.5;-35";
        let packed = PackedPosition::from_text(line).unwrap();
        assert_eq!(packed.to_text(), line);
        assert_eq!(packed.result, 1);
    }

    #[test]
    fn bad_records_are_refused() {
        let good = PackedPosition::pack(&Position::startpos(), 0, 1).to_bytes();
        let mut bytes = good;
        bytes[26] = 3;
        assert_eq!(PackedPosition::from_bytes(&bytes), Err(PackedError::BadResult(3)));
        let mut bytes = good;
        bytes[27] = 2;
        assert_eq!(PackedPosition::from_bytes(&bytes), Err(PackedError::BadSide(2)));
        let mut bytes = good;
        bytes[28] = 65;
        assert_eq!(PackedPosition::from_bytes(&bytes), Err(PackedError::BadEnPassant(65)));
        let mut bytes = good;
        bytes[0..8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(PackedPosition::from_bytes(&bytes), Err(PackedError::TooManyPieces));
        let mut bytes = good;
        bytes[8] = 0xF0;
        assert_eq!(PackedPosition::from_bytes(&bytes), Err(PackedError::BadPieceCode(15)));
        assert_eq!(PackedPosition::from_text("x;1.0"), Err(PackedError::BadLine));
        assert!(matches!(
            PackedPosition::from_text("8/8 w - - 0 1;1.0;0"),
            Err(PackedError::Fen(_))
        ));
    }
}
