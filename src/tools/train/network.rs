//! The float network: the engine's architecture, (768 x K -> H) x 2 -> B with a squared
//! clipped ReLU, in `f32`, with its forward pass, its gradient and its quantisation.
//!
//! All parameters live in one vector, which is also the layout of gradients, optimiser moments
//! and checkpoints: feature weights `[K (+1)][768][H]` (bucket-, then feature-major; with the
//! factoriser one more block of 768 rows shared by every king bucket), feature biases `[H]`,
//! output weights `[B][2H]` (side to move's half first), output biases `[B]`.
//!
//! A perspective's features are the pieces seen from its side, mirrored left-right when the
//! net mirrors and its king is on files e-h, in the rows of its king's bucket
//! ([`Buckets::king_slot`], the engine's rule). The factoriser adds the same piece-square's
//! shared row to every bucket's: buckets that see a feature rarely still learn from all the
//! positions. The quantised net folds the shared rows into each bucket's, so the engine never
//! sees them. Training does the same for its forward pass (one row a feature), and the shared
//! rows' gradient is the sum of the buckets' (added once a batch): the factoriser then costs
//! two passes over the feature weights a step rather than twice the rows a position.

use std::borrow::Cow;
use std::ops::Range;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::data::{Sample, flip};
use crate::chess::{Color, Position};
use crate::eval::file::{Buckets, QuantisedNet};
use crate::eval::{INPUTS, QA, QB, SCALE, WEIGHT_CLIP, feature_index};

/// The shape of a network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Architecture {
    pub hidden: usize,
    pub buckets: Buckets,
    /// Shared feature rows added to every king bucket's while training.
    pub factoriser: bool,
}

impl Architecture {
    /// The plain (768 -> H) x 2 -> 1 network.
    pub fn plain(hidden: usize) -> Architecture {
        Architecture { hidden, buckets: Buckets::NONE, factoriser: false }
    }

    /// Feature-weight rows: every king bucket's, and the shared ones with the factoriser.
    pub fn feature_rows(&self) -> usize {
        (self.buckets.king_buckets() + usize::from(self.factoriser)) * INPUTS
    }

    pub fn param_count(&self) -> usize {
        let (h, outputs) = (self.hidden, self.buckets.output);
        self.feature_rows() * h + h + outputs * 2 * h + outputs
    }

    /// The largest magnitude of a feature-weight parameter: a bucket's row and the shared row
    /// together must stay within [`WEIGHT_CLIP`].
    fn feature_clip(&self) -> f32 {
        if self.factoriser { WEIGHT_CLIP / 2.0 } else { WEIGHT_CLIP }
    }
}

/// King-bucket layouts on the half board the king is mirrored into (files a-d, a1 = square
/// 0), for `count` buckets: finer near the home rank, where the king usually is.
pub fn king_layout(count: usize) -> Option<Buckets> {
    let bucket = |file: usize, rank: usize| -> usize {
        match count {
            2 => usize::from(rank >= 2),
            4 => match rank {
                0 => file / 2,
                1 => 2,
                _ => 3,
            },
            8 => match rank {
                0 => file,
                1 => 4 + file / 2,
                2 | 3 => 6,
                _ => 7,
            },
            16 => match rank {
                0 | 1 => rank * 4 + file,
                2 | 3 => 8 + (rank - 2) * 2 + file / 2,
                4 | 5 => 12 + file / 2,
                _ => 14 + file / 2,
            },
            _ => 0,
        }
    };
    if !matches!(count, 2 | 4 | 8 | 16) {
        return (count == 1).then_some(Buckets::NONE);
    }
    let mut king_map = [0u8; 64];
    for (square, slot) in king_map.iter_mut().enumerate() {
        let (file, rank) = (square % 8, square / 8);
        // Files e-h are never looked up when mirrored; give them the mirror's bucket.
        *slot = bucket(file.min(7 - file), rank) as u8;
    }
    Some(Buckets { king_map, mirrored: true, output: 1 })
}

#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    architecture: Architecture,
    params: Vec<f32>,
    /// With the factoriser: every bucket's feature rows with the shared rows added, which is
    /// what the forward pass reads (one row a feature instead of two). Rebuilt by
    /// [`Network::refold`]; empty when the parameters changed since, or without the factoriser.
    folded: Vec<f32>,
}

/// Per-thread working memory for one position: both perspectives' feature rows, both
/// accumulators and their gradients.
#[derive(Clone, Debug)]
pub struct Scratch {
    white_rows: Vec<u32>,
    black_rows: Vec<u32>,
    white: Vec<f32>,
    black: Vec<f32>,
    d_us: Vec<f32>,
    d_them: Vec<f32>,
}

impl Scratch {
    pub fn new(hidden: usize) -> Scratch {
        Scratch {
            white_rows: Vec::with_capacity(64),
            black_rows: Vec::with_capacity(64),
            white: vec![0.0; hidden],
            black: vec![0.0; hidden],
            d_us: vec![0.0; hidden],
            d_them: vec![0.0; hidden],
        }
    }
}

