//! The optimiser's side of training: one step on a batch of samples, split between threads
//! (each sums its part's gradient into its own buffer; the buffers are added in thread
//! order, so a step is the same whatever the split), AdamW applied over the parameter
//! groups in parallel, and the mean loss of a sample set.

use super::adamw::{AdamW, StepRule};
use super::data::Samples;
use super::loss::{self, Target};
use super::network::{self, Network, Scratch};

/// One thread's buffers, kept from batch to batch.
struct Worker {
    grad: Vec<f32>,
    scratch: Scratch,
}

/// The network with its optimiser and per-thread gradient buffers.
pub struct Trainer {
    pub network: Network,
    pub adam: AdamW,
    workers: Vec<Worker>,
}

/// Adds the gradients of the samples `part` to `worker.grad` (cleared first); returns the
/// summed loss.
fn accumulate(
    network: &Network,
    samples: &impl Samples,
    part: &[u32],
    target: Target,
    worker: &mut Worker,
) -> f64 {
    worker.grad.fill(0.0);
    let mut total = 0.0f64;
    for &index in part {
        let sample = samples.sample(index as usize);
        total += f64::from(loss::add_gradient(
            network,
            &sample,
            target,
            &mut worker.scratch,
            &mut worker.grad,
        ));
    }
    network.complete_gradient(&mut worker.grad);
    total
}

impl Trainer {
    pub fn new(network: Network, adam: AdamW, threads: usize) -> Trainer {
        let params = network.params().len();
        let workers = (0..threads.max(1))
            .map(|_| Worker { grad: vec![0.0; params], scratch: Scratch::new(network.hidden()) })
            .collect();
        Trainer { network, adam, workers }
    }

    /// One optimiser step on the samples `batch`; returns their summed loss (before it).
    pub fn step(&mut self, samples: &impl Samples, batch: &[u32], target: Target, lr: f32) -> f64 {
        if batch.is_empty() {
            return 0.0;
        }
        let chunk = batch.len().div_ceil(self.workers.len());
        let used = batch.len().div_ceil(chunk);
        let network = &self.network;
        let loss = if used == 1 {
            accumulate(network, samples, batch, target, &mut self.workers[0])
        } else {
            let losses: Vec<f64> = std::thread::scope(|scope| {
                let handles: Vec<_> = self
                    .workers
                    .iter_mut()
                    .zip(batch.chunks(chunk))
                    .map(|(worker, part)| {
                        scope.spawn(move || accumulate(network, samples, part, target, worker))
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().expect("training thread panicked")).collect()
            });
            losses.iter().sum()
        };
        let rule = self.adam.begin_step(lr, 1.0 / batch.len() as f32);
        self.update(rule, used);
        loss
    }

    /// Sums the first `used` workers' gradients into the first's and applies `rule`. The
    /// feature weights, nearly all parameters, are split between the threads; each element's
    /// sum still runs over the workers in order, so the result does not depend on the split.
    fn update(&mut self, rule: StepRule, used: usize) {
        let threads = self.workers.len();
        let groups = self.network.groups();
        let (first, rest) = self.workers.split_at_mut(1);
        let others: Vec<&[f32]> = rest[..used - 1].iter().map(|w| w.grad.as_slice()).collect();
        let others = &others;
        let update = move |start: usize,
                           p: &mut [f32],
                           g: &mut [f32],
                           m: &mut [f32],
                           v: &mut [f32],
                           decay: bool,
                           clip: Option<f32>| {
            let end = start + g.len();
            for other in others {
                for (sum, x) in g.iter_mut().zip(&other[start..end]) {
                    *sum += x;
                }
            }
            rule.apply(p, g, m, v, decay);
            if let Some(limit) = clip {
                network::clip(p, limit);
            }
        };
        let mut params = self.network.params_mut();
        let mut grad = first[0].grad.as_mut_slice();
        let mut m = self.adam.m.as_mut_slice();
        let mut v = self.adam.v.as_mut_slice();
        std::thread::scope(|scope| {
            for (range, decay, clip) in groups {
                let len = range.len();
                let (p, p_rest) = std::mem::take(&mut params).split_at_mut(len);
                let (g, g_rest) = std::mem::take(&mut grad).split_at_mut(len);
                let (gm, m_rest) = std::mem::take(&mut m).split_at_mut(len);
                let (gv, v_rest) = std::mem::take(&mut v).split_at_mut(len);
                (params, grad, m, v) = (p_rest, g_rest, m_rest, v_rest);
                if threads == 1 || len < 4096 {
                    update(range.start, p, g, gm, gv, decay, clip);
                    continue;
                }
                let piece = len.div_ceil(threads);
                let parts = p
                    .chunks_mut(piece)
                    .zip(g.chunks_mut(piece))
                    .zip(gm.chunks_mut(piece).zip(gv.chunks_mut(piece)));
                for (i, ((p, g), (m, v))) in parts.enumerate() {
                    let start = range.start + i * piece;
                    scope.spawn(move || update(start, p, g, m, v, decay, clip));
                }
            }
        });
        self.network.refold();
    }

    /// Steps through `order` in batches of `batch` samples; returns their summed loss.
    pub fn pass(
        &mut self,
        samples: &impl Samples,
        order: &[u32],
        batch: usize,
        target: Target,
        lr: f32,
    ) -> f64 {
        order.chunks(batch.max(1)).map(|part| self.step(samples, part, target, lr)).sum()
    }

    /// Mean loss of the current network on `indices`, over the trainer's threads.
    pub fn mean_loss(&self, samples: &impl Samples, indices: &[u32], target: Target) -> f64 {
        if indices.is_empty() {
            return f64::NAN;
        }
        let network = &self.network;
        let chunk = indices.len().div_ceil(self.workers.len());
        let losses: Vec<f64> = std::thread::scope(|scope| {
            let handles: Vec<_> = indices
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || {
                        let mut scratch = Scratch::new(network.hidden());
                        part.iter()
                            .map(|&i| {
                                let sample = samples.sample(i as usize);
                                f64::from(loss::loss(network, &sample, target, &mut scratch))
                            })
                            .sum::<f64>()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("validation thread panicked")).collect()
        });
        losses.iter().sum::<f64>() / indices.len() as f64
    }
}
