//! Moves in UCI long algebraic notation (`e2e4`, `e7e8q`). Castling is written as the king's
//! two-square move (`e1g1`) in standard chess and as king-takes-rook (`e1h1`) in Chess960.

use thiserror::Error;

use super::{CastleSide, Color, Move, MoveKind, Position};

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum MoveError {
    #[error("'{0}' is not a move in UCI notation")]
    Malformed(String),
    #[error("'{0}' is not legal in this position")]
    Illegal(String),
}

impl Move {
    /// UCI text of this move; `chess960` selects king-takes-rook castling.
    pub fn to_uci(self, chess960: bool) -> String {
        if self.is_none() {
            return "0000".to_string();
        }
        let from = self.from();
        let mut to = self.to();
        if self.kind() == MoveKind::Castling && !chess960 {
            let color = if from.rank() == 0 { Color::White } else { Color::Black };
            to = CastleSide::of_rook(from, to).king_destination(color);
        }
        match self.promotion_type() {
            Some(piece) => format!("{from}{to}{}", piece.letter()),
            None => format!("{from}{to}"),
        }
    }
}

impl Position {
    /// Finds the legal move written `text`. Castling is accepted in either notation as long as
    /// it is not ambiguous; the preferred one is picked by `chess960`.
    pub fn parse_uci_move(&self, text: &str, chess960: bool) -> Result<Move, MoveError> {
        let well_formed = matches!(text.len(), 4 | 5)
            && text.is_ascii()
            && super::Square::parse(&text[0..2]).is_some()
            && super::Square::parse(&text[2..4]).is_some()
            && text[4..].chars().all(|c| "qrbn".contains(c));
        if !well_formed {
            return Err(MoveError::Malformed(text.to_string()));
        }
        let moves = self.legal_moves();
        let found =
            |notation_960: bool| moves.iter().copied().find(|m| m.to_uci(notation_960) == text);
        found(chess960)
            .or_else(|| found(!chess960).filter(|m| m.kind() == MoveKind::Castling && !chess960))
            .ok_or_else(|| MoveError::Illegal(text.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn castling_notation_in_both_modes() {
        let pos = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        let short = pos.parse_uci_move("e1g1", false).unwrap();
        assert_eq!(short.kind(), MoveKind::Castling);
        assert_eq!(short.to_uci(true), "e1h1");
        assert_eq!(pos.parse_uci_move("e1h1", false), Ok(short));
        assert_eq!(pos.parse_uci_move("e1h1", true), Ok(short));
        // In Chess960 mode e1g1 would be a plain king move, which is not possible here.
        assert!(pos.parse_uci_move("e1g1", true).is_err());
    }

    #[test]
    fn rejects_bad_text() {
        let pos = Position::startpos();
        for bad in ["", "e2", "e2e4x", "e2e9", "z2e4", "e2e5", "e7e8q", "é2e4"] {
            assert!(pos.parse_uci_move(bad, false).is_err(), "{bad}");
        }
        assert!(pos.parse_uci_move("g1f3", false).is_ok());
    }
}
