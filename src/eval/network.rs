//! The quantised network in the engine's layout, the embedded default, and the net in use.

use std::sync::{Arc, LazyLock, RwLock};

use super::file::{Buckets, NetError, QuantisedNet};
use super::{HIDDEN, INPUTS, QA, QB, SCALE, simd};
use crate::chess::{Color, Piece, Position, Square};

/// One row of accumulator-width values, cache-line aligned for the SIMD loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Row(pub [i16; HIDDEN]);

/// Where a perspective's features lie, given where its king stands: the first row of its
/// king bucket, and the square flip (vertical for Black, left-right when mirrored).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KingSlot {
    offset: u32,
    flip: u8,
}

impl KingSlot {
    /// The row of `piece` on `square` seen from `view` with its king in this slot.
    #[inline(always)]
    pub fn feature(self, view: Color, piece: Piece, square: Square) -> usize {
        let relative_color = usize::from(piece.color() != view);
        let square = usize::from(square.index() as u8 ^ self.flip);
        self.offset as usize + relative_color * 384 + piece.piece_type().index() * 64 + square
    }

    /// Index of the slot among all of a net's (for the refresh cache): bucket and mirroring.
    #[inline(always)]
    pub(super) fn cache_index(self) -> usize {
        self.offset as usize / INPUTS * 2 + usize::from(self.flip & 7 != 0)
    }
}

pub struct Network {
    /// One row per input feature of each king bucket.
    pub(super) feature_weights: Vec<Row>,
    pub(super) feature_bias: Row,
    /// Per output bucket: side to move's half, then the other side's.
    pub(super) output_weights: Vec<i16>,
    pub(super) output_bias: Vec<i32>,
    pub(super) buckets: Buckets,
    /// Centipawns per unit of the float output: the file's output scale. The trainer writes
    /// [`SCALE`] (it fits `score / SCALE`); a smaller one makes the engine play the same net
    /// with evaluations shrunk toward 0, which the search's margins may suit better.
    pub scale: u32,
    /// FNV-1a hash of the file's payload, to tell nets apart (with `scale`).
    pub hash: u64,
}

static CURRENT: LazyLock<RwLock<Arc<Network>>> = LazyLock::new(|| {
    let net = Network::from_bytes(super::EMBEDDED_NET).expect("the embedded network is valid");
    RwLock::new(Arc::new(net))
});

/// The network evaluations use now (the embedded one unless `EvalFile` chose another).
pub fn current() -> Arc<Network> {
    CURRENT.read().map_or_else(|poisoned| poisoned.into_inner().clone(), |net| net.clone())
}

/// Makes `net` the one used from the next search on.
pub fn set_current(net: Network) {
    let mut slot = CURRENT.write().unwrap_or_else(|poisoned| poisoned.into_inner());
    *slot = Arc::new(net);
}

/// Goes back to the embedded network.
pub fn use_embedded() {
    set_current(Network::from_bytes(super::EMBEDDED_NET).expect("the embedded network is valid"));
}

impl Network {
    /// Reads a net file; every header field and the payload hash are checked. The output scale
    /// may be any from 1 to 4 * [`SCALE`] (see `scale`).
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetError> {
        let net = QuantisedNet::from_bytes(bytes, INPUTS, HIDDEN)?;
        if net.qa != QA as u32 || net.qb != QB as u32 || net.scale > 4 * SCALE as u32 {
            return Err(NetError::BadQuantisation { scale: net.scale, qa: net.qa, qb: net.qb });
        }
        let hash = super::file::fnv1a(&bytes[super::file::HEADER_BYTES..]);
        Ok(Network::from_quantised(&net, hash))
    }

    /// Copies a stored net into the engine's layout (the sizes must be this build's).
    pub fn from_quantised(net: &QuantisedNet, hash: u64) -> Network {
        let to_row = |values: &[i16]| {
            let mut row = Row([0; HIDDEN]);
            row.0.copy_from_slice(values);
            row
        };
        Network {
            feature_weights: net.feature_weights.chunks_exact(HIDDEN).map(to_row).collect(),
            feature_bias: to_row(&net.feature_bias),
            output_weights: net.output_weights.clone(),
            output_bias: net.output_bias.clone(),
            buckets: net.buckets,
            scale: net.scale,
            hash,
        }
    }

    /// How the engine names the net: its hash, and its output scale where that is not the
    /// trainer's.
    pub fn identity(&self) -> String {
        if self.scale == SCALE as u32 {
            format!("{:016x}", self.hash)
        } else {
            format!("{:016x}, output scale {}", self.hash, self.scale)
        }
    }

    /// The output layer's weights of `bucket`: the side to move's half, then the other side's.
    pub fn output_weights(&self, bucket: usize) -> &[i16] {
        &self.output_weights[bucket * 2 * HIDDEN..(bucket + 1) * 2 * HIDDEN]
    }

    pub fn buckets(&self) -> &Buckets {
        &self.buckets
    }

    /// Where `view`'s features lie with its king on `king`.
    #[inline(always)]
    pub fn king_slot(&self, view: Color, king: Square) -> KingSlot {
        let vertical = if view == Color::White { 0 } else { 56 };
        let (bucket, horizontal) = self.buckets.king_slot(king.index() as u8 ^ vertical);
        KingSlot { offset: u32::from(bucket) * INPUTS as u32, flip: vertical ^ horizontal }
    }

    /// Slots a refresh cache needs per perspective: two (mirrored or not) per king bucket.
    pub(super) fn slot_count(&self) -> usize {
        2 * self.buckets.king_buckets()
    }

    /// `view`'s accumulator of `pos`, computed from scratch.
    pub fn refresh_view(&self, pos: &Position, view: Color) -> Row {
        let slot = self.king_slot(view, pos.king_square(view));
        let mut accumulator = self.feature_bias;
        for square in pos.occupied() {
            let piece = pos.piece_on(square).expect("occupied square has a piece");
            let row = &self.feature_weights[slot.feature(view, piece, square)];
            simd::add_in_place(&mut accumulator.0, &row.0);
        }
        accumulator
    }

    /// Both perspectives' accumulators of `pos`, computed from scratch.
    pub fn refresh(&self, pos: &Position) -> [Row; 2] {
        [self.refresh_view(pos, Color::White), self.refresh_view(pos, Color::Black)]
    }

    /// The output bucket of `pos`.
    #[inline(always)]
    pub fn output_bucket(&self, pos: &Position) -> usize {
        self.buckets.output_bucket(pos.occupied().count())
    }

    /// Centipawns for the side to move from the two accumulators (indexed by colour), with
    /// the output layer of `bucket`.
    #[inline]
    pub fn output(&self, accumulators: &[Row; 2], side: Color, bucket: usize) -> i32 {
        let us = &accumulators[side.index()].0;
        let them = &accumulators[(!side).index()].0;
        // The kernel sums half squares; twice its sum over QA is in units of QA * QB.
        let sum = i64::from(simd::screlu_output(us, them, self.output_weights(bucket)));
        let raw = 2 * sum / i64::from(QA) + i64::from(self.output_bias[bucket]);
        (raw * i64::from(self.scale) / i64::from(QA * QB)) as i32
    }

    /// Evaluation of `pos` from scratch: centipawns, side to move's view.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        self.output(&self.refresh(pos), pos.side_to_move(), self.output_bucket(pos))
    }
}
