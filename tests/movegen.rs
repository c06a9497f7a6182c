//! Random games check the move generator against a slow reference generator written from the
//! rules (pseudo-legal moves filtered by "own king not attacked"), and check that hash keys
//! and FEN survive every move.

mod common;

use common::reference::reference_moves;
use common::starts::STARTS;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use zwischen::chess::{Color, Move, PieceType, Position, Square};

fn sorted(mut moves: Vec<Move>) -> Vec<Move> {
    moves.sort_by_key(|m| m.raw());
    moves
}

#[test]
fn generator_matches_reference_and_keys_stay_exact() {
    let mut rng = StdRng::seed_from_u64(2026);
    let mut positions = 0;
    for game in 0..400 {
        let mut pos = Position::from_fen(STARTS[game % STARTS.len()]).unwrap();
        let mut en_passant = pos.en_passant();
        for _ in 0..250 {
            let generated = pos.legal_moves();
            assert_eq!(
                sorted(generated.as_slice().to_vec()),
                sorted(reference_moves(&pos, en_passant)),
                "moves of {}",
                pos.to_fen()
            );
            assert_eq!(generated.len() as u64, pos.count_legal_moves());
            // Captures+promotions and quiet moves split the legal moves exactly.
            let split = sorted(
                pos.noisy_moves()
                    .as_slice()
                    .iter()
                    .chain(pos.quiet_moves().as_slice())
                    .copied()
                    .collect(),
            );
            assert_eq!(split, sorted(generated.as_slice().to_vec()));
            // Every possible 16-bit move is judged legal exactly when it is generated
            // (on a sample of positions: 65,536 candidates each).
            if positions % 97 == 0 {
                for raw in 0..=u16::MAX {
                    let mv = Move::from_raw(raw);
                    assert_eq!(
                        pos.is_legal(mv),
                        generated.contains(mv),
                        "{mv:?} in {}",
                        pos.to_fen()
                    );
                }
            } else {
                for &mv in generated.iter() {
                    assert!(pos.is_legal(mv), "{mv:?} in {}", pos.to_fen());
                }
            }
            // Incremental keys equal keys computed from scratch, and FEN round-trips.
            assert_eq!((pos.key(), pos.pawn_key()), pos.compute_keys(), "{}", pos.to_fen());
            let reparsed = Position::from_fen(&pos.to_fen()).unwrap();
            assert_eq!(reparsed.to_fen(), pos.to_fen());
            assert_eq!(reparsed.key(), pos.key());
            assert_eq!(reparsed.checkers(), pos.checkers());
            assert_eq!(reparsed.pinned(), pos.pinned());
            positions += 1;

            if generated.is_empty() || pos.halfmove_clock() >= 100 {
                break;
            }
            let mv = generated.as_slice()[rng.random_range(0..generated.len())];
            let double_step =
                pos.piece_on(mv.from()).is_some_and(|p| p.piece_type() == PieceType::Pawn)
                    && mv.from().index().abs_diff(mv.to().index()) == 16;
            en_passant =
                double_step.then(|| Square::new(((mv.from().index() + mv.to().index()) / 2) as u8));
            pos.make_move(mv);
        }
    }
    assert!(positions > 20_000, "only {positions} positions visited");
}

#[test]
fn null_move_flips_side_and_key() {
    let mut pos =
        Position::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
            .unwrap();
    let before = pos.key();
    pos.make_null_move();
    assert_eq!(pos.side_to_move(), Color::Black);
    assert_ne!(pos.key(), before);
    assert_eq!((pos.key(), pos.pawn_key()), pos.compute_keys());
    pos.make_null_move();
    assert_eq!(pos.key(), before);
}
