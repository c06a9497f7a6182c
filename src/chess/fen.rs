//! Reading and writing FEN: standard FEN, X-FEN and Shredder-FEN castling fields, and EPD-style
//! FEN without the two move counters. Every position accepted here is one the move generator
//! can handle: one king per side, no pawn on a back rank, the side not to move not in check,
//! castling rights backed by king and rook, and a consistent en-passant square.

use std::fmt::Write;

use thiserror::Error;

use super::{Bitboard, CastleSide, CastlingRights, Color, Piece, PieceType, Position, Square};

pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// What is wrong with a FEN string. Ranks are numbered as on the board (8 is the first field).
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum FenError {
    #[error("expected 4 to 6 space-separated fields, found {0}")]
    FieldCount(usize),
    #[error("expected 8 ranks separated by '/', found {0}")]
    RankCount(usize),
    #[error("rank {rank} does not describe exactly 8 files")]
    RankWidth { rank: u8 },
    #[error("unknown piece letter '{letter}' in rank {rank}")]
    UnknownPiece { letter: char, rank: u8 },
    #[error("{color} has {count} kings; each side must have exactly one")]
    KingCount { color: &'static str, count: u32 },
    #[error("pawn on {square}: pawns cannot stand on the first or last rank")]
    PawnOnBackRank { square: Square },
    #[error("{color} has more pieces than a game can produce")]
    TooManyPieces { color: &'static str },
    #[error("side to move must be 'w' or 'b', found '{0}'")]
    SideToMove(String),
    #[error("the side not to move is in check")]
    OpponentInCheck,
    #[error("invalid castling field '{0}'")]
    CastlingField(String),
    #[error(
        "castling right '{right}' needs the king on its first rank and a rook on the named square"
    )]
    CastlingWithoutPieces { right: char },
    #[error("invalid en-passant field '{0}'")]
    EnPassantField(String),
    #[error("en-passant square {square} does not follow a double pawn step")]
    EnPassantInconsistent { square: Square },
    #[error("invalid halfmove clock '{0}'")]
    HalfmoveClock(String),
    #[error("invalid fullmove number '{0}'")]
    FullmoveNumber(String),
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

impl Position {
    pub fn startpos() -> Position {
        Position::from_fen(START_FEN).expect("the start position is valid")
    }

    /// Parses a FEN (4 to 6 fields; missing counters default to 0 and 1).
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if !(4..=6).contains(&fields.len()) {
            return Err(FenError::FieldCount(fields.len()));
        }
        let mut pos = Position::empty();
        parse_placement(&mut pos, fields[0])?;
        pos.side = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(FenError::SideToMove(other.to_string())),
        };
        validate_material(&pos)?;
        parse_castling(&mut pos, fields[2])?;
        let en_passant = parse_en_passant(&pos, fields[3])?;
        if let Some(text) = fields.get(4) {
            pos.halfmove_clock =
                text.parse().map_err(|_| FenError::HalfmoveClock(text.to_string()))?;
        }
        if let Some(text) = fields.get(5) {
            let number: u16 =
                text.parse().map_err(|_| FenError::FullmoveNumber(text.to_string()))?;
            // Some tools write 0 here; the count starts at 1.
            pos.fullmove_number = number.max(1);
        }

        // The side that just moved cannot have left its king attacked.
        let them = !pos.side;
        if pos.is_attacked_by(pos.king_square(them), pos.side, pos.occupied()) {
            return Err(FenError::OpponentInCheck);
        }
        pos.castling_squares = pos.compute_castling_squares();
        pos.update_check_info();
        // An en-passant square counts only when a legal capture onto it exists.
        if let Some(target) = en_passant {
            let capturers = pawn_capturers(&pos, target);
            if capturers.into_iter().any(|from| pos.en_passant_is_legal(from, target)) {
                pos.en_passant = Some(target);
            }
        }
        (pos.key, pos.pawn_key) = pos.compute_keys();
        pos.non_pawn_keys = pos.compute_non_pawn_keys();
        Ok(pos)
    }

    /// FEN with X-FEN castling letters: KQkq where the rook is the outermost one on its
    /// side, the rook's file letter otherwise (so Chess960 positions round-trip).
    pub fn to_fen(&self) -> String {
        let mut fen = String::with_capacity(90);
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match self.piece_on(Square::from_file_rank(file, rank)) {
                    Some(piece) => {
                        if empty > 0 {
                            write!(fen, "{empty}").unwrap();
                            empty = 0;
                        }
                        fen.push(piece.letter());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                write!(fen, "{empty}").unwrap();
            }
            if rank > 0 {
                fen.push('/');
            }
        }
        fen.push_str(if self.side == Color::White { " w " } else { " b " });
        let castling = self.castling_field();
        fen.push_str(if castling.is_empty() { "-" } else { &castling });
        match self.en_passant {
            Some(square) => write!(fen, " {square}").unwrap(),
            None => fen.push_str(" -"),
        }
        write!(fen, " {} {}", self.halfmove_clock, self.fullmove_number).unwrap();
        fen
    }

    fn castling_field(&self) -> String {
        let mut field = String::new();
        for color in Color::BOTH {
            for side in CastleSide::BOTH {
                let Some(rook) = self.castling_rook(color, side) else {
                    continue;
                };
                let outermost = outermost_rook(self, color, side) == Some(rook);
                let letter = match (outermost, side) {
                    (true, CastleSide::King) => 'k',
                    (true, CastleSide::Queen) => 'q',
                    (false, _) => (b'a' + rook.file()) as char,
                };
                field.push(if color == Color::White {
                    letter.to_ascii_uppercase()
                } else {
                    letter
                });
            }
        }
        field
    }
}

