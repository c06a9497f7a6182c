//! AdamW: Adam with bias-corrected moments and weight decay decoupled from the gradient
//! (Loshchilov & Hutter), applied only to the parameter ranges given (the weights).

use std::ops::Range;

pub const BETA1: f32 = 0.9;
pub const BETA2: f32 = 0.999;
pub const EPSILON: f32 = 1e-8;

#[derive(Clone, Debug, PartialEq)]
pub struct AdamW {
    pub weight_decay: f32,
    /// First and second moment estimates, laid out like the parameters.
    pub m: Vec<f32>,
    pub v: Vec<f32>,
    /// Steps taken so far (for the bias correction).
    pub steps: u64,
}

impl AdamW {
    pub fn new(params: usize, weight_decay: f32) -> AdamW {
        AdamW { weight_decay, m: vec![0.0; params], v: vec![0.0; params], steps: 0 }
    }

    /// One step: `grad * grad_scale` is the gradient (the scale turns a batch's sum into its
    /// mean). Parameters in `decayed` shrink by `lr * weight_decay` of themselves first.
    pub fn step(
        &mut self,
        params: &mut [f32],
        grad: &[f32],
        grad_scale: f32,
        lr: f32,
        decayed: &[Range<usize>],
    ) {
        assert_eq!(params.len(), self.m.len());
        assert_eq!(grad.len(), self.m.len());
        self.steps += 1;
        let t = self.steps.min(i32::MAX as u64) as i32;
        let correction1 = (1.0 - f64::from(BETA1).powi(t)) as f32;
        let correction2 = (1.0 - f64::from(BETA2).powi(t)) as f32;
        let step_size = lr / correction1;
        let root_correction2 = correction2.sqrt();
        let count = params.len();
        let mut update = |range: Range<usize>, decay: f32| {
            let shrink = 1.0 - lr * decay;
            let moments = self.m[range.clone()].iter_mut().zip(&mut self.v[range.clone()]);
            for ((p, &g), (m, v)) in params[range.clone()].iter_mut().zip(&grad[range]).zip(moments)
            {
                let g = g * grad_scale;
                *m = BETA1 * *m + (1.0 - BETA1) * g;
                *v = BETA2 * *v + (1.0 - BETA2) * g * g;
                *p = *p * shrink - step_size * *m / (v.sqrt() / root_correction2 + EPSILON);
            }
        };
        // Walk the parameters in order, decaying inside the given ranges only.
        let mut sorted: Vec<Range<usize>> = decayed.to_vec();
        sorted.sort_by_key(|r| r.start);
        let mut at = 0;
        for range in sorted {
            if range.start > at {
                update(at..range.start, 0.0);
            }
            update(range.clone(), self.weight_decay);
            at = range.end;
        }
        if at < count {
            update(at..count, 0.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_step_moves_each_parameter_by_the_learning_rate() {
        let mut adam = AdamW::new(3, 0.5);
        let mut params = vec![1.0, 1.0, 1.0];
        let decayed = std::slice::from_ref(&(0..1));
        adam.step(&mut params, &[2.0, -4.0, 0.0], 0.5, 0.1, decayed);
        // Bias-corrected m / sqrt(v) is the sign of the gradient on the first step.
        assert!((params[0] - (1.0 * (1.0 - 0.05) - 0.1)).abs() < 1e-6);
        assert!((params[1] - 1.1).abs() < 1e-6);
        assert_eq!(params[2], 1.0);
        assert_eq!(adam.steps, 1);
    }

    #[test]
    fn minimises_a_quadratic() {
        let mut adam = AdamW::new(2, 0.0);
        let mut params = vec![3.0f32, -2.0];
        for _ in 0..2000 {
            let grad = [2.0 * (params[0] - 1.0), 2.0 * (params[1] + 0.5)];
            adam.step(&mut params, &grad, 1.0, 0.01, &[]);
        }
        assert!((params[0] - 1.0).abs() < 1e-2 && (params[1] + 0.5).abs() < 1e-2, "{params:?}");
    }
}
