//! `zwischen fit-wdl`: fits the `UCI_ShowWDL` model (`search::wdl`) to self-play records.
//!
//! The model says P(win) = logistic((score - A) / B) and P(loss) = logistic((-score - A) / B)
//! for a score from one side's view; the draw takes the rest. It is symmetric under swapping
//! the sides, so the records' White-view scores and results can be used as they are.
//! A and B maximise the mean log-likelihood of the games' results.
//!
//! It also fits the trainer's logistic scale (`zwischen train --score-scale`): the K under
//! which `sigmoid(score / K)` predicts the results with the least squared error.

use std::path::Path;

use crate::tools::records::read_positions;

/// One labelled score: centipawns and the result, both from White's view (0, 0.5 or 1).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Sample {
    pub score: f64,
    pub result: f64,
}

/// The fitted model.
#[derive(Copy, Clone, Debug)]
pub struct WdlFit {
    pub a: f64,
    pub b: f64,
    pub mean_log_likelihood: f64,
    pub samples: usize,
}

/// Reads every training position of a datagen file, games or records (records or games that
/// do not decode are skipped and counted).
pub fn load_records(path: &Path, samples: &mut Vec<Sample>) -> std::io::Result<usize> {
    let summary = read_positions(path, |packed| {
        samples
            .push(Sample { score: f64::from(packed.score), result: f64::from(packed.result) / 2.0 })
    })?;
    Ok(summary.invalid)
}

/// Mean log-likelihood of the results under the model (A, B).
pub fn mean_log_likelihood(samples: &[Sample], a: f64, b: f64) -> f64 {
    let logistic = |x: f64| 1.0 / (1.0 + (-(x - a) / b).exp());
    let total: f64 = samples
        .iter()
        .map(|sample| {
            let win = logistic(sample.score);
            let loss = logistic(-sample.score);
            let p = if sample.result > 0.75 {
                win
            } else if sample.result < 0.25 {
                loss
            } else {
                1.0 - win - loss
            };
            p.max(1e-9).ln()
        })
        .sum();
    total / samples.len().max(1) as f64
}

/// Maximum-likelihood A and B, by a coordinate search with shrinking steps (the likelihood is
/// smooth and has one maximum here).
pub fn fit(samples: &[Sample]) -> WdlFit {
    let (mut a, mut b): (f64, f64) = (200.0, 100.0);
    let mut best = mean_log_likelihood(samples, a, b);
    let mut step: f64 = 64.0;
    while step > 0.05 {
        let mut improved = false;
        for (da, db) in [(step, 0.0), (-step, 0.0), (0.0, step), (0.0, -step)] {
            let (na, nb) = (a + da, (b + db).max(1.0));
            let candidate = mean_log_likelihood(samples, na, nb);
            if candidate > best {
                (a, b, best) = (na, nb, candidate);
                improved = true;
            }
        }
        if !improved {
            step /= 2.0;
        }
    }
    WdlFit { a, b, mean_log_likelihood: best, samples: samples.len() }
}

/// The mean squared error of `sigmoid(score / scale)` against the results: the trainer's loss
/// of the search score taken for the result (`--score-scale`, with `--wdl 1` as the target).
pub fn score_scale_error(samples: &[Sample], scale: f64) -> f64 {
    let total: f64 = samples
        .iter()
        .map(|sample| (1.0 / (1.0 + (-sample.score / scale).exp()) - sample.result).powi(2))
        .sum();
    total / samples.len().max(1) as f64
}

/// The logistic scale (centipawns) under which the scores best predict the results: the
/// minimum of [`score_scale_error`] between 20 and 5000, by golden-section search (the error
/// has one minimum there for any data where larger scores win more often).
pub fn fit_score_scale(samples: &[Sample]) -> f64 {
    let (mut low, mut high) = (20.0f64, 5000.0f64);
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    while high - low > 0.1 {
        let a = high - ratio * (high - low);
        let b = low + ratio * (high - low);
        if score_scale_error(samples, a) < score_scale_error(samples, b) {
            high = b;
        } else {
            low = a;
        }
    }
    (low + high) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::records::PackedPosition;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    /// Draws results from a known model and checks that the fit finds it again.
    #[test]
    fn recovers_the_model_that_made_the_results() {
        let (a, b) = (120.0, 90.0);
        let logistic = |x: f64| 1.0 / (1.0 + (-(x - a) / b).exp());
        let mut rng = StdRng::seed_from_u64(7);
        let samples: Vec<Sample> = (0..40_000)
            .map(|_| {
                let score = rng.random_range(-600.0..600.0);
                let u: f64 = rng.random();
                let (win, loss) = (logistic(score), logistic(-score));
                let result = if u < win {
                    1.0
                } else if u < win + loss {
                    0.0
                } else {
                    0.5
                };
                Sample { score, result }
            })
            .collect();
        let fitted = fit(&samples);
        assert!((fitted.a - a).abs() < 8.0, "A = {}", fitted.a);
        assert!((fitted.b - b).abs() < 8.0, "B = {}", fitted.b);
        assert!(fitted.mean_log_likelihood >= mean_log_likelihood(&samples, a, b));
    }

    /// Results drawn as wins with probability `sigmoid(score / 180)` (no draws): the fitted
    /// scale is 180 again, not the trainer's default 400.
    #[test]
    fn the_score_scale_fit_finds_the_logistic_behind_the_results() {
        let scale = 180.0;
        let mut rng = StdRng::seed_from_u64(11);
        let samples: Vec<Sample> = (0..40_000)
            .map(|_| {
                let score: f64 = rng.random_range(-600.0..600.0);
                let win = 1.0 / (1.0 + (-score / scale).exp());
                let result = if rng.random::<f64>() < win { 1.0 } else { 0.0 };
                Sample { score, result }
            })
            .collect();
        let fitted = fit_score_scale(&samples);
        assert!((fitted - scale).abs() < 12.0, "scale {fitted}");
        assert!(score_scale_error(&samples, fitted) < score_scale_error(&samples, 400.0));
    }

    #[test]
    fn reads_the_records_datagen_writes() {
        let pos = crate::chess::Position::startpos();
        let dir = std::env::temp_dir().join(format!("zwischen-wdl-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("records.bin");
        let mut bytes = PackedPosition::pack(&pos, 35, 2).to_bytes().to_vec();
        bytes.extend_from_slice(&PackedPosition::pack(&pos, -80, 0).to_bytes());
        std::fs::write(&path, &bytes).unwrap();
        let mut samples = Vec::new();
        assert_eq!(load_records(&path, &mut samples).unwrap(), 0);
        assert_eq!(
            samples,
            vec![Sample { score: 35.0, result: 1.0 }, Sample { score: -80.0, result: 0.0 }]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