#[inline(always)]
fn add(dst: &mut [f32], src: &[f32]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d += s;
    }
}

/// Columns of the accumulators summed at a time, kept in registers while the feature rows of
/// a position are added (4 AVX-512 or 8 AVX2 registers per view).
const TILE: usize = 64;

/// Sets `white` and `black` to the feature biases plus the feature-weight rows listed for
/// each, `TILE` columns at a time.
#[inline(always)]
fn accumulate(fw: &[f32], fb: &[f32], rows: [&[u32]; 2], white: &mut [f32], black: &mut [f32]) {
    let h = fb.len();
    let [white_rows, black_rows] = rows;
    let mut start = 0;
    while start + TILE <= h {
        let mut w: [f32; TILE] = fb[start..start + TILE].try_into().expect("a tile");
        let mut b = w;
        for (acc, rows) in [(&mut w, white_rows), (&mut b, black_rows)] {
            for &row in rows {
                let row = row as usize * h + start;
                for (a, x) in acc.iter_mut().zip(&fw[row..row + TILE]) {
                    *a += x;
                }
            }
        }
        white[start..start + TILE].copy_from_slice(&w);
        black[start..start + TILE].copy_from_slice(&b);
        start += TILE;
    }
    if start < h {
        for (acc, rows) in [(&mut *white, white_rows), (&mut *black, black_rows)] {
            acc[start..].copy_from_slice(&fb[start..]);
            for &row in rows {
                let row = row as usize * h;
                add(&mut acc[start..], &fw[row + start..row + h]);
            }
        }
    }
}

/// Adds `d_white` to the gradient of each white-perspective row and `d_black` to each
/// black-perspective row (the lists are equally long, one entry per feature), `TILE` columns
/// at a time with the tile of `d` held in registers.
#[inline(always)]
fn scatter(g_fw: &mut [f32], rows: [&[u32]; 2], d_white: &[f32], d_black: &[f32]) {
    let h = d_white.len();
    let [white_rows, black_rows] = rows;
    let mut start = 0;
    while start + TILE <= h {
        let w: [f32; TILE] = d_white[start..start + TILE].try_into().expect("a tile");
        let b: [f32; TILE] = d_black[start..start + TILE].try_into().expect("a tile");
        for (&white, &black) in white_rows.iter().zip(black_rows) {
            for (row, tile) in [(white, &w), (black, &b)] {
                let row = row as usize * h + start;
                for (g, x) in g_fw[row..row + TILE].iter_mut().zip(tile) {
                    *g += x;
                }
            }
        }
        start += TILE;
    }
    if start < h {
        for (&white, &black) in white_rows.iter().zip(black_rows) {
            for (row, d) in [(white, d_white), (black, d_black)] {
                let row = row as usize * h;
                add(&mut g_fw[row + start..row + h], &d[start..]);
            }
        }
    }
}

/// `sum_i screlu(acc[i]) * w[i]`, in eight independent lanes so that it vectorises.
#[inline(always)]
fn screlu_dot(acc: &[f32], w: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 8];
    let (acc_chunks, w_chunks) = (acc.chunks_exact(8), w.chunks_exact(8));
    let (acc_rest, w_rest) = (acc_chunks.remainder(), w_chunks.remainder());
    for (a, w) in acc_chunks.zip(w_chunks) {
        for k in 0..8 {
            let c = a[k].clamp(0.0, 1.0);
            lanes[k] += c * c * w[k];
        }
    }
    for (a, w) in acc_rest.iter().zip(w_rest) {
        let c = a.clamp(0.0, 1.0);
        lanes[0] += c * c * w;
    }
    lanes.iter().sum()
}

/// Gradient through one half of the output layer: adds `d * screlu(acc)` to the output
/// weights' gradient and sets `d_acc` to the gradient with respect to the accumulator.
#[inline(always)]
fn output_backward(d: f32, acc: &[f32], w: &[f32], g_w: &mut [f32], d_acc: &mut [f32]) {
    for (((a, w), gw), da) in acc.iter().zip(w).zip(g_w.iter_mut()).zip(d_acc.iter_mut()) {
        let c = a.clamp(0.0, 1.0);
        *gw += d * c * c;
        // d/da clamp(a, 0, 1)^2 = 2a inside (0, 1), 0 outside.
        *da = if *a < 1.0 { 2.0 * d * c * w } else { 0.0 };
    }
}

/// Clamps `values` to ±`limit`.
#[inline]
pub fn clip(values: &mut [f32], limit: f32) {
    for value in values {
        *value = value.clamp(-limit, limit);
    }
}