fn parse_placement(pos: &mut Position, placement: &str) -> Result<(), FenError> {
    let ranks: Vec<&str> = placement.split('/').collect();
    if ranks.len() != 8 {
        return Err(FenError::RankCount(ranks.len()));
    }
    for (i, text) in ranks.iter().enumerate() {
        let rank = 7 - i as u8;
        let mut file = 0u8;
        for ch in text.chars() {
            if let Some(skip) = ch.to_digit(10).filter(|d| (1..=8).contains(d)) {
                file += skip as u8;
            } else {
                let piece = Piece::from_letter(ch)
                    .ok_or(FenError::UnknownPiece { letter: ch, rank: rank + 1 })?;
                if file >= 8 {
                    return Err(FenError::RankWidth { rank: rank + 1 });
                }
                pos.put_piece(piece, Square::from_file_rank(file, rank));
                file += 1;
            }
            if file > 8 {
                return Err(FenError::RankWidth { rank: rank + 1 });
            }
        }
        if file != 8 {
            return Err(FenError::RankWidth { rank: rank + 1 });
        }
    }
    Ok(())
}

fn validate_material(pos: &Position) -> Result<(), FenError> {
    for color in Color::BOTH {
        let kings = pos.pieces(color, PieceType::King).count();
        if kings != 1 {
            return Err(FenError::KingCount { color: color_name(color), count: kings });
        }
        // Every piece beyond the starting set must come from a promoted pawn.
        let count = |pt| pos.pieces(color, pt).count() as i32;
        let pawns = count(PieceType::Pawn);
        let promoted = (count(PieceType::Knight) - 2).max(0)
            + (count(PieceType::Bishop) - 2).max(0)
            + (count(PieceType::Rook) - 2).max(0)
            + (count(PieceType::Queen) - 1).max(0);
        if pawns > 8 || pawns + promoted > 8 {
            return Err(FenError::TooManyPieces { color: color_name(color) });
        }
    }
    let back_ranks = Bitboard::RANK_1 | Bitboard::RANK_8;
    if let Some(square) = (pos.type_bb(PieceType::Pawn) & back_ranks).into_iter().next() {
        return Err(FenError::PawnOnBackRank { square });
    }
    Ok(())
}

/// The rook furthest from the king on `side` of it, on `color`'s first rank.
fn outermost_rook(pos: &Position, color: Color, side: CastleSide) -> Option<Square> {
    let king = pos.king_square(color);
    let rooks = pos.pieces(color, PieceType::Rook) & Bitboard::relative_rank(color, 0);
    let mut candidates =
        rooks.filter(|&rook| CastleSide::of_rook(king, rook) == side && rook != king);
    match side {
        CastleSide::King => candidates.last(),
        CastleSide::Queen => candidates.next(),
    }
}

