//! Texel-style tuning of the evaluation weights: fit them so that a sigmoid of the static
//! evaluation predicts game results of labelled positions (see `datagen`) with the least
//! squared error. The evaluation is linear in its weights once the phase and the endgame
//! scale of each position are fixed, so each position is traced once into coefficients and
//! the fit is plain gradient descent (Adam).
//!
//! `zwischen tune --data FILE [--epochs N]` prints the new `src/eval/tuned.rs`.

use std::fmt::Write as _;

use crate::chess::Position;
use crate::eval::{self, FIELDS, MAX_PHASE, S, SCALE_NORMAL, WEIGHTS, Weights};

/// Strength of the pull of each weight towards its starting value, per cp².
const REGULARISATION: f64 = 2e-8;

/// One traced position.
struct Sample {
    /// Nonzero coefficients: (weight index, White-minus-Black count).
    terms: Vec<(u16, i16)>,
    /// Share of the middlegame and endgame parts in the blended score.
    mg_share: f64,
    eg_share: f64,
    result: f64,
}

fn load(text: &str) -> Vec<Sample> {
    let mut samples = Vec::new();
    for line in text.lines() {
        // `FEN;result` or `FEN;result;score`.
        let mut fields = line.split(';');
        let (Some(fen), Some(result)) = (fields.next(), fields.next()) else {
            continue;
        };
        let (Ok(pos), Ok(result)) = (Position::from_fen(fen.trim()), result.trim().parse::<f64>())
        else {
            continue;
        };
        if pos.is_insufficient_material() {
            continue;
        }
        let trace = eval::trace(&pos, &WEIGHTS);
        let terms = trace
            .coefficients
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c != 0)
            .map(|(i, &c)| (i as u16, c.clamp(i16::MIN as i32, i16::MAX as i32) as i16))
            .collect();
        let phase = trace.phase.min(MAX_PHASE) as f64 / MAX_PHASE as f64;
        samples.push(Sample {
            terms,
            mg_share: phase,
            eg_share: (1.0 - phase) * trace.scale as f64 / SCALE_NORMAL as f64,
            result,
        });
    }
    samples
}

/// White's evaluation of a sample under weights `w` (mg, eg interleaved).
fn evaluate(sample: &Sample, w: &[f64]) -> f64 {
    let (mut mg, mut eg) = (0.0, 0.0);
    for &(i, c) in &sample.terms {
        mg += w[2 * i as usize] * c as f64;
        eg += w[2 * i as usize + 1] * c as f64;
    }
    mg * sample.mg_share + eg * sample.eg_share
}

fn sigmoid(k: f64, eval: f64) -> f64 {
    1.0 / (1.0 + (-k * eval / 400.0).exp())
}

fn mean_error(samples: &[Sample], w: &[f64], k: f64) -> f64 {
    samples.iter().map(|s| (s.result - sigmoid(k, evaluate(s, w))).powi(2)).sum::<f64>()
        / samples.len() as f64
}

/// The gradient of the mean error with respect to every weight, on `threads` threads.
fn gradient(samples: &[Sample], w: &[f64], k: f64, threads: usize) -> Vec<f64> {
    let chunk = samples.len().div_ceil(threads.max(1)).max(1);
    let partials: Vec<Vec<f64>> = std::thread::scope(|scope| {
        let handles: Vec<_> = samples
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    let mut g = vec![0.0; w.len()];
                    for s in part {
                        let p = sigmoid(k, evaluate(s, w));
                        let d = -2.0 * (s.result - p) * p * (1.0 - p) * k / 400.0;
                        for &(i, c) in &s.terms {
                            g[2 * i as usize] += d * c as f64 * s.mg_share;
                            g[2 * i as usize + 1] += d * c as f64 * s.eg_share;
                        }
                    }
                    g
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_default()).collect()
    });
    let mut total = vec![0.0; w.len()];
    for part in partials {
        for (t, p) in total.iter_mut().zip(part) {
            *t += p;
        }
    }
    let n = samples.len() as f64;
    total.iter_mut().for_each(|t| *t /= n);
    total
}

