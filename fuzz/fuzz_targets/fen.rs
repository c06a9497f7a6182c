//! Any string given as a FEN: parsing never panics, and an accepted position round-trips,
//! has consistent keys and a move generator that agrees with its own legality check.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zwischen::chess::Position;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(pos) = Position::from_fen(text) else { return };
    let fen = pos.to_fen();
    let again = Position::from_fen(&fen).expect("a written FEN parses");
    assert_eq!(again.to_fen(), fen);
    assert_eq!((pos.key(), pos.pawn_key()), pos.compute_keys());
    let moves = pos.legal_moves();
    assert_eq!(moves.len() as u64, pos.count_legal_moves());
    for &mv in moves.iter() {
        assert!(pos.is_legal(mv));
        let mut child = pos;
        child.make_move(mv);
        assert_eq!((child.key(), child.pawn_key()), child.compute_keys());
        let _ = child.to_san(mv);
    }
    let _ = zwischen::chess::perft(&pos, 2);
    let _ = zwischen::eval::current().evaluate(&pos);
});