fn parse_castling(pos: &mut Position, field: &str) -> Result<(), FenError> {
    if field == "-" {
        return Ok(());
    }
    if field.is_empty() || field.len() > 4 {
        return Err(FenError::CastlingField(field.to_string()));
    }
    for right in field.chars() {
        let color = if right.is_ascii_uppercase() { Color::White } else { Color::Black };
        let king = pos.king_square(color);
        let back_rank = Bitboard::relative_rank(color, 0);
        let rook = match right.to_ascii_lowercase() {
            'k' => outermost_rook(pos, color, CastleSide::King),
            'q' => outermost_rook(pos, color, CastleSide::Queen),
            file @ 'a'..='h' => {
                let square = Square::from_file_rank(file as u8 - b'a', 0).relative(color);
                pos.pieces(color, PieceType::Rook).contains(square).then_some(square)
            }
            _ => return Err(FenError::CastlingField(field.to_string())),
        };
        let Some(rook) = rook.filter(|_| back_rank.contains(king)) else {
            return Err(FenError::CastlingWithoutPieces { right });
        };
        let side = CastleSide::of_rook(king, rook);
        let index = CastlingRights::index(color, side);
        if pos.castling.has(color, side) && pos.castling_rooks[index] != rook {
            // Two different rooks named for the same side.
            return Err(FenError::CastlingField(field.to_string()));
        }
        pos.castling.add(color, side);
        pos.castling_rooks[index] = rook;
    }
    Ok(())
}

/// Pawns of the side to move that attack `target`.
fn pawn_capturers(pos: &Position, target: Square) -> Bitboard {
    super::attacks::pawn_attacks(!pos.side, target) & pos.pieces(pos.side, PieceType::Pawn)
}

