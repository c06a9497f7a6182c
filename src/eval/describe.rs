//! The `eval` command's view of the network: each piece's contribution (the evaluation with
//! the piece minus the evaluation without it) on a board, and the network's output.

use std::fmt::Write;

use super::network::Network;
use super::simd;
use crate::chess::{Color, PieceType, Position, Square};

/// Centipawns as pawns with two decimals, signed.
fn pawns(cp: i32) -> String {
    format!("{:+.2}", f64::from(cp) / 100.0)
}

pub fn describe(net: &Network, pos: &Position) -> String {
    let side = pos.side_to_move();
    let accumulators = net.refresh(pos);
    let white_view = |side_view: i32| side_view * side.sign();
    let bucket = net.output_bucket(pos);
    let total = white_view(net.output(&accumulators, side, bucket));
    let slots = Color::BOTH.map(|view| net.king_slot(view, pos.king_square(view)));
    let mut out = String::new();
    let _ = writeln!(out, "Contribution of each piece in pawns, White's view (kings: none):");
    let line = "+-------+-------+-------+-------+-------+-------+-------+-------+";
    for rank in (0..8).rev() {
        let _ = writeln!(out, "{line}");
        let mut letters = String::from("|");
        let mut values = String::from("|");
        for file in 0..8 {
            let square = Square::from_file_rank(file, rank);
            let (letter, value) = match pos.piece_on(square) {
                None => (' ', String::new()),
                Some(piece) if piece.piece_type() == PieceType::King => {
                    (piece.letter(), String::new())
                }
                Some(piece) => {
                    let mut without = accumulators;
                    for view in Color::BOTH {
                        let feature = slots[view.index()].feature(view, piece, square);
                        let row = &net.feature_weights[feature].0;
                        let acc = &mut without[view.index()].0;
                        let before = *acc;
                        simd::apply(acc, &before, &[], &[row]);
                    }
                    // (The same output bucket: the question is what the piece adds.)
                    let rest = white_view(net.output(&without, side, bucket));
                    (piece.letter(), pawns(total - rest))
                }
            };
            let _ = write!(letters, "   {letter}   |");
            let _ = write!(values, "{value:^7}|");
        }
        let _ = writeln!(out, "{letters}\n{values}");
    }
    let _ = writeln!(out, "{line}");
    let _ = writeln!(out, "Network {}", net.identity());
    let _ = writeln!(
        out,
        "NNUE evaluation: {total} cp (White's view), {} cp (side to move)",
        total * side.sign()
    );
    out
}
