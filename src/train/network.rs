//! The float network: the engine's architecture, (768 -> H) x 2 -> 1 with a squared clipped
//! ReLU, in `f32`, with its forward pass, its gradient and its quantisation.
//!
//! All parameters live in one vector, which is also the layout of gradients, optimiser moments
//! and checkpoints: feature weights `[768][H]` (feature-major), feature biases `[H]`, output
//! weights `[2H]` (side to move's half first), output bias `[1]`.

use std::ops::Range;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::data::{Sample, flip, sigmoid};
use crate::chess::{Color, Position};
use crate::eval::file::QuantisedNet;
use crate::eval::{INPUTS, QA, QB, SCALE, WEIGHT_CLIP, feature_index};

#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    hidden: usize,
    params: Vec<f32>,
}

/// Per-thread working memory for one position: both accumulators and their gradients.
#[derive(Clone, Debug)]
pub struct Scratch {
    white: Vec<f32>,
    black: Vec<f32>,
    d_us: Vec<f32>,
    d_them: Vec<f32>,
}

impl Scratch {
    pub fn new(hidden: usize) -> Scratch {
        Scratch {
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

/// Sets `white` and `black` to the feature biases plus the rows of `features` (White-view
/// indices) as seen by each view, `TILE` columns at a time.
#[inline(always)]
fn accumulate(fw: &[f32], fb: &[f32], features: &[u16], white: &mut [f32], black: &mut [f32]) {
    let h = fb.len();
    let mut start = 0;
    while start + TILE <= h {
        let mut w: [f32; TILE] = fb[start..start + TILE].try_into().expect("a tile");
        let mut b = w;
        for &feature in features {
            let feature = usize::from(feature);
            let row = &fw[feature * h + start..feature * h + start + TILE];
            for (a, x) in w.iter_mut().zip(row) {
                *a += x;
            }
            let mirrored = flip(feature);
            let row = &fw[mirrored * h + start..mirrored * h + start + TILE];
            for (a, x) in b.iter_mut().zip(row) {
                *a += x;
            }
        }
        white[start..start + TILE].copy_from_slice(&w);
        black[start..start + TILE].copy_from_slice(&b);
        start += TILE;
    }
    if start < h {
        white[start..].copy_from_slice(&fb[start..]);
        black[start..].copy_from_slice(&fb[start..]);
        for &feature in features {
            let feature = usize::from(feature);
            add(&mut white[start..], &fw[feature * h + start..(feature + 1) * h]);
            let mirrored = flip(feature);
            add(&mut black[start..], &fw[mirrored * h + start..(mirrored + 1) * h]);
        }
    }
}

/// Adds `d_white` to the gradient row of each feature and `d_black` to the row of its mirror,
/// `TILE` columns at a time with the tile of `d` held in registers.
#[inline(always)]
fn scatter(g_fw: &mut [f32], features: &[u16], d_white: &[f32], d_black: &[f32]) {
    let h = d_white.len();
    let mut start = 0;
    while start + TILE <= h {
        let w: &[f32; TILE] = d_white[start..start + TILE].try_into().expect("a tile");
        let b: &[f32; TILE] = d_black[start..start + TILE].try_into().expect("a tile");
        let (w, b) = (*w, *b);
        for &feature in features {
            let feature = usize::from(feature);
            let row = &mut g_fw[feature * h + start..feature * h + start + TILE];
            for (g, x) in row.iter_mut().zip(&w) {
                *g += x;
            }
            let mirrored = flip(feature);
            let row = &mut g_fw[mirrored * h + start..mirrored * h + start + TILE];
            for (g, x) in row.iter_mut().zip(&b) {
                *g += x;
            }
        }
        start += TILE;
    }
    if start < h {
        for &feature in features {
            let feature = usize::from(feature);
            add(&mut g_fw[feature * h + start..(feature + 1) * h], &d_white[start..]);
            let mirrored = flip(feature);
            add(&mut g_fw[mirrored * h + start..(mirrored + 1) * h], &d_black[start..]);
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

/// Clamps `values` to ±[`WEIGHT_CLIP`].
#[inline]
pub fn clip(values: &mut [f32]) {
    for value in values {
        *value = value.clamp(-WEIGHT_CLIP, WEIGHT_CLIP);
    }
}

impl Network {
    pub fn param_count(hidden: usize) -> usize {
        INPUTS * hidden + hidden + 2 * hidden + 1
    }

    /// A new network with parameters drawn from `seed`. Feature weights are uniform in
    /// ±1/sqrt(32): about 32 features are active, so each accumulator starts with a spread of
    /// about 0.6 around 0, across the working range of the clipped ReLU and well inside the
    /// weight clip. Output weights are uniform in ±1/sqrt(2H), the usual fan-in scaling, which
    /// keeps the first outputs within some tens of centipawns. Biases start at 0.
    pub fn new(hidden: usize, seed: u64) -> Network {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut params = vec![0.0f32; Self::param_count(hidden)];
        let feature_range = 1.0 / 32f32.sqrt();
        let output_range = 1.0 / ((2 * hidden) as f32).sqrt();
        let net = Network { hidden, params: Vec::new() };
        let (fw, ow) = (net.feature_weight_range(), net.output_weight_range());
        for value in &mut params[fw] {
            *value = rng.random_range(-feature_range..feature_range);
        }
        for value in &mut params[ow] {
            *value = rng.random_range(-output_range..output_range);
        }
        Network { hidden, params }
    }

    /// A network with the given parameters, if there are as many as `hidden` needs.
    pub fn from_params(hidden: usize, params: Vec<f32>) -> Option<Network> {
        (params.len() == Self::param_count(hidden)).then_some(Network { hidden, params })
    }

    pub fn hidden(&self) -> usize {
        self.hidden
    }

    pub fn params(&self) -> &[f32] {
        &self.params
    }

    pub fn params_mut(&mut self) -> &mut [f32] {
        &mut self.params
    }

    pub fn feature_weight_range(&self) -> Range<usize> {
        0..INPUTS * self.hidden
    }

    pub fn feature_bias_range(&self) -> Range<usize> {
        INPUTS * self.hidden..(INPUTS + 1) * self.hidden
    }

    pub fn output_weight_range(&self) -> Range<usize> {
        (INPUTS + 1) * self.hidden..(INPUTS + 3) * self.hidden
    }

    pub fn output_bias_index(&self) -> usize {
        (INPUTS + 3) * self.hidden
    }

    /// The parameters in consecutive groups with how the optimiser treats them: (range, weight
    /// decay, clipping). Decay applies to the two weight matrices, clipping to everything but
    /// the output bias.
    pub fn groups(&self) -> [(Range<usize>, bool, bool); 4] {
        let ob = self.output_bias_index();
        [
            (self.feature_weight_range(), true, true),
            (self.feature_bias_range(), false, true),
            (self.output_weight_range(), true, true),
            (ob..ob + 1, false, false),
        ]
    }

    fn parts(&self) -> (&[f32], &[f32], &[f32], f32) {
        let (fw, rest) = self.params.split_at(INPUTS * self.hidden);
        let (fb, rest) = rest.split_at(self.hidden);
        let (ow, ob) = rest.split_at(2 * self.hidden);
        (fw, fb, ow, ob[0])
    }

    /// The raw output (side to move's view, 1.0 = [`SCALE`] centipawns) for a position given
    /// by its White-view features; leaves both accumulators in `scratch`.
    #[inline]
    pub fn output(&self, features: &[u16], side: Color, scratch: &mut Scratch) -> f32 {
        let h = self.hidden;
        let (fw, fb, ow, ob) = self.parts();
        accumulate(fw, fb, features, &mut scratch.white, &mut scratch.black);
        let (us, them) = match side {
            Color::White => (&scratch.white, &scratch.black),
            Color::Black => (&scratch.black, &scratch.white),
        };
        screlu_dot(us, &ow[..h]) + screlu_dot(them, &ow[h..]) + ob
    }

    /// The squared error of `sigmoid(output)` against the sample's target.
    #[inline]
    pub fn loss(&self, sample: &Sample, wdl: f32, scratch: &mut Scratch) -> f32 {
        let error =
            sigmoid(self.output(sample.features, sample.side, scratch)) - sample.target(wdl);
        error * error
    }

    /// Adds the gradient of the sample's loss to `grad` (laid out like the parameters) and
    /// returns the loss.
    #[inline]
    pub fn backprop(
        &self,
        sample: &Sample,
        wdl: f32,
        scratch: &mut Scratch,
        grad: &mut [f32],
    ) -> f32 {
        let h = self.hidden;
        let prediction = sigmoid(self.output(sample.features, sample.side, scratch));
        let error = prediction - sample.target(wdl);
        let d = 2.0 * error * prediction * (1.0 - prediction);
        let (_, _, ow, _) = self.parts();
        let (g_fw, rest) = grad.split_at_mut(INPUTS * h);
        let (g_fb, rest) = rest.split_at_mut(h);
        let (g_ow, g_ob) = rest.split_at_mut(2 * h);
        g_ob[0] += d;
        let Scratch { white, black, d_us, d_them } = scratch;
        let (us, them) = match sample.side {
            Color::White => (&*white, &*black),
            Color::Black => (&*black, &*white),
        };
        let (g_ow_us, g_ow_them) = g_ow.split_at_mut(h);
        output_backward(d, us, &ow[..h], g_ow_us, d_us);
        output_backward(d, them, &ow[h..], g_ow_them, d_them);
        for ((g, a), b) in g_fb.iter_mut().zip(d_us.iter()).zip(d_them.iter()) {
            *g += a + b;
        }
        let (d_white, d_black) = match sample.side {
            Color::White => (&*d_us, &*d_them),
            Color::Black => (&*d_them, &*d_us),
        };
        scatter(g_fw, sample.features, d_white, d_black);
        error * error
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
        let mut scratch = Scratch::new(self.hidden);
        self.output(&features, pos.side_to_move(), &mut scratch) * SCALE as f32
    }

    /// Keeps every weight and every feature bias within ±[`WEIGHT_CLIP`], so quantised values
    /// fit the engine's integer kernels (a clipped accumulator is at most 33 * 1.98 * 255 in
    /// magnitude, far inside i16). The output bias is left free; it is an i32 in the file.
    pub fn clip(&mut self) {
        let end = self.output_bias_index();
        clip(&mut self.params[..end]);
    }

    /// The network as the engine stores it: feature weights and biases `round(x * QA)` as
    /// i16, output weights `round(x * QB)` as i16, the output bias `round(x * QA * QB)` as
    /// i32 (products in f32, rounding half away from zero, saturating at the type's bounds).
    pub fn quantise(&self) -> QuantisedNet {
        let (fw, fb, ow, ob) = self.parts();
        let quantise = |values: &[f32], scale: i32| -> Vec<i16> {
            values.iter().map(|&x| (x * scale as f32).round() as i16).collect()
        };
        QuantisedNet {
            inputs: INPUTS,
            hidden: self.hidden,
            scale: SCALE as u32,
            qa: QA as u32,
            qb: QB as u32,
            feature_weights: quantise(fw, QA),
            feature_bias: quantise(fb, QA),
            output_weights: quantise(ow, QB),
            output_bias: (ob * (QA * QB) as f32).round() as i32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::{PieceType, Square};
    use crate::eval::HIDDEN;
    use crate::train::data::Dataset;

    const FENS: [&str; 4] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
        "8/2k5/8/3q4/8/8/5PP1/6K1 w - - 0 40",
        "4k3/8/8/8/8/8/4P3/R3K3 b Q - 0 1",
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

    /// Loss summed over `data`, in f64 and written out independently of `backprop`.
    fn reference_loss(params: &[f64], hidden: usize, data: &Dataset, wdl: f64) -> f64 {
        let h = hidden;
        let (fw, rest) = params.split_at(INPUTS * h);
        let (fb, rest) = rest.split_at(h);
        let (ow, ob) = rest.split_at(2 * h);
        let mut total = 0.0;
        for index in 0..data.len() {
            let sample = data.sample(index);
            let mut views = [fb.to_vec(), fb.to_vec()];
            for &f in sample.features {
                let (piece, square) = {
                    let f = usize::from(f);
                    let color = if f < 384 { Color::White } else { Color::Black };
                    let kind = PieceType::ALL[(f % 384) / 64];
                    (crate::chess::Piece::new(color, kind), Square::new((f % 64) as u8))
                };
                for (view, acc) in Color::BOTH.into_iter().zip(views.iter_mut()) {
                    let row = feature_index(view, piece, square);
                    for (a, w) in acc.iter_mut().zip(&fw[row * h..(row + 1) * h]) {
                        *a += w;
                    }
                }
            }
            let (us, them) = match sample.side {
                Color::White => (&views[0], &views[1]),
                Color::Black => (&views[1], &views[0]),
            };
            let screlu = |x: f64| x.clamp(0.0, 1.0).powi(2);
            let out: f64 =
                (0..h).map(|i| screlu(us[i]) * ow[i] + screlu(them[i]) * ow[h + i]).sum::<f64>()
                    + ob[0];
            let prediction = 1.0 / (1.0 + (-out).exp());
            let expected = 1.0 / (1.0 + (-f64::from(sample.score) / 400.0).exp());
            let target = (1.0 - wdl) * expected + wdl * 0.5 * f64::from(sample.result);
            total += (prediction - target).powi(2);
        }
        total
    }

    /// Compares `backprop` with central differences of [`reference_loss`] for every parameter
    /// outside the feature weights and for the feature weights of active features in the
    /// columns `check_column` picks (the others must have exactly zero gradient).
    fn check_gradient(hidden: usize, check_column: impl Fn(usize) -> bool) {
        let mut net = Network::new(hidden, 3);
        // Spread the biases so that units sit on both sides of the clipping range.
        for (i, index) in net.feature_bias_range().enumerate() {
            net.params[index] = 0.3 * (i % 8) as f32 - 1.0;
        }
        let ob = net.output_bias_index();
        net.params[ob] = 0.2;
        let data = dataset();
        let wdl = 0.3;
        let mut grad = vec![0.0f32; net.params.len()];
        let mut scratch = Scratch::new(hidden);
        let mut loss = 0.0;
        for index in 0..data.len() {
            loss += f64::from(net.backprop(&data.sample(index), wdl, &mut scratch, &mut grad));
        }
        let params: Vec<f64> = net.params.iter().map(|&x| f64::from(x)).collect();
        let reference = reference_loss(&params, hidden, &data, f64::from(wdl));
        assert!((loss - reference).abs() < 1e-5, "{loss} vs {reference}");
        let mut active = vec![false; INPUTS];
        for index in 0..data.len() {
            for &f in data.sample(index).features {
                active[usize::from(f)] = true;
                active[flip(usize::from(f))] = true;
            }
        }
        let eps = 1e-5;
        let mut checked = 0;
        for index in 0..params.len() {
            if index < INPUTS * hidden {
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
            let up = reference_loss(&shifted, hidden, &data, f64::from(wdl));
            shifted[index] = params[index] - eps;
            let down = reference_loss(&shifted, hidden, &data, f64::from(wdl));
            let numeric = (up - down) / (2.0 * eps);
            let analytic = f64::from(grad[index]);
            assert!(
                (numeric - analytic).abs() <= 1e-4 * numeric.abs().max(1e-2),
                "hidden {hidden}, parameter {index}: analytic {analytic}, numeric {numeric}"
            );
            checked += 1;
        }
        assert!(checked > 100);
        assert!(grad.iter().any(|&g| g.abs() > 1e-4));
    }

    #[test]
    fn gradient_matches_finite_differences() {
        // Narrower than a tile: every parameter.
        check_gradient(8, |_| true);
        // A full tile and a partial one: columns around the tile boundary and a few inside.
        check_gradient(TILE + 8, |column| [0, 5, 31, 62, 63, 64, 65, 70, 71].contains(&column));
    }

    #[test]
    fn evaluate_matches_the_sample_path() {
        let net = Network::new(TILE + 16, 9);
        let data = dataset();
        let mut scratch = Scratch::new(TILE + 16);
        for (index, fen) in FENS.iter().enumerate() {
            let pos = Position::from_fen(fen).unwrap();
            let sample = data.sample(index);
            let out = net.output(sample.features, sample.side, &mut scratch);
            assert!((net.evaluate(&pos) - out * 400.0).abs() < 1e-3);
        }
    }

    /// The engine's integer evaluation as the file format documents it, in centipawns.
    fn integer_eval(net: &QuantisedNet, pos: &Position) -> i64 {
        let h = net.hidden;
        let bias: Vec<i64> = net.feature_bias.iter().map(|&b| i64::from(b)).collect();
        let mut views = [bias.clone(), bias];
        for (view, acc) in Color::BOTH.into_iter().zip(views.iter_mut()) {
            for square in pos.occupied() {
                let row = feature_index(view, pos.piece_on(square).unwrap(), square);
                for (a, &w) in acc.iter_mut().zip(&net.feature_weights[row * h..(row + 1) * h]) {
                    *a += i64::from(w);
                }
            }
            assert!(acc.iter().all(|&a| i16::try_from(a).is_ok()));
        }
        let side = pos.side_to_move().index();
        let (us, them) = (&views[side], &views[1 - side]);
        let qa = i64::from(net.qa);
        let mut sum = 0i64;
        for i in 0..h {
            let (a, b) = (us[i].clamp(0, qa), them[i].clamp(0, qa));
            // Half squares, as the engine's kernel computes them.
            sum += ((a * a) >> 1) * i64::from(net.output_weights[i]);
            sum += ((b * b) >> 1) * i64::from(net.output_weights[h + i]);
        }
        let out = 2 * sum / qa + i64::from(net.output_bias);
        out * i64::from(net.scale) / (qa * i64::from(net.qb))
    }

    #[test]
    fn quantised_net_survives_the_file_and_tracks_the_float_net() {
        let mut net = Network::new(HIDDEN, 5);
        for value in net.params_mut() {
            *value *= 1.5;
        }
        net.clip();
        let quantised = net.quantise();
        let bytes = quantised.to_bytes();
        let read = QuantisedNet::from_bytes(&bytes, INPUTS, HIDDEN).unwrap();
        assert_eq!(read, quantised);
        assert_eq!(read.feature_weights.len(), INPUTS * HIDDEN);
        let ob = net.output_bias_index();
        assert_eq!(read.output_bias, (net.params[ob] * (QA * QB) as f32).round() as i32);
        // The same values back in float: the integer evaluation differs from it only by its
        // truncating divisions, and from the original by the rounding of the parameters (with
        // QB = 256 each saturated unit's output weight can be off by up to 400 / 512 cp).
        let dequantised: Vec<f32> = read
            .feature_weights
            .iter()
            .chain(&read.feature_bias)
            .map(|&x| f32::from(x) / QA as f32)
            .chain(read.output_weights.iter().map(|&x| f32::from(x) / QB as f32))
            .chain([read.output_bias as f32 / (QA * QB) as f32])
            .collect();
        let dequantised = Network::from_params(HIDDEN, dequantised).unwrap();
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

    #[test]
    fn clip_bounds_weights_and_feature_biases() {
        let mut net = Network::new(8, 1);
        for value in net.params_mut() {
            *value = 5.0;
        }
        net.clip();
        let ob = net.output_bias_index();
        assert!(net.params[..ob].iter().all(|&x| x == WEIGHT_CLIP));
        assert_eq!(net.params[ob], 5.0);
    }
}