/// Tunes on the data in `text`; returns the new `tuned.rs` source and a log.
pub fn run(text: &str, epochs: usize, threads: usize) -> (String, String) {
    let mut log = String::new();
    let samples = load(text);
    let _ = writeln!(log, "{} positions", samples.len());
    if samples.is_empty() {
        let _ = writeln!(log, "no usable positions: weights unchanged");
        return (source(&WEIGHTS, 0), log);
    }
    let mut w: Vec<f64> =
        WEIGHTS.as_slice().iter().flat_map(|s| [s.mg as f64, s.eg as f64]).collect();

    // The sigmoid's scale that best fits the current weights, by ternary search.
    let (mut lo, mut hi) = (0.1, 5.0);
    for _ in 0..60 {
        let (a, b) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
        if mean_error(&samples, &w, a) < mean_error(&samples, &w, b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    let k = (lo + hi) / 2.0;
    let _ = writeln!(log, "K = {k:.4}, error {:.6}", mean_error(&samples, &w, k));

    // Weights whose feature occurs in few positions cannot be fitted reliably: they keep
    // their values. The others are pulled gently towards their starting values, which also
    // settles the combinations the data cannot tell apart (a piece's material against its
    // mobility entries, say).
    let mut occurrences = vec![0usize; WEIGHTS.as_slice().len()];
    for sample in &samples {
        for &(i, _) in &sample.terms {
            occurrences[i as usize] += 1;
        }
    }
    let min_occurrences = (samples.len() / 1000).max(10);
    let frozen: Vec<bool> = occurrences.iter().map(|&n| n < min_occurrences).collect();
    let _ = writeln!(
        log,
        "{} of {} weights frozen (features in fewer than {min_occurrences} positions)",
        frozen.iter().filter(|&&f| f).count(),
        frozen.len()
    );
    let start = w.clone();

    // Adam.
    let (rate, beta1, beta2) = (1.0, 0.9, 0.999);
    let mut m = vec![0.0; w.len()];
    let mut v = vec![0.0; w.len()];
    for epoch in 1..=epochs {
        let g = gradient(&samples, &w, k, threads);
        for i in 0..w.len() {
            if frozen[i / 2] {
                continue;
            }
            let g = g[i] + 2.0 * REGULARISATION * (w[i] - start[i]);
            m[i] = beta1 * m[i] + (1.0 - beta1) * g;
            v[i] = beta2 * v[i] + (1.0 - beta2) * g * g;
            let m_hat = m[i] / (1.0 - beta1.powi(epoch as i32));
            let v_hat = v[i] / (1.0 - beta2.powi(epoch as i32));
            w[i] -= rate * m_hat / (v_hat.sqrt() + 1e-12);
        }
        if epoch % 50 == 0 || epoch == epochs {
            let _ = writeln!(log, "epoch {epoch}: error {:.6}", mean_error(&samples, &w, k));
        }
    }

    let mut tuned = WEIGHTS.clone();
    for (slot, pair) in tuned.as_mut_slice().iter_mut().zip(w.chunks(2)) {
        *slot = S { mg: pair[0].round() as i32, eg: pair[1].round() as i32 };
    }
    (source(&tuned, samples.len()), log)
}

/// Rust source for `tuned.rs` holding `weights`.
fn source(weights: &Weights, positions: usize) -> String {
    let values = weights.as_slice();
    let pair = |s: &S| format!("s({}, {})", s.mg, s.eg);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "//! The evaluation weights in use, written by `zwischen tune` from {positions} self-play"
    );
    let _ = writeln!(
        out,
        "//! positions (see src/tune.rs and src/datagen.rs). Do not edit by hand: retune."
    );
    let _ = writeln!(out);
    let _ = writeln!(out, "use super::score::s;");
    let _ = writeln!(out, "use super::weights::Weights;");
    let _ = writeln!(out);
    let _ = writeln!(out, "pub const WEIGHTS: Weights = Weights {{");
    for &(name, start, len) in FIELDS {
        let field = &values[start..start + len];
        if name == "pst" {
            let _ = writeln!(out, "    pst: [");
            for table in field.chunks(64) {
                let _ = writeln!(out, "        [");
                for row in table.chunks(8) {
                    let row: Vec<String> = row.iter().map(pair).collect();
                    let _ = writeln!(out, "            {},", row.join(", "));
                }
                let _ = writeln!(out, "        ],");
            }
            let _ = writeln!(out, "    ],");
        } else if len == 1 {
            let _ = writeln!(out, "    {name}: {},", pair(&field[0]));
        } else {
            let items: Vec<String> = field.iter().map(pair).collect();
            let _ = writeln!(out, "    {name}: [");
            for row in items.chunks(8) {
                let _ = writeln!(out, "        {},", row.join(", "));
            }
            let _ = writeln!(out, "    ],");
        }
    }
    let _ = writeln!(out, "}};");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const DATA: &str = "\
r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1;1.0
rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1;0.5
8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1;0.0
6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1;0.0";

    #[test]
    fn traced_samples_reproduce_the_evaluation() {
        let samples = load(DATA);
        assert_eq!(samples.len(), 4);
        let w: Vec<f64> =
            WEIGHTS.as_slice().iter().flat_map(|s| [s.mg as f64, s.eg as f64]).collect();
        for (sample, line) in samples.iter().zip(DATA.lines()) {
            let pos = Position::from_fen(line.split(';').next().unwrap()).unwrap();
            let white = eval::evaluate(&pos) * pos.side_to_move().sign();
            // The engine rounds the blend to whole centipawns.
            assert!((evaluate(sample, &w) - white as f64).abs() <= 1.0, "{line}");
        }
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let samples = load(DATA);
        let w: Vec<f64> =
            WEIGHTS.as_slice().iter().flat_map(|s| [s.mg as f64, s.eg as f64]).collect();
        let g = gradient(&samples, &w, 1.0, 2);
        let material_knight_mg = 2;
        let tempo_eg = w.len() - 1;
        for i in [material_knight_mg, tempo_eg] {
            let mut plus = w.clone();
            plus[i] += 0.01;
            let mut minus = w.clone();
            minus[i] -= 0.01;
            let numeric =
                (mean_error(&samples, &plus, 1.0) - mean_error(&samples, &minus, 1.0)) / 0.02;
            assert!(
                (numeric - g[i]).abs() < 1e-6 + 1e-3 * numeric.abs(),
                "index {i}: {numeric} vs {}",
                g[i]
            );
        }
    }

    #[test]
    fn source_names_every_field() {
        let text = source(&WEIGHTS, 0);
        for (name, _, _) in FIELDS {
            assert!(text.contains(&format!("    {name}: ")), "{name}");
        }
    }
}
