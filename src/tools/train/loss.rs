//! The loss the trainer minimises: the squared error between the network's expected result
//! and the sample's target, and its gradient through the network.
//!
//! Both sides go through one logistic of `score_scale` centipawns (the engine's [`SCALE`],
//! 400, unless chosen otherwise): the prediction is `sigmoid(output * SCALE / score_scale)`
//! (the output is in units of [`SCALE`] centipawns) and the target `(1 - wdl) *
//! sigmoid(score / score_scale) + wdl * result`, score and result (1 win, 0.5 draw, 0 loss)
//! from the side to move's point of view. The scale changes what a centipawn is worth to the
//! loss, not the units the network learns in. Plain squared error (exponent 2) is the usual
//! choice at this size and has the simplest, exactly checkable gradient.

use super::data::Sample;
use super::network::{Network, Scratch};
use crate::eval::SCALE;

/// The logistic function: a score (in units of the logistic's scale) as an expected result.
#[inline(always)]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// What a sample teaches: its search score and its game's result, mixed.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Target {
    /// Weight of the game result (the rest is the search score).
    pub wdl: f32,
    /// The centipawns of the logistic that turns a score into an expected result.
    pub score_scale: f32,
}

impl Target {
    /// The expected result `sample` teaches.
    #[inline]
    pub fn of(&self, sample: &Sample) -> f32 {
        let expected = sigmoid(f32::from(sample.score) / self.score_scale);
        (1.0 - self.wdl) * expected + self.wdl * 0.5 * f32::from(sample.result)
    }

    /// The factor from the network's output (units of [`SCALE`] centipawns) to the logistic's.
    #[inline]
    fn stretch(&self) -> f32 {
        SCALE as f32 / self.score_scale
    }

    /// The squared error of the network's `output` against `sample`, and its derivative by
    /// `output`.
    #[inline]
    pub fn error(&self, output: f32, sample: &Sample) -> (f32, f32) {
        let stretch = self.stretch();
        let (error, derivative) = squared_error(output * stretch, self.of(sample));
        (error, derivative * stretch)
    }
}

/// The squared error of `sigmoid(x)` against `target`, and its derivative by `x`.
#[inline]
pub fn squared_error(x: f32, target: f32) -> (f32, f32) {
    let prediction = sigmoid(x);
    let error = prediction - target;
    (error * error, 2.0 * error * prediction * (1.0 - prediction))
}

/// The network's loss on `sample`.
#[inline]
pub fn loss(network: &Network, sample: &Sample, target: Target, scratch: &mut Scratch) -> f32 {
    let output = network.output(sample.features(), sample.side, scratch);
    target.error(output, sample).0
}

/// Adds the gradient of the network's loss on `sample` to `grad` (laid out like the
/// parameters, the factoriser's shared rows left to [`Network::complete_gradient`]); returns
/// the loss.
#[inline]
pub fn add_gradient(
    network: &Network,
    sample: &Sample,
    target: Target,
    scratch: &mut Scratch,
    grad: &mut [f32],
) -> f32 {
    let output = network.output(sample.features(), sample.side, scratch);
    let (loss, d_output) = target.error(output, sample);
    network.backward(sample, d_output, scratch, grad);
    loss
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derivative_matches_finite_differences() {
        for (output, target) in [(0.3f32, 0.8f32), (-1.2, 0.1), (2.0, 0.5), (0.0, 0.5)] {
            let eps = 1e-3;
            let up = squared_error(output + eps, target).0;
            let down = squared_error(output - eps, target).0;
            let numeric = (up - down) / (2.0 * eps);
            let analytic = squared_error(output, target).1;
            assert!((numeric - analytic).abs() < 1e-3, "{output} {target}: {numeric} {analytic}");
        }
        assert_eq!(squared_error(0.0, 0.5), (0.0, 0.0));
    }
}