/// Where a perspective's features go with its king on `king` (White-view square index):
/// the first row of its bucket and the file flip.
#[inline(always)]
fn slot(buckets: &Buckets, view: Color, king: u8) -> (usize, usize) {
    let relative = if view == Color::White { king } else { king ^ 56 };
    let (bucket, horizontal) = buckets.king_slot(relative);
    (usize::from(bucket) * INPUTS, usize::from(horizontal))
}

impl Network {
    /// A plain network of width `hidden` (see [`Network::with_architecture`]).
    pub fn new(hidden: usize, seed: u64) -> Network {
        Network::with_architecture(Architecture::plain(hidden), seed)
    }

    /// A new network with parameters drawn from `seed`. Feature weights are uniform in
    /// ±1/sqrt(32): about 32 features are active, so each accumulator starts with a spread of
    /// about 0.6 around 0, across the working range of the clipped ReLU and well inside the
    /// weight clip (with the factoriser, the shared rows start at 0 and each bucket's row
    /// carries the spread). Output weights are uniform in ±1/sqrt(2H), the usual fan-in
    /// scaling, which keeps the first outputs within some tens of centipawns. Biases start
    /// at 0.
    pub fn with_architecture(architecture: Architecture, seed: u64) -> Network {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut params = vec![0.0f32; architecture.param_count()];
        let feature_range = 1.0 / 32f32.sqrt();
        let output_range = 1.0 / ((2 * architecture.hidden) as f32).sqrt();
        let net = Network { architecture, params: Vec::new(), folded: Vec::new() };
        let bucket_weights = 0..architecture.buckets.king_buckets() * INPUTS * architecture.hidden;
        for value in &mut params[bucket_weights] {
            *value = rng.random_range(-feature_range..feature_range);
        }
        for value in &mut params[net.output_weight_range()] {
            *value = rng.random_range(-output_range..output_range);
        }
        Network::assemble(architecture, params)
    }

