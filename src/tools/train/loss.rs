//! The loss the trainer minimises: the squared error between `sigmoid(output)` and the
//! sample's target, and its gradient through the network.
//!
//! The target is `(1 - wdl) * sigmoid(score / SCALE) + wdl * result`, score and result (1 win,
//! 0.5 draw, 0 loss) from the side to move's point of view. Plain squared error (exponent 2)
//! is the usual choice at this size and has the simplest, exactly checkable gradient.

use super::data::Sample;
use super::network::{Network, Scratch};
use crate::eval::SCALE;

/// The logistic function: a score (in units of [`SCALE`]) as an expected result.
#[inline(always)]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The training target of `sample` with result weight `wdl`.
#[inline]
pub fn target(sample: &Sample, wdl: f32) -> f32 {
    let expected = sigmoid(f32::from(sample.score) / SCALE as f32);
    (1.0 - wdl) * expected + wdl * 0.5 * f32::from(sample.result)
}

/// The squared error of `sigmoid(output)` against `target`, and its derivative by `output`.
#[inline]
pub fn squared_error(output: f32, target: f32) -> (f32, f32) {
    let prediction = sigmoid(output);
    let error = prediction - target;
    (error * error, 2.0 * error * prediction * (1.0 - prediction))
}

/// The network's loss on `sample`.
#[inline]
pub fn loss(network: &Network, sample: &Sample, wdl: f32, scratch: &mut Scratch) -> f32 {
    let output = network.output(sample.features(), sample.side, scratch);
    squared_error(output, target(sample, wdl)).0
}

/// Adds the gradient of the network's loss on `sample` to `grad` (laid out like the
/// parameters, the factoriser's shared rows left to [`Network::complete_gradient`]); returns
/// the loss.
#[inline]
pub fn add_gradient(
    network: &Network,
    sample: &Sample,
    wdl: f32,
    scratch: &mut Scratch,
    grad: &mut [f32],
) -> f32 {
    let output = network.output(sample.features(), sample.side, scratch);
    let (loss, d_output) = squared_error(output, target(sample, wdl));
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
