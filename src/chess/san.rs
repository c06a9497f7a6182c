//! Standard algebraic notation (`Nf3`, `exd5`, `O-O`, `e8=Q+`), as used by EPD and PGN.

use super::{CastleSide, Move, MoveError, MoveKind, PieceType, Position};

impl Position {
    /// SAN of `mv`, a legal move here, with `+` or `#` when it checks or mates.
    pub fn to_san(&self, mv: Move) -> String {
        let mut san = self.san_without_check(mv);
        let mut child = *self;
        child.make_move(mv);
        if child.in_check() {
            san.push(if child.has_legal_move() { '+' } else { '#' });
        }
        san
    }

    fn san_without_check(&self, mv: Move) -> String {
        let from = mv.from();
        let to = mv.to();
        if mv.kind() == MoveKind::Castling {
            return match CastleSide::of_rook(from, to) {
                CastleSide::King => "O-O".to_string(),
                CastleSide::Queen => "O-O-O".to_string(),
            };
        }
        let Some(piece) = self.piece_on(from) else {
            return mv.to_uci(false);
        };
        let capture = self.captured_type(mv).is_some();
        let mut san = String::new();
        if piece.piece_type() == PieceType::Pawn {
            if capture {
                san.push((b'a' + from.file()) as char);
                san.push('x');
            }
            san.push_str(&to.to_string());
            if let Some(promotion) = mv.promotion_type() {
                san.push('=');
                san.push(promotion.letter().to_ascii_uppercase());
            }
            return san;
        }
        san.push(piece.piece_type().letter().to_ascii_uppercase());
        // Disambiguate among pieces of the same kind that can also go to `to`.
        let rivals: Vec<Move> = self
            .legal_moves()
            .iter()
            .copied()
            .filter(|m| {
                m.to() == to
                    && m.from() != from
                    && m.kind() != MoveKind::Castling
                    && self.piece_on(m.from()) == Some(piece)
            })
            .collect();
        if !rivals.is_empty() {
            let same_file = rivals.iter().any(|m| m.from().file() == from.file());
            let same_rank = rivals.iter().any(|m| m.from().rank() == from.rank());
            if !same_file {
                san.push((b'a' + from.file()) as char);
            } else if !same_rank {
                san.push((b'1' + from.rank()) as char);
            } else {
                san.push_str(&from.to_string());
            }
        }
        if capture {
            san.push('x');
        }
        san.push_str(&to.to_string());
        san
    }

    /// Finds the legal move written in SAN (check marks, `!`/`?` and a missing `=` before the
    /// promotion piece are tolerated; `0-0` is read as `O-O`). UCI notation is accepted too.
    pub fn parse_san(&self, text: &str) -> Result<Move, MoveError> {
        let wanted = normalize(text);
        if wanted.is_empty() {
            return Err(MoveError::Malformed(text.to_string()));
        }
        let found = self
            .legal_moves()
            .iter()
            .copied()
            .find(|&m| normalize(&self.san_without_check(m)) == wanted);
        match found {
            Some(mv) => Ok(mv),
            None => self.parse_uci_move(text, false).or(Err(MoveError::Illegal(text.to_string()))),
        }
    }
}

fn normalize(san: &str) -> String {
    san.trim().trim_end_matches(['+', '#', '!', '?']).replace('0', "O").replace('=', "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_and_reads_san() {
        let pos = Position::from_fen(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        )
        .unwrap();
        for mv in pos.legal_moves().iter() {
            let san = pos.to_san(*mv);
            assert_eq!(pos.parse_san(&san), Ok(*mv), "{san}");
        }
        let san = |uci: &str| pos.to_san(pos.parse_uci_move(uci, false).unwrap());
        assert_eq!(san("e1g1"), "O-O");
        assert_eq!(san("e1c1"), "O-O-O");
        assert_eq!(san("d5e6"), "dxe6");
        assert_eq!(san("e5f7"), "Nxf7");
        assert_eq!(san("c3b1"), "Nb1");
        assert_eq!(san("a1d1"), "Rd1");
        assert_eq!(pos.parse_san("0-0"), pos.parse_uci_move("e1g1", false));
        assert!(pos.parse_san("Qh9").is_err());
    }

    #[test]
    fn disambiguation() {
        let pos = Position::from_fen("4k3/8/8/R7/8/1N3N2/4K3/R6R w - - 0 1").unwrap();
        let san = |uci: &str| pos.to_san(pos.parse_uci_move(uci, false).unwrap());
        assert_eq!(san("a1e1"), "Rae1");
        assert_eq!(san("h1g1"), "Rhg1");
        assert_eq!(san("a5b5"), "Rb5");
        assert_eq!(san("a1a3"), "R1a3");
        assert_eq!(san("b3d2"), "Nbd2");
        assert_eq!(san("f3h4"), "Nh4");
        for mv in pos.legal_moves().iter() {
            assert_eq!(pos.parse_san(&pos.to_san(*mv)), Ok(*mv));
        }
    }

    #[test]
    fn promotions_checks_and_mates() {
        let pos = Position::from_fen("7k/1P6/6K1/8/8/8/8/6R1 w - - 0 1").unwrap();
        let mv = pos.parse_san("b8=Q#").unwrap();
        assert_eq!(pos.to_san(mv), "b8=Q#");
        assert_eq!(pos.parse_san("b8Q"), Ok(mv));
        let check = pos.parse_san("Rh1").unwrap();
        assert_eq!(pos.to_san(check), "Rh1+");
    }
}
