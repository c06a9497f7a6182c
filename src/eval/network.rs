//! The quantised network in the engine's layout, the embedded default, and the net in use.

use std::sync::{Arc, LazyLock, RwLock};

use super::file::{NetError, QuantisedNet};
use super::{HIDDEN, INPUTS, QA, QB, SCALE, simd};
use crate::chess::{Color, Position};

/// One row of accumulator-width values, cache-line aligned for the SIMD loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Row(pub [i16; HIDDEN]);

pub struct Network {
    /// One row per input feature.
    pub(super) feature_weights: Vec<Row>,
    pub(super) feature_bias: Row,
    /// Side to move's half, then the other side's.
    pub(super) output_weights: Vec<i16>,
    pub(super) output_bias: i32,
    /// FNV-1a hash of the file's payload, to tell nets apart.
    pub hash: u64,
}

/// The net built into the binary; see the README section "The network" for its lineage.
static EMBEDDED: &[u8] = include_bytes!("zwischen.nnue");

static CURRENT: LazyLock<RwLock<Arc<Network>>> = LazyLock::new(|| {
    let net = Network::from_bytes(EMBEDDED).expect("the embedded network is valid");
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
    set_current(Network::from_bytes(EMBEDDED).expect("the embedded network is valid"));
}

impl Network {
    /// Reads a net file; every header field and the payload hash are checked.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetError> {
        let net = QuantisedNet::from_bytes(bytes, INPUTS, HIDDEN)?;
        if net.scale != SCALE as u32 || net.qa != QA as u32 || net.qb != QB as u32 {
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
            output_bias: net.output_bias,
            hash,
        }
    }

    /// The output layer's weights: the side to move's half, then the other side's.
    pub fn output_weights(&self) -> &[i16] {
        &self.output_weights
    }

    /// Both perspectives' accumulators of `pos`, computed from scratch.
    pub fn refresh(&self, pos: &Position) -> [Row; 2] {
        let mut accumulators = [self.feature_bias; 2];
        for square in pos.occupied() {
            let piece = pos.piece_on(square).expect("occupied square has a piece");
            for view in Color::BOTH {
                let row = &self.feature_weights[super::feature_index(view, piece, square)];
                simd::add_in_place(&mut accumulators[view.index()].0, &row.0);
            }
        }
        accumulators
    }

    /// Centipawns for the side to move from the two accumulators (indexed by colour).
    #[inline]
    pub fn output(&self, accumulators: &[Row; 2], side: Color) -> i32 {
        let us = &accumulators[side.index()].0;
        let them = &accumulators[(!side).index()].0;
        // The kernel sums half squares; twice its sum over QA is in units of QA * QB.
        let sum = i64::from(simd::screlu_output(us, them, &self.output_weights));
        let raw = 2 * sum / i64::from(QA) + i64::from(self.output_bias);
        (raw * i64::from(SCALE) / i64::from(QA * QB)) as i32
    }

    /// Evaluation of `pos` from scratch: centipawns, side to move's view.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        self.output(&self.refresh(pos), pos.side_to_move())
    }
}