    /// The float network a quantised one stands for (each value divided by its scale), to
    /// train on from there. Without the factoriser: the file's rows are each bucket's whole
    /// weight, and with shared rows the factoriser's tighter clip would cut them.
    pub fn from_quantised(net: &QuantisedNet) -> Network {
        let architecture =
            Architecture { hidden: net.hidden, buckets: net.buckets, factoriser: false };
        fn scaled(values: &[i16], scale: i32) -> impl Iterator<Item = f32> + '_ {
            values.iter().map(move |&x| f32::from(x) / scale as f32)
        }
        let mut params = Vec::with_capacity(architecture.param_count());
        params.extend(scaled(&net.feature_weights, QA));
        params.extend(scaled(&net.feature_bias, QA));
        params.extend(scaled(&net.output_weights, QB));
        params.extend(net.output_bias.iter().map(|&b| b as f32 / (QA * QB) as f32));
        Network::assemble(architecture, params)
    }

    /// The network of `params` (as many as `architecture` needs), its folded rows built.
    fn assemble(architecture: Architecture, params: Vec<f32>) -> Network {
        let mut net = Network { architecture, params, folded: Vec::new() };
        net.refold();
        net
    }

    /// A plain network with the given parameters, if there are as many as `hidden` needs.
    pub fn from_params(hidden: usize, params: Vec<f32>) -> Option<Network> {
        Network::from_parts(Architecture::plain(hidden), params)
    }

    /// A network with the given parameters, if there are as many as `architecture` needs.
    pub fn from_parts(architecture: Architecture, params: Vec<f32>) -> Option<Network> {
        (params.len() == architecture.param_count())
            .then(|| Network::assemble(architecture, params))
    }

    pub fn architecture(&self) -> &Architecture {
        &self.architecture
    }

    pub fn hidden(&self) -> usize {
        self.architecture.hidden
    }

    pub fn params(&self) -> &[f32] {
        &self.params
    }

    /// The parameters to change; call [`Network::refold`] afterwards (until then the forward
    /// pass folds the shared rows in anew for every position, which is correct but slow).
    pub fn params_mut(&mut self) -> &mut [f32] {
        self.folded.clear();
        &mut self.params
    }

    /// Rebuilds the folded feature rows the forward pass reads (see `folded`).
    pub fn refold(&mut self) {
        self.folded = self.fold_shared_rows();
    }

    /// The feature weights as the engine and the forward pass use them: each king bucket's
    /// rows, with the factoriser's shared rows folded in (kept in `folded` while fresh).
    fn bucket_weights(&self) -> Cow<'_, [f32]> {
        match (self.architecture.factoriser, self.folded.is_empty()) {
            (false, _) => Cow::Borrowed(&self.params[..self.feature_weight_range().end]),
            (true, false) => Cow::Borrowed(&self.folded),
            (true, true) => Cow::Owned(self.fold_shared_rows()),
        }
    }

    /// Each king bucket's feature rows plus the shared rows (empty without the factoriser).
    fn fold_shared_rows(&self) -> Vec<f32> {
        if !self.architecture.factoriser {
            return Vec::new();
        }
        let bucket_len = INPUTS * self.hidden();
        let fw = &self.params[..self.feature_weight_range().end];
        let (buckets, shared) = fw.split_at(fw.len() - bucket_len);
        let mut folded = buckets.to_vec();
        for bucket in folded.chunks_exact_mut(bucket_len) {
            add(bucket, shared);
        }
        folded
    }

    /// Adds the shared rows' gradient to `grad`, whose other feature rows hold the gradient
    /// of some positions (see [`Network::backward`]): a shared row is in every position that
    /// has the same feature in any bucket's row, so its gradient is the sum over the buckets.
    /// Call it once for all the positions added since `grad` was cleared.
    pub fn complete_gradient(&self, grad: &mut [f32]) {
        if !self.architecture.factoriser {
            return;
        }
        let bucket_len = INPUTS * self.hidden();
        let kings = self.architecture.buckets.king_buckets();
        let (buckets, shared) =
            grad[..self.feature_weight_range().end].split_at_mut(bucket_len * kings);
        for bucket in buckets.chunks_exact(bucket_len) {
            add(shared, bucket);
        }
    }

    pub fn feature_weight_range(&self) -> Range<usize> {
        0..self.architecture.feature_rows() * self.hidden()
    }

    pub fn feature_bias_range(&self) -> Range<usize> {
        let start = self.feature_weight_range().end;
        start..start + self.hidden()
    }

    pub fn output_weight_range(&self) -> Range<usize> {
        let start = self.feature_bias_range().end;
        start..start + self.architecture.buckets.output * 2 * self.hidden()
    }

    pub fn output_bias_range(&self) -> Range<usize> {
        let start = self.output_weight_range().end;
        start..start + self.architecture.buckets.output
    }

    /// The parameters in consecutive groups with how the optimiser treats them: (range, weight
    /// decay, clip limit). Decay applies to the two weight matrices, clipping to everything
    /// but the output biases.
    pub fn groups(&self) -> [(Range<usize>, bool, Option<f32>); 4] {
        [
            (self.feature_weight_range(), true, Some(self.architecture.feature_clip())),
            (self.feature_bias_range(), false, Some(WEIGHT_CLIP)),
            (self.output_weight_range(), true, Some(WEIGHT_CLIP)),
            (self.output_bias_range(), false, None),
        ]
    }

    /// The feature biases, output weights and output biases (the feature weights are read
    /// through `bucket_weights`).
    fn dense_parts(&self) -> (&[f32], &[f32], &[f32]) {
        let rest = &self.params[self.feature_weight_range().end..];
        let (fb, rest) = rest.split_at(self.hidden());
        let (ow, ob) = rest.split_at(self.output_weight_range().len());
        (fb, ow, ob)
    }

    /// Fills `scratch`'s row lists for a position given by its White-view features: its
    /// king buckets' rows (without the factoriser's shared rows, which the forward pass reads
    /// folded in and the gradient gets from [`Network::complete_gradient`]).
    #[inline(always)]
    fn feature_rows(&self, features: &[u16], scratch: &mut Scratch) {
        let buckets = &self.architecture.buckets;
        // King squares from the features: own king (White's) 320..384, Black's 704..768.
        let mut kings = [0u8; 2];
        for &f in features {
            if f % 384 >= 320 {
                kings[usize::from(f >= 384)] = (f % 64) as u8;
            }
        }
        let (white_offset, white_flip) = slot(buckets, Color::White, kings[0]);
        let (black_offset, black_flip) = slot(buckets, Color::Black, kings[1]);
        scratch.white_rows.clear();
        scratch.black_rows.clear();
        for &f in features {
            let (white, black) = (usize::from(f) ^ white_flip, flip(usize::from(f)) ^ black_flip);
            scratch.white_rows.push((white_offset + white) as u32);
            scratch.black_rows.push((black_offset + black) as u32);
        }
    }

    /// The output bucket of a position with `pieces` pieces.
    #[inline(always)]
    fn output_bucket(&self, pieces: usize) -> usize {
        self.architecture.buckets.output_bucket(pieces as u32)
    }

    /// The raw output (side to move's view, 1.0 = [`SCALE`] centipawns) for a position given
    /// by its White-view features; leaves both accumulators in `scratch`.
    #[inline]
    pub fn output(&self, features: &[u16], side: Color, scratch: &mut Scratch) -> f32 {
        let h = self.hidden();
        let (fb, ow, ob) = self.dense_parts();
        self.feature_rows(features, scratch);
        let Scratch { white_rows, black_rows, white, black, .. } = scratch;
        accumulate(&self.bucket_weights(), fb, [white_rows, black_rows], white, black);
        let (us, them) = match side {
            Color::White => (&*white, &*black),
            Color::Black => (&*black, &*white),
        };
        let bucket = self.output_bucket(features.len());
        let ow = &ow[bucket * 2 * h..(bucket + 1) * 2 * h];
        screlu_dot(us, &ow[..h]) + screlu_dot(them, &ow[h..]) + ob[bucket]
    }

    /// Adds the gradient of a loss whose derivative by the output on `sample` is `d` to `grad`
    /// (laid out like the parameters), but for the factoriser's shared rows, which
    /// [`Network::complete_gradient`] adds afterwards for a whole batch. `scratch` must hold
    /// [`Network::output`]'s work on the same sample.
    #[inline]
    pub fn backward(&self, sample: &Sample, d: f32, scratch: &mut Scratch, grad: &mut [f32]) {
        let h = self.hidden();
        let bucket = self.output_bucket(sample.features().len());
        let (_, ow, _) = self.dense_parts();
        let ow = &ow[bucket * 2 * h..(bucket + 1) * 2 * h];
        let (g_fw, rest) = grad.split_at_mut(self.feature_weight_range().end);
        let (g_fb, rest) = rest.split_at_mut(h);
        let (g_ow, g_ob) = rest.split_at_mut(self.output_weight_range().len());
        g_ob[bucket] += d;
        let Scratch { white_rows, black_rows, white, black, d_us, d_them } = scratch;
        let (us, them) = match sample.side {
            Color::White => (&*white, &*black),
            Color::Black => (&*black, &*white),
        };
        let (g_ow_us, g_ow_them) = g_ow[bucket * 2 * h..(bucket + 1) * 2 * h].split_at_mut(h);
        output_backward(d, us, &ow[..h], g_ow_us, d_us);
        output_backward(d, them, &ow[h..], g_ow_them, d_them);
        for ((g, a), b) in g_fb.iter_mut().zip(d_us.iter()).zip(d_them.iter()) {
            *g += a + b;
        }
        let (d_white, d_black) = match sample.side {
            Color::White => (&*d_us, &*d_them),
            Color::Black => (&*d_them, &*d_us),
        };
        scatter(g_fw, [white_rows, black_rows], d_white, d_black);
    }

    /// The float evaluation of `pos` in centipawns from the side to move's point of view.
    pub fn evaluate(&self, pos: &Position) -> f32 {
        let features: Vec<u16> = pos
            .occupied()
            .map(|square| {
                let piece = pos.piece_on(square).expect("occupied square has a piece");
                feature_index(Color::White, piece, square) as u16
            })
            .collect();
        let mut scratch = Scratch::new(self.hidden());
        self.output(&features, pos.side_to_move(), &mut scratch) * SCALE as f32
    }

    /// Keeps every weight and every feature bias within its clip limit (see [`groups`]), so
    /// quantised values fit the engine's integer kernels (a clipped accumulator is at most
    /// 33 * 1.98 * 255 in magnitude, far inside i16). The output biases are left free; they
    /// are i32 in the file.
    ///
    /// [`groups`]: Network::groups
    pub fn clip(&mut self) {
        for (range, _, limit) in self.groups() {
            if let Some(limit) = limit {
                clip(&mut self.params[range], limit);
            }
        }
        self.refold();
    }

    /// The network as the engine stores it: feature weights (each bucket's row plus the
    /// shared one) and biases `round(x * QA)` as i16, output weights `round(x * QB)` as i16,
    /// output biases `round(x * QA * QB)` as i32 (products in f32, rounding half away from
    /// zero, saturating at the type's bounds).
    pub fn quantise(&self) -> QuantisedNet {
        let (fb, ow, ob) = self.dense_parts();
        let quantise = |values: &[f32], scale: i32| -> Vec<i16> {
            values.iter().map(|&x| (x * scale as f32).round() as i16).collect()
        };
        let architecture = &self.architecture;
        QuantisedNet {
            inputs: INPUTS,
            hidden: self.hidden(),
            buckets: architecture.buckets,
            scale: SCALE as u32,
            qa: QA as u32,
            qb: QB as u32,
            feature_weights: quantise(&self.bucket_weights(), QA),
            feature_bias: quantise(fb, QA),
            output_weights: quantise(ow, QB),
            output_bias: ob.iter().map(|&b| (b * (QA * QB) as f32).round() as i32).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::PieceType;
    use crate::eval::HIDDEN;
    use crate::tools::train::data::{Dataset, Samples};
    use crate::tools::train::loss::{self, Target};

    const FENS: [&str; 6] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
        "8/2k5/8/3q4/8/8/5PP1/6K1 w - - 0 40",
        "4k3/8/8/8/8/8/4P3/R3K3 b Q - 0 1",
        "6k1/5ppp/8/8/8/8/1K6/8 w - - 0 50",
        "r1bq1rk1/pp3ppp/2n5/3p4/3P4/2NB4/PP3PPP/R2QK2R b KQ - 0 12",
    ];

    fn dataset() -> Dataset {
        let mut data = Dataset::default();
        for (i, fen) in FENS.iter().enumerate() {
            let pos = Position::from_fen(fen).unwrap();
            let pieces = pos.occupied().map(|sq| (pos.piece_on(sq).unwrap(), sq));
            data.push(pieces, pos.side_to_move(), 120 * i as i16 - 200, (i % 3) as u8);
        }
        data
    }

    /// Eight king buckets, mirrored, three output buckets, with the factoriser.
    fn bucketed(hidden: usize) -> Architecture {
        let buckets = Buckets { output: 3, ..king_layout(8).unwrap() };
        Architecture { hidden, buckets, factoriser: true }
    }

    /// No king buckets, the inputs mirrored (`--king-mirror`), two output buckets.
    fn king_mirrored(hidden: usize) -> Architecture {
        let buckets = Buckets { mirrored: true, output: 2, ..Buckets::NONE };
        Architecture { hidden, buckets, factoriser: false }
    }

    /// The feature-weight rows of `view` for a position's White-view features, spelt out
    /// from the rules (not from `feature_rows`).
    fn reference_rows(architecture: &Architecture, features: &[u16], view: Color) -> Vec<usize> {
        let decode = |f: u16| {
            let f = usize::from(f);
            let color = if f < 384 { Color::White } else { Color::Black };
            (color, PieceType::ALL[(f % 384) / 64], (f % 64) as u8)
        };
        let own_king = features
            .iter()
            .map(|&f| decode(f))
            .find(|&(color, kind, _)| color == view && kind == PieceType::King)
            .map(|(_, _, square)| square)
            .unwrap();
        let buckets = &architecture.buckets;
        let mirror = buckets.mirrored && own_king % 8 >= 4;
        let relative = |square: u8| {
            let square = if view == Color::White { square } else { square ^ 56 };
            usize::from(if mirror { square ^ 7 } else { square })
        };
        let bucket = usize::from(buckets.king_map[relative(own_king)]);
        let mut rows = Vec::new();
        for &f in features {
            let (color, kind, square) = decode(f);
            let base = usize::from(color != view) * 384 + kind.index() * 64 + relative(square);
            rows.push(bucket * INPUTS + base);
            if architecture.factoriser {
                rows.push(buckets.king_buckets() * INPUTS + base);
            }
        }
        rows
    }

    /// Loss summed over `data`, in f64 and written out independently of `backward`.
    fn reference_loss(
        params: &[f64],
        architecture: &Architecture,
        data: &Dataset,
        target: Target,
    ) -> f64 {
        let h = architecture.hidden;
        let (fw, rest) = params.split_at(architecture.feature_rows() * h);
        let (fb, rest) = rest.split_at(h);
        let (ow, ob) = rest.split_at(architecture.buckets.output * 2 * h);
        let mut total = 0.0;
        for index in 0..data.len() {
            let sample = data.sample(index);
            let mut views = [fb.to_vec(), fb.to_vec()];
            for (view, acc) in Color::BOTH.into_iter().zip(views.iter_mut()) {
                for row in reference_rows(architecture, sample.features(), view) {
                    for (a, w) in acc.iter_mut().zip(&fw[row * h..(row + 1) * h]) {
                        *a += w;
                    }
                }
            }
            let (us, them) = match sample.side {
                Color::White => (&views[0], &views[1]),
                Color::Black => (&views[1], &views[0]),
            };
            let outputs = architecture.buckets.output;
            let bucket = ((sample.features().len() - 2) * outputs / 32).min(outputs - 1);
            let ow = &ow[bucket * 2 * h..];
            let screlu = |x: f64| x.clamp(0.0, 1.0).powi(2);
            let out: f64 =
                (0..h).map(|i| screlu(us[i]) * ow[i] + screlu(them[i]) * ow[h + i]).sum::<f64>()
                    + ob[bucket];
            let scale = f64::from(target.score_scale);
            let prediction = 1.0 / (1.0 + (-out * 400.0 / scale).exp());
            let expected = 1.0 / (1.0 + (-f64::from(sample.score) / scale).exp());
            let wdl = f64::from(target.wdl);
            let wanted = (1.0 - wdl) * expected + wdl * 0.5 * f64::from(sample.result);
            total += (prediction - wanted).powi(2);
        }
        total
    }

    /// Compares `backward` (through [`loss::add_gradient`]) with central differences of [`reference_loss`] for every parameter
    /// outside the feature weights and for the feature weights of active features in the
    /// columns `check_column` picks (the others must have exactly zero gradient).
    fn check_gradient(architecture: Architecture, check_column: impl Fn(usize) -> bool) {
        let hidden = architecture.hidden;
        let mut net = Network::with_architecture(architecture, 3);
        // Spread the biases so that units sit on both sides of the clipping range, and give
        // the shared rows values of their own.
        for (i, index) in net.feature_bias_range().enumerate() {
            net.params[index] = 0.3 * (i % 8) as f32 - 1.0;
        }
        let shared = architecture.buckets.king_buckets() * INPUTS * hidden;
        let end = net.feature_weight_range().end;
        for (i, value) in net.params[shared..end].iter_mut().enumerate() {
            *value = 0.01 * (i % 13) as f32 - 0.06;
        }
        for (i, index) in net.output_bias_range().enumerate() {
            net.params[index] = 0.2 - 0.1 * i as f32;
        }
        net.refold();
        let data = dataset();
        // A result weight and a logistic scale of their own, so both reach the gradient.
        let target = Target { wdl: 0.3, score_scale: 250.0 };
        let mut grad = vec![0.0f32; net.params.len()];
        let mut scratch = Scratch::new(hidden);
        let mut total = 0.0;
        for index in 0..data.len() {
            let sample = data.sample(index);
            total += f64::from(loss::add_gradient(&net, &sample, target, &mut scratch, &mut grad));
        }
        net.complete_gradient(&mut grad);
        let params: Vec<f64> = net.params.iter().map(|&x| f64::from(x)).collect();
        let reference = reference_loss(&params, &architecture, &data, target);
        assert!((total - reference).abs() < 1e-5, "{total} vs {reference}");
        let mut active = vec![false; architecture.feature_rows()];
        for index in 0..data.len() {
            for view in Color::BOTH {
                for row in reference_rows(&architecture, data.sample(index).features(), view) {
                    active[row] = true;
                }
            }
        }
        let eps = 1e-5;
        let mut checked = 0;
        for index in 0..params.len() {
            if index < net.feature_weight_range().end {
                if !active[index / hidden] {
                    assert_eq!(grad[index], 0.0, "inactive feature {index} has a gradient");
                    continue;
                }
                if !check_column(index % hidden) {
                    continue;
                }
            }
            let mut shifted = params.clone();
            shifted[index] = params[index] + eps;
            let up = reference_loss(&shifted, &architecture, &data, target);
            shifted[index] = params[index] - eps;
            let down = reference_loss(&shifted, &architecture, &data, target);
            let numeric = (up - down) / (2.0 * eps);
            let analytic = f64::from(grad[index]);
            assert!(
                (numeric - analytic).abs() <= 1e-4 * numeric.abs().max(1e-2),
                "{architecture:?}, parameter {index}: analytic {analytic}, numeric {numeric}"
            );
            checked += 1;
        }
        assert!(checked > 100);
        assert!(grad.iter().any(|&g| g.abs() > 1e-4));
    }

    #[test]
    fn gradient_matches_finite_differences() {
        // Narrower than a tile: every parameter.
        check_gradient(Architecture::plain(8), |_| true);
        check_gradient(bucketed(8), |_| true);
        check_gradient(king_mirrored(8), |_| true);
        // A full tile and a partial one: columns around the tile boundary and a few inside.
        let columns = |column| [0, 5, 31, 62, 63, 64, 65, 70, 71].contains(&column);
        check_gradient(Architecture::plain(TILE + 8), columns);
        check_gradient(bucketed(TILE + 8), columns);
    }

    #[test]
    fn evaluate_matches_the_sample_path() {
        let architectures =
            [Architecture::plain(TILE + 16), bucketed(TILE + 16), king_mirrored(TILE + 16)];
        for architecture in architectures {
            let net = Network::with_architecture(architecture, 9);
            let data = dataset();
            let mut scratch = Scratch::new(TILE + 16);
            for (index, fen) in FENS.iter().enumerate() {
                let pos = Position::from_fen(fen).unwrap();
                let sample = data.sample(index);
                let out = net.output(sample.features(), sample.side, &mut scratch);
                assert!((net.evaluate(&pos) - out * 400.0).abs() < 1e-3);
            }
        }
    }

    #[test]
    fn king_layouts_cover_the_half_board() {
        for count in [2, 4, 8, 16] {
            let buckets = king_layout(count).unwrap();
            assert_eq!(buckets.king_buckets(), count);
            let used: std::collections::BTreeSet<u8> = (0..64)
                .filter(|square| square % 8 < 4)
                .map(|square| buckets.king_map[square])
                .collect();
            assert_eq!(used.len(), count, "every bucket has a square on files a-d");
        }
        assert_eq!(king_layout(1), Some(Buckets::NONE));
        assert_eq!(king_layout(3), None);
    }

    #[test]
    fn mirrored_inputs_make_a_position_and_its_mirror_one() {
        let net = Network::with_architecture(king_mirrored(TILE), 3);
        let plain = Network::with_architecture(Architecture::plain(TILE), 3);
        let (pos, mirror) = (
            Position::from_fen("r3k2r/1pp2ppp/p1n5/4p3/2B1P1n1/2N2N2/PPP2PPP/R4RK1 w - - 0 1"),
            Position::from_fen("r2k3r/ppp2pp1/5n1p/3p4/1n1P1B2/2N2N2/PPP2PPP/1KR4R w - - 0 1"),
        );
        let (pos, mirror) = (pos.unwrap(), mirror.unwrap());
        // The same features, added in another order.
        assert!((net.evaluate(&pos) - net.evaluate(&mirror)).abs() < 1e-3);
        assert!((plain.evaluate(&pos) - plain.evaluate(&mirror)).abs() > 0.1);
    }

    /// The engine's integer evaluation as the file format documents it, in centipawns.
    fn integer_eval(net: &QuantisedNet, pos: &Position) -> i64 {
        let h = net.hidden;
        let bias: Vec<i64> = net.feature_bias.iter().map(|&b| i64::from(b)).collect();
        let mut views = [bias.clone(), bias];
        let plain = Architecture { hidden: h, buckets: net.buckets, factoriser: false };
        let features: Vec<u16> = pos
            .occupied()
            .map(|sq| feature_index(Color::White, pos.piece_on(sq).unwrap(), sq) as u16)
            .collect();
        for (view, acc) in Color::BOTH.into_iter().zip(views.iter_mut()) {
            for row in reference_rows(&plain, &features, view) {
                for (a, &w) in acc.iter_mut().zip(&net.feature_weights[row * h..(row + 1) * h]) {
                    *a += i64::from(w);
                }
            }
            assert!(acc.iter().all(|&a| i16::try_from(a).is_ok()));
        }
        let side = pos.side_to_move().index();
        let (us, them) = (&views[side], &views[1 - side]);
        let qa = i64::from(net.qa);
        let bucket = net.buckets.output_bucket(pos.occupied().count());
        let ow = &net.output_weights[bucket * 2 * h..];
        let mut sum = 0i64;
        for i in 0..h {
            let (a, b) = (us[i].clamp(0, qa), them[i].clamp(0, qa));
            // Half squares, as the engine's kernel computes them.
            sum += ((a * a) >> 1) * i64::from(ow[i]);
            sum += ((b * b) >> 1) * i64::from(ow[h + i]);
        }
        let out = 2 * sum / qa + i64::from(net.output_bias[bucket]);
        out * i64::from(net.scale) / (qa * i64::from(net.qb))
    }

    #[test]
    fn quantised_net_survives_the_file_and_tracks_the_float_net() {
        for architecture in [Architecture::plain(HIDDEN), bucketed(HIDDEN), king_mirrored(HIDDEN)] {
            let mut net = Network::with_architecture(architecture, 5);
            for value in net.params_mut() {
                *value *= 1.5;
            }
            let shared = architecture.buckets.king_buckets() * INPUTS * HIDDEN;
            let end = net.feature_weight_range().end;
            for (i, value) in net.params[shared..end].iter_mut().enumerate() {
                *value = 0.02 * (i % 7) as f32 - 0.06;
            }
            net.clip();
            let quantised = net.quantise();
            let bytes = quantised.to_bytes();
            let read = QuantisedNet::from_bytes(&bytes, INPUTS, HIDDEN).unwrap();
            assert_eq!(read, quantised);
            let kings = architecture.buckets.king_buckets();
            assert_eq!(read.feature_weights.len(), kings * INPUTS * HIDDEN);
            let ob = net.output_bias_range();
            let want: Vec<i32> =
                net.params[ob].iter().map(|&b| (b * (QA * QB) as f32).round() as i32).collect();
            assert_eq!(read.output_bias, want);
            // The same values back in float: the integer evaluation differs from them only by
            // its truncating divisions, and from the original by the rounding of the
            // parameters (with QB = 256 each saturated unit's output weight can be off by up
            // to 400 / 512 cp). Quantised again, they give the same file.
            let dequantised = Network::from_quantised(&read);
            assert!(!dequantised.architecture().factoriser);
            assert_eq!(dequantised.quantise(), read);
            for fen in FENS {
                let pos = Position::from_fen(fen).unwrap();
                let integer = integer_eval(&read, &pos) as f32;
                let (float, exact) = (net.evaluate(&pos), dequantised.evaluate(&pos));
                assert!(
                    (exact - integer).abs() <= 1.01,
                    "{fen}: dequantised {exact}, integer {integer}"
                );
                assert!((float - integer).abs() < 40.0, "{fen}: float {float}, integer {integer}");
            }
        }
    }

    #[test]
    fn clip_bounds_weights_and_feature_biases() {
        let mut net = Network::new(8, 1);
        for value in net.params_mut() {
            *value = 5.0;
        }
        net.clip();
        let ob = net.output_bias_range();
        assert!(net.params[..ob.start].iter().all(|&x| x == WEIGHT_CLIP));
        assert_eq!(net.params[ob], [5.0]);
        // With the factoriser a bucket's row and the shared row share the clip.
        let mut net = Network::with_architecture(bucketed(8), 1);
        net.params_mut().fill(5.0);
        net.clip();
        let fw = net.feature_weight_range();
        assert!(net.params[fw].iter().all(|&x| x == WEIGHT_CLIP / 2.0));
    }
}
