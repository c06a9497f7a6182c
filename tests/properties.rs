//! Property tests (proptest): random legal games from varied starts, with shrinking to a
//! minimal failing game when a property breaks.

mod common;

use common::reference::reference_moves;
use common::starts::STARTS;
use proptest::prelude::*;
use zwischen::chess::{Color, Move, MoveKind, PieceType, Position, SEE_VALUES, Square};

/// Plays the game given by `choices` (each picks a legal move by index) from start `start`,
/// calling `check` on every position with the en-passant square a double step just made.
fn play(start: usize, choices: &[u16], mut check: impl FnMut(&Position, Option<Square>)) {
    let mut pos = Position::from_fen(STARTS[start % STARTS.len()]).unwrap();
    let mut en_passant = pos.en_passant();
    for &choice in choices {
        check(&pos, en_passant);
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return;
        }
        let mv = moves.as_slice()[choice as usize % moves.len()];
        let double_step =
            pos.piece_on(mv.from()).is_some_and(|p| p.piece_type() == PieceType::Pawn)
                && mv.from().index().abs_diff(mv.to().index()) == 16;
        en_passant =
            double_step.then(|| Square::new(((mv.from().index() + mv.to().index()) / 2) as u8));
        pos.make_move(mv);
    }
    check(&pos, en_passant);
}

fn sorted(mut moves: Vec<Move>) -> Vec<Move> {
    moves.sort_by_key(|m| m.raw());
    moves
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Legal moves are exactly the rule-derived ones; copies are never changed by moves made
    /// on other copies; keys stay equal to keys from scratch; FEN round-trips.
    #[test]
    fn random_games_keep_every_invariant(start in 0usize..16, choices in prop::collection::vec(any::<u16>(), 0..160)) {
        play(start, &choices, |pos, en_passant| {
            let generated = pos.legal_moves();
            assert_eq!(sorted(generated.as_slice().to_vec()), sorted(reference_moves(pos, en_passant)), "{}", pos.to_fen());
            let before = *pos;
            for &mv in generated.iter() {
                assert!(pos.is_legal(mv));
                let mut child = *pos;
                child.make_move(mv);
                assert_eq!(pos.gives_check(mv), child.in_check(), "{} {mv:?}", pos.to_fen());
                assert_eq!((child.key(), child.pawn_key()), child.compute_keys());
                let non_pawn_keys = [child.non_pawn_key(Color::White), child.non_pawn_key(Color::Black)];
                assert_eq!(non_pawn_keys, child.compute_non_pawn_keys());
            }
            assert_eq!(*pos, before, "making moves on copies changed the original");
            let reparsed = Position::from_fen(&pos.to_fen()).unwrap();
            assert_eq!((reparsed.to_fen(), reparsed.key()), (pos.to_fen(), pos.key()));
        });
    }

    /// Static exchange evaluation is monotone in its threshold and bounded by what is
    /// captured: at least the victim minus the capturer, at most the victim.
    #[test]
    fn see_is_monotone_and_bounded(start in 0usize..16, choices in prop::collection::vec(any::<u16>(), 0..80)) {
        play(start, &choices, |pos, _| {
            for &mv in pos.legal_moves().iter() {
                if matches!(mv.kind(), MoveKind::Castling | MoveKind::Promotion) {
                    continue;
                }
                let victim = pos.captured_type(mv).map_or(0, |v| SEE_VALUES[v.index()]);
                let mover = SEE_VALUES[pos.piece_on(mv.from()).unwrap().piece_type().index()];
                let lowest = if pos.piece_on(mv.from()).unwrap().piece_type() == PieceType::King { victim } else { victim - mover };
                assert!(pos.see_ge(mv, lowest), "{mv:?} in {}", pos.to_fen());
                assert!(!pos.see_ge(mv, victim + 1), "{mv:?} in {}", pos.to_fen());
                let mut last = true;
                for threshold in (-1000..=1000).step_by(50) {
                    let now = pos.see_ge(mv, threshold);
                    assert!(last || !now, "not monotone at {threshold}: {mv:?} in {}", pos.to_fen());
                    last = now;
                }
            }
        });
    }

    /// Every field of a move survives packing into 16 bits.
    #[test]
    fn move_encoding_round_trips(from in 0u8..64, to in 0u8..64, kind in 0u8..4, promotion in 1usize..5) {
        let (from, to) = (Square::new(from), Square::new(to));
        let mv = match kind {
            0 => Move::new(from, to, MoveKind::Normal),
            1 => Move::promotion(from, to, PieceType::ALL[promotion]),
            2 => Move::new(from, to, MoveKind::EnPassant),
            _ => Move::new(from, to, MoveKind::Castling),
        };
        prop_assert_eq!((mv.from(), mv.to()), (from, to));
        prop_assert_eq!(Move::from_raw(mv.raw()), mv);
        prop_assert_eq!(mv.promotion_type().is_some(), kind == 1);
        if kind == 1 {
            prop_assert_eq!(mv.promotion_type(), Some(PieceType::ALL[promotion]));
        }
    }
}
