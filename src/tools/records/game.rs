//! A self-play game, the thing the game formats store: its start position, the unsearched
//! opening moves, each searched ply's move and score, and the result. The formats that encode
//! it ([`super::games`], [`super::pack`]) build on this file; it needs neither.

use super::packed::PackedPosition;
use crate::chess::{Move, Position};
use crate::search::MATE_BOUND;

/// One game as datagen played it.
#[derive(Clone, Debug, PartialEq)]
pub struct Game {
    /// The position the game started from (the standard start position, for datagen's games).
    pub start: Position,
    /// Moves played from `start` without a search (datagen's random opening plies); the
    /// searched plies follow them.
    pub opening: Vec<Move>,
    /// 0 Black won, 1 draw, 2 White won.
    pub result: u8,
    /// Each move played, with the search score (White's point of view) of the position it
    /// was played from.
    pub plies: Vec<(Move, i16)>,
}

impl Game {
    /// The position of the first searched ply: `start` after the opening moves.
    pub fn searched_start(&self) -> Position {
        let mut pos = self.start;
        for &mv in &self.opening {
            pos.make_move(mv);
        }
        pos
    }

    /// The positions to train on, as records labelled with their score and the game's
    /// result: those not in check, whose move is quiet and whose score is not a mate.
    pub fn training_records(&self) -> Vec<PackedPosition> {
        let mut pos = self.searched_start();
        let mut records = Vec::new();
        for &(mv, score) in &self.plies {
            if !pos.in_check() && !pos.is_noisy(mv) && i32::from(score).abs() < MATE_BOUND {
                records.push(PackedPosition::pack(&pos, score, self.result));
            }
            pos.make_move(mv);
        }
        records
    }
}

/// A game for the tests of the records: a capture, a check, castling both ways, quiet moves,
/// a mate score; scores as a search gives them.
#[cfg(test)]
pub(super) fn sample_game() -> Game {
    let start =
        Position::from_fen("r3k2r/pppq1ppp/2n5/3pp3/1b1PP3/2N2N2/PPPQ1PPP/R3K2R w KQkq - 2 8")
            .unwrap();
    let mut pos = start;
    let mut plies = Vec::new();
    for (uci, score) in [
        ("d4e5", 30),
        ("d5e4", 25),
        ("e1c1", 20),
        ("e8g8", 22),
        ("f3g5", 40),
        ("d7d2", -31_990),
        ("d1d2", 500),
    ] {
        let mv = pos.legal_moves().iter().copied().find(|m| m.to_uci(false) == uci).unwrap();
        plies.push((mv, score));
        pos.make_move(mv);
    }
    Game { start, opening: Vec::new(), result: 2, plies }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn training_positions_are_quiet_unchecked_and_not_mates() {
        let records = sample_game().training_records();
        // Left out: the capture d4e5 (ply 0) and d5e4 (1), the mate-scored d7d2 (5, also a
        // capture) and the capture d1d2 (6). Kept: the two castlings and f3g5.
        let scores: Vec<i16> = records.iter().map(|r| r.score).collect();
        assert_eq!(scores, [20, 22, 40]);
        assert!(records.iter().all(|r| r.result == 2));
        let first = records[0].to_position().unwrap();
        assert_eq!(first.side_to_move(), crate::chess::Color::White);
    }
}