/// Checks the en-passant field against the position: the square lies behind an enemy pawn that
/// could just have made a double step, from a square that is now empty.
fn parse_en_passant(pos: &Position, field: &str) -> Result<Option<Square>, FenError> {
    if field == "-" {
        return Ok(None);
    }
    let square = Square::parse(field).ok_or_else(|| FenError::EnPassantField(field.to_string()))?;
    let us = pos.side;
    let them = !us;
    let expected_rank = if us == Color::White { 5 } else { 2 };
    let forward = |sq: Square, color: Color| sq.offset(super::position::pawn_push(color));
    let consistent = square.rank() == expected_rank
        && pos.piece_on(square).is_none()
        && pos.piece_on(forward(square, us)).is_none()
        && pos.piece_on(forward(square, them)) == Some(Piece::new(them, PieceType::Pawn));
    if !consistent {
        return Err(FenError::EnPassantInconsistent { square });
    }
    Ok(Some(square))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for fen in [
            START_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "r1k1r2q/p1ppp1pp/8/8/8/8/P1PPP1PP/R1K1R2Q w KQkq - 0 1",
            "1r1k2r1/8/8/8/8/8/8/R2K1R2 w KQkq - 4 30",
            "rk5r/8/8/8/8/8/8/RK3R1R w FQkq - 0 1",
            "8/8/8/8/8/8/6k1/4K2R b K - 99 120",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            assert_eq!(pos.to_fen(), fen, "round trip of {fen}");
        }
    }

    #[test]
    fn epd_style_and_shredder_fields() {
        let pos =
            Position::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha -").unwrap();
        assert_eq!(pos.to_fen(), START_FEN);
        assert_eq!(pos.key(), Position::startpos().key());
        let chess960 = Position::from_fen("1r1k2r1/8/8/8/8/8/8/R2K1R2 w FAgb - 4 30").unwrap();
        assert_eq!(chess960.to_fen(), "1r1k2r1/8/8/8/8/8/8/R2K1R2 w KQkq - 4 30");
    }

    #[test]
    fn x_fen_names_inner_rook_by_file() {
        // Two rooks on the king side: K means the outer one, G the inner one.
        let outer = Position::from_fen("4k3/8/8/8/8/8/8/4K1RR w K - 0 1").unwrap();
        assert_eq!(outer.castling_rook(Color::White, CastleSide::King), Some(Square::H1));
        let inner = Position::from_fen("4k3/8/8/8/8/8/8/4K1RR w G - 0 1").unwrap();
        assert_eq!(inner.castling_rook(Color::White, CastleSide::King), Some(Square::G1));
        assert_eq!(inner.to_fen(), "4k3/8/8/8/8/8/8/4K1RR w G - 0 1");
        assert_ne!(
            outer.key(),
            Position::from_fen("4k3/8/8/8/8/8/8/4K1RR w - - 0 1").unwrap().key()
        );
    }

    #[test]
    fn each_error_is_named() {
        use FenError::*;
        let cases: &[(&str, FenError)] = &[
            ("", FieldCount(0)),
            ("8/8/8/8/8/8/8/8 w", FieldCount(2)),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 x", FieldCount(7)),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", RankCount(7)),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1", RankWidth { rank: 1 }),
            ("rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", RankWidth { rank: 7 }),
            (
                "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                UnknownPiece { letter: '9', rank: 6 },
            ),
            (
                "rnbqkbnr/pppppppp/8/8/4X3/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                UnknownPiece { letter: 'X', rank: 4 },
            ),
            (
                "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1",
                KingCount { color: "black", count: 0 },
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/3K4/PPPPPPPP/RNBQKBNR w kq - 0 1",
                KingCount { color: "white", count: 2 },
            ),
            ("4k3/8/8/8/8/8/8/P3K3 w - - 0 1", PawnOnBackRank { square: Square::A1 }),
            ("4k2p/8/8/8/8/8/8/4K3 w - - 0 1", PawnOnBackRank { square: Square::H8 }),
            ("4k3/8/8/8/8/QQQQQ3/QQQQQ3/4K3 w - - 0 1", TooManyPieces { color: "white" }),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", SideToMove("x".into())),
            ("4k3/8/8/8/8/8/8/4K2r b - - 0 1", OpponentInCheck),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkqX - 0 1",
                CastlingField("KQkqX".into()),
            ),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w Z - 0 1", CastlingField("Z".into())),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w K - 0 1",
                CastlingWithoutPieces { right: 'K' },
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w B - 0 1",
                CastlingWithoutPieces { right: 'B' },
            ),
            ("4k3/8/8/8/8/8/4K3/R6R w K - 0 1", CastlingWithoutPieces { right: 'K' }),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1",
                EnPassantField("e9".into()),
            ),
            (
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e4 0 1",
                EnPassantInconsistent { square: Square::E4 },
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq e3 0 1",
                EnPassantInconsistent { square: Square::E3 },
            ),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", HalfmoveClock("x".into())),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 -3",
                FullmoveNumber("-3".into()),
            ),
        ];
        for (fen, expected) in cases {
            assert_eq!(Position::from_fen(fen).as_ref().err(), Some(expected), "{fen}");
            // The message names the problem in words.
            assert!(!expected.to_string().is_empty());
        }
    }

    #[test]
    fn en_passant_square_without_legal_capture_is_dropped() {
        // After 1. e4 no black pawn can take on e3: same position as without the square.
        let with =
            Position::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1")
                .unwrap();
        let without =
            Position::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
                .unwrap();
        assert_eq!(with.key(), without.key());
        assert_eq!(with.en_passant(), None);
        // A capture that would expose the king along the rank is not legal either.
        let pinned = Position::from_fen("8/8/8/K2pP2r/8/8/8/7k w - d6 0 1").unwrap();
        assert_eq!(pinned.en_passant(), None);
        // A real capture keeps the square and changes the key.
        let real = Position::from_fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1").unwrap();
        let plain = Position::from_fen("4k3/8/8/3pP3/8/8/8/4K3 w - - 0 1").unwrap();
        assert_eq!(real.en_passant(), Some(Square::D6));
        assert_ne!(real.key(), plain.key());
    }

    #[test]
    fn double_step_sets_square_only_with_a_capture() {
        let mut pos = Position::startpos();
        pos.make_move(pos.parse_uci_move("e2e4", false).unwrap());
        assert_eq!(pos.en_passant(), None);
        let mut pos = Position::from_fen("4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1").unwrap();
        pos.make_move(pos.parse_uci_move("e2e4", false).unwrap());
        assert_eq!(pos.en_passant(), Some(Square::E3));
        assert_eq!(pos.to_fen(), "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1");
    }
}
