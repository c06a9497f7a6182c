//! AdamW: Adam with bias-corrected moments and weight decay decoupled from the gradient
//! (Loshchilov & Hutter). The trainer applies the decay to the weights only, not the biases.
//!
//! A step is [`AdamW::begin_step`] (count the step, fix the coefficients) followed by
//! [`StepRule::apply`] on any split of the parameters, so threads can update disjoint parts.

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

/// The coefficients of one step, the same for every parameter.
#[derive(Clone, Copy, Debug)]
pub struct StepRule {
    /// Multiplies the gradient as given (turns a batch's sum into its mean).
    grad_scale: f32,
    /// `lr / (1 - beta1^t)`.
    step_size: f32,
    /// `sqrt(1 - beta2^t)`.
    root_correction2: f32,
    /// `1 - lr * weight_decay`.
    shrink: f32,
}

impl AdamW {
    pub fn new(params: usize, weight_decay: f32) -> AdamW {
        AdamW { weight_decay, m: vec![0.0; params], v: vec![0.0; params], steps: 0 }
    }

    /// Counts a step at learning rate `lr` and returns its coefficients.
    pub fn begin_step(&mut self, lr: f32, grad_scale: f32) -> StepRule {
        self.steps += 1;
        let t = self.steps.min(i32::MAX as u64) as i32;
        let correction1 = (1.0 - f64::from(BETA1).powi(t)) as f32;
        let correction2 = (1.0 - f64::from(BETA2).powi(t)) as f32;
        StepRule {
            grad_scale,
            step_size: lr / correction1,
            root_correction2: correction2.sqrt(),
            shrink: 1.0 - lr * self.weight_decay,
        }
    }
}

impl StepRule {
    /// Updates `params` from `grad` and their moments `m`, `v` (all the same length), with
    /// weight decay if `decay`: `p = p * (1 - lr * wd) - lr * m_hat / (sqrt(v_hat) + eps)`.
    #[inline]
    pub fn apply(
        &self,
        params: &mut [f32],
        grad: &[f32],
        m: &mut [f32],
        v: &mut [f32],
        decay: bool,
    ) {
        let shrink = if decay { self.shrink } else { 1.0 };
        let moments = m.iter_mut().zip(v.iter_mut());
        for ((p, &g), (m, v)) in params.iter_mut().zip(grad).zip(moments) {
            let g = g * self.grad_scale;
            *m = BETA1 * *m + (1.0 - BETA1) * g;
            *v = BETA2 * *v + (1.0 - BETA2) * g * g;
            *p = *p * shrink - self.step_size * *m / (v.sqrt() / self.root_correction2 + EPSILON);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_step_moves_each_parameter_by_the_learning_rate() {
        let mut adam = AdamW::new(3, 0.5);
        let mut params = [1.0, 1.0, 1.0];
        let rule = adam.begin_step(0.1, 0.5);
        let (m, v) = adam.m.split_at_mut(1);
        let (vm, vv) = adam.v.split_at_mut(1);
        rule.apply(&mut params[..1], &[2.0], m, vm, true);
        rule.apply(&mut params[1..], &[-4.0, 0.0], v, vv, false);
        // Bias-corrected m / sqrt(v) is the sign of the gradient on the first step.
        assert!((params[0] - (1.0 * (1.0 - 0.05) - 0.1)).abs() < 1e-6);
        assert!((params[1] - 1.1).abs() < 1e-6);
        assert_eq!(params[2], 1.0);
        assert_eq!(adam.steps, 1);
    }

    #[test]
    fn minimises_a_quadratic() {
        let mut adam = AdamW::new(2, 0.0);
        let mut params = [3.0f32, -2.0];
        for _ in 0..2000 {
            let grad = [2.0 * (params[0] - 1.0), 2.0 * (params[1] + 0.5)];
            let rule = adam.begin_step(0.01, 1.0);
            rule.apply(&mut params, &grad, &mut adam.m, &mut adam.v, false);
        }
        assert!((params[0] - 1.0).abs() < 1e-2 && (params[1] + 0.5).abs() < 1e-2, "{params:?}");
    }
}
