//! Move text against positions: UCI and SAN parsing never panic and only return legal moves.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zwischen::chess::Position;

const POSITIONS: &[&str] = &[
    zwischen::chess::START_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1",
];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let pos = Position::from_fen(POSITIONS[selector as usize % POSITIONS.len()]).unwrap();
    for chess960 in [false, true] {
        if let Ok(mv) = pos.parse_uci_move(text, chess960) {
            assert!(pos.legal_moves().contains(mv));
        }
    }
    if let Ok(mv) = pos.parse_san(text) {
        assert!(pos.legal_moves().contains(mv));
    }
});
