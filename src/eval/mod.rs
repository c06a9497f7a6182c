//! The evaluation: a perspective neural network (NNUE) (768 x K -> HIDDEN) x 2 -> B with a
//! squared clipped ReLU, its accumulators updated incrementally as moves are made.
//!
//! Each side has an accumulator: the feature biases plus the feature weights of every piece,
//! seen from that side (its own pieces first, the board flipped vertically for Black). The
//! weights come from one of K king buckets, chosen by where that side's king stands; a net may
//! also mirror the board left-right when that king is on files e-h (see [`file::Buckets`]).
//! The output concatenates the side to move's accumulator and the other's, activates them with
//! `clamp(x, 0, 1)^2` and takes a weighted sum with the weights of one of B output buckets,
//! chosen by the number of pieces; the result times the file's output scale (the trainer
//! writes [`SCALE`]) is centipawns. The embedded net has K = 1 and B = 8.

mod accumulator;
mod describe;
pub mod file;
mod network;
pub mod simd;

pub use accumulator::AccumulatorStack;
pub use describe::describe;
pub use network::{KingSlot, Network, Row, current, set_current, use_embedded};

use crate::chess::{Color, Piece, Square};

/// Piece-square inputs of one king bucket: 2 colours (relative to the perspective) x 6 types x 64 squares.
pub const INPUTS: usize = 768;
/// The net built into the binary (`zwischen.nnue`); see the README section "The network" for
/// its lineage.
const EMBEDDED_NET: &[u8] = include_bytes!("zwischen.nnue");
/// Width of each perspective's accumulator: the embedded net's, read from its header at
/// compile time, so that a net of another width lands by replacing the file alone.
pub const HIDDEN: usize = match file::declared_hidden(EMBEDDED_NET) {
    Some(hidden) => hidden,
    None => panic!("the embedded net has no ZWNN header"),
};
/// Feature-layer quantisation: float 1.0 is `QA`; the activation clips at `QA`.
pub const QA: i32 = 255;
/// Output-layer quantisation: float 1.0 is `QB`. (64 rounded the typical output weight, about
/// 0.1, by up to 8 %, some 10 cp of noise in the evaluation; 256 keeps it below 1 cp.)
pub const QB: i32 = 256;
/// Centipawns per unit of the float output as the trainer fits it (`sigmoid(score / SCALE)`)
/// and writes it into a net file; the engine uses each file's own scale.
pub const SCALE: i32 = 400;
/// Largest float weight magnitude the trainer allows, so that no accumulator can overflow and
/// the output kernel's i32 lanes cannot either (see `simd::avx2`).
pub const WEIGHT_CLIP: f32 = 1.98;

/// The input index of `piece` on `square` as seen from `view`, before king buckets and
/// mirroring (the trainer's base features).
#[inline(always)]
pub fn feature_index(view: Color, piece: Piece, square: Square) -> usize {
    let relative_color = usize::from(piece.color() != view);
    let square = if view == Color::White { square.index() } else { square.index() ^ 56 };
    relative_color * 384 + piece.piece_type().index() * 64 + square
}
