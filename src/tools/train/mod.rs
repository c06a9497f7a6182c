//! The NNUE trainer: fits the float network to datagen records and writes the quantised net
//! the engine loads.
//!
//! # Training
//!
//! ```text
//! zwischen train --data FILE [--data FILE2 ...] --out NET.nnue [--hidden 256] [--epochs 30]
//!     [--batch 16384] [--lr 0.001] [--final-lr-ratio 0.01] [--wdl 0.25] [--score-scale 400]
//!     [--weight-decay 0.01]
//!     [--threads N] [--seed 1] [--val-fraction 0.01 | --val-data FILE] [--mirror | --king-mirror]
//!     [--checkpoint-dir DIR] [--cache-dir DIR] [--shuffle-buffer N]
//!     [--resume CHECKPOINT | --init NET.nnue]
//! ```
//!
//! The rooms: [`stream`] (the data, decoded once and streamed in a new order every epoch),
//! [`data`] (a position as the network reads it, and sets kept in memory), [`loss`] (the
//! target, the loss and its derivative), [`network`] (the float network's forward and
//! backward passes), [`trainer`] (an optimiser step over threads), [`adamw`] and
//! [`checkpoint`]; this file holds the settings and the run.
//!
//! * **Data.** Every data file (game packs, such as the chunks of `data/`; the older game
//!   files; 32-byte records) is decoded once, a file a thread at a time, into a cache of
//!   32-byte records in `--cache-dir` (default: the system's temporary folder; removed at the
//!   end), and each epoch streams the cache in a new shuffled order through a buffer of
//!   `--shuffle-buffer` positions ([`stream`]): memory stays bounded whatever the data's size.
//!   Records that do not decode are skipped and counted, as are records with |score| > 10000
//!   (mate scores); a trailing partial record is ignored with a warning. The last
//!   `--val-fraction` of the positions (in file order, so whole games) is the validation set,
//!   never trained on; `--val-data FILE` (repeatable) makes those files the validation set
//!   instead, so that runs on different data are judged on the same games. The validation
//!   set is held in memory, about 70 bytes a position.
//!   `--mirror` adds the left-right mirror of every position without castling rights.
//!   `--king-mirror` mirrors the inputs instead (a perspective whose king is on files e-h
//!   sees the board mirrored), which makes a position and its mirror one sample: `--mirror`
//!   then only repeats samples.
//! * **Network.** The engine's: accumulator per view = feature biases + the feature weights of
//!   every piece ([`crate::eval::feature_index`]); `out = sum screlu(acc_us) * w[..H] +
//!   sum screlu(acc_them) * w[H..] + b` with `screlu(x) = clamp(x, 0, 1)^2`; centipawns for the
//!   side to move = `out * 400`. Initialisation is seeded by `--seed` (see [`Network::new`]).
//! * **Loss.** Mean squared error between `sigmoid(out * 400 / K)` and the target `(1 - wdl) *
//!   sigmoid(score / K) + wdl * result`, score and result (1 win, 0.5 draw, 0 loss) from the
//!   side to move's point of view, K the logistic's scale in centipawns (`--score-scale`, 400
//!   by default, the engine's own: the network learns centipawns whatever K is) ([`loss`]).
//! * **Optimiser.** AdamW (beta 0.9 / 0.999, eps 1e-8) on the mean gradient of each batch,
//!   weight decay `--weight-decay` (decoupled, on the two weight matrices only, not on biases).
//!   After every step all weights and the feature biases are clamped to ±1.98
//!   ([`crate::eval::WEIGHT_CLIP`]); the output bias is left free.
//! * **Schedule.** Cosine per epoch: epoch `e` of `E` (from 0) uses `lr_end + (lr - lr_end) *
//!   (1 + cos(pi * e / (E - 1))) / 2` with `lr_end = lr * final-lr-ratio`, so the first epoch
//!   runs at `--lr` and the last at `lr_end`. The schedule depends on `--epochs`, so a resumed
//!   run should be given the same `--epochs` as the original.
//! * **Threads.** Each batch is split into one contiguous chunk per thread; each thread sums
//!   its chunk's gradient into its own buffer and the buffers are added in thread order. A run
//!   is therefore bit-for-bit reproducible for a given seed, data and thread count, but not
//!   across thread counts (float sums group differently), though the results are equivalent.
//! * **Output.** After every epoch: the quantised net to `--out` (see
//!   [`crate::eval::file`]), so a stopped run leaves a usable net, and a float checkpoint
//!   `<out stem>-epoch<N>.ckpt` (see [`checkpoint`]) in `--checkpoint-dir` (default: the
//!   directory of `--out`). `--resume` continues from such a checkpoint: weights, optimiser
//!   moments and the epoch count; each epoch's order is seeded by the seed and the epoch
//!   number, so a resumed run with the same settings matches an uninterrupted one exactly.
//! * **Training on.** `--init NET.nnue` starts from a quantised net (its width and buckets, no
//!   factoriser; each value divided by its scale, which quantises back to the same file) with
//!   fresh optimiser moments and the schedule given, to train an earlier net on further data.
//!
//! Each epoch prints its number, the training loss (mean over the epoch, as the weights
//! moved), the validation loss, the learning rate, samples (positions and their mirrors)
//! trained a second, and seconds.

pub mod adamw;
pub mod checkpoint;
pub mod data;
pub mod loss;
pub mod network;
pub mod stream;
pub mod trainer;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use thiserror::Error;

pub use adamw::{AdamW, StepRule};
pub use checkpoint::{Checkpoint, CheckpointError};
pub use data::{Dataset, LoadReport, Sample, Samples};
pub use loss::Target;
pub use network::{Architecture, Network, Scratch, king_layout};
pub use stream::RecordCache;
pub use trainer::Trainer;

use crate::eval::file::{
    Buckets, HEADER_BYTES, MAX_OUTPUT_BUCKETS, QuantisedNet, declared_hidden, fnv1a,
};
use crate::eval::{HIDDEN, INPUTS, QA, QB, SCALE};

/// What `zwischen train` does (`main.rs` turns the command line into it; the fields are
/// the options of the same names).
#[derive(Clone, Debug)]
pub struct Settings {
    /// Data files: games or 32-byte records (see [`crate::tools::records`]).
    pub data: Vec<PathBuf>,
    /// The quantised network file, rewritten after every epoch.
    pub out: PathBuf,
    /// Hidden width (`None`: the engine's, or the checkpoint's when resuming).
    pub hidden: Option<usize>,
    /// King buckets of the inputs: 1 (none), or 2, 4, 8 or 16, mirrored left-right (see
    /// [`king_layout`]); ignored when resuming.
    pub king_buckets: usize,
    /// Output buckets, chosen by the number of pieces (1 to 16); ignored when resuming.
    pub output_buckets: usize,
    /// Train king buckets without shared (factoriser) rows.
    pub no_factoriser: bool,
    /// Mirror a perspective's board left-right when its king is on files e-h (always so
    /// with king buckets): a position and its mirror image then have the same inputs.
    pub king_mirror: bool,
    pub epochs: usize,
    /// Positions per optimiser step.
    pub batch: usize,
    /// Learning rate of the first epoch.
    pub lr: f32,
    /// Last epoch's learning rate as a share of `lr` (cosine in between).
    pub final_lr_ratio: f32,
    /// Epochs (from 0) at which the learning rate drops by `lr_drop_factor`, instead of the
    /// cosine schedule.
    pub lr_drops: Vec<usize>,
    pub lr_drop_factor: f32,
    /// Weight of the game result in the target (the rest is the search score).
    pub wdl: f32,
    /// The centipawns of the logistic that turns scores into expected results, in the target
    /// and the prediction alike.
    pub score_scale: f32,
    pub weight_decay: f32,
    pub threads: usize,
    pub seed: u64,
    /// Share of the positions held out for validation.
    pub val_fraction: f64,
    /// Validation files instead of a share of `data` (all of `data` but these files is then
    /// trained on): the same validation set for runs on different data.
    pub val_data: Vec<PathBuf>,
    /// Also train on the left-right mirror of each position without castling rights.
    pub mirror: bool,
    /// Where the per-epoch float checkpoints go (`None`: next to `out`).
    pub checkpoint_dir: Option<PathBuf>,
    /// Where the decoded data is cached for the run (`None`: the system's temporary folder);
    /// 32 bytes a position, removed at the end.
    pub cache_dir: Option<PathBuf>,
    /// Positions read and shuffled together (see [`stream`]): the memory a run needs beyond
    /// the network is about 40 bytes times this, twice over.
    pub shuffle_buffer: usize,
    /// Continue from a checkpoint (keep `epochs` as in the original run).
    pub resume: Option<PathBuf>,
    /// Start from this quantised net (its architecture, fresh optimiser moments) instead of
    /// random weights: to train an existing net on further data.
    pub init: Option<PathBuf>,
}

impl Default for Settings {
    /// The command line's defaults, with no data and `net.nnue` as the output.
    fn default() -> Self {
        Settings {
            data: Vec::new(),
            out: PathBuf::from("net.nnue"),
            hidden: None,
            king_buckets: 1,
            output_buckets: 1,
            no_factoriser: false,
            king_mirror: false,
            epochs: 30,
            batch: 16384,
            lr: 0.001,
            final_lr_ratio: 0.01,
            lr_drops: Vec::new(),
            lr_drop_factor: 0.1,
            wdl: 0.25,
            score_scale: SCALE as f32,
            weight_decay: 0.01,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            seed: 1,
            val_fraction: 0.01,
            val_data: Vec::new(),
            mirror: false,
            checkpoint_dir: None,
            cache_dir: None,
            shuffle_buffer: 16 << 20,
            resume: None,
            init: None,
        }
    }
}

impl Settings {
    /// The learning rate of epoch `epoch` (from 0): `lr` times the drop factor for every drop
    /// at or before `epoch`, or without drops cosine from `lr` to `lr * final_lr_ratio`.
    pub fn learning_rate(&self, epoch: usize) -> f32 {
        if !self.lr_drops.is_empty() {
            let drops = self.lr_drops.iter().filter(|&&at| at <= epoch).count();
            return self.lr * self.lr_drop_factor.powi(drops as i32);
        }
        if self.epochs <= 1 {
            return self.lr;
        }
        let progress = (epoch as f64 / (self.epochs - 1) as f64).min(1.0);
        let (start, end) = (f64::from(self.lr), f64::from(self.lr * self.final_lr_ratio));
        (end + (start - end) * 0.5 * (1.0 + (std::f64::consts::PI * progress).cos())) as f32
    }

    fn check(&self) -> Result<(), TrainError> {
        let fail = |what: &str| Err(TrainError::Settings(what.to_string()));
        if self.data.is_empty() {
            return fail("no --data file given");
        }
        if self.epochs == 0 || self.batch == 0 || self.threads == 0 || self.shuffle_buffer == 0 {
            return fail("--epochs, --batch, --threads and --shuffle-buffer must be at least 1");
        }
        if self.shuffle_buffer > 1 << 30 {
            return fail("--shuffle-buffer must be at most 2^30 positions");
        }
        if self.hidden.is_some_and(|h| h == 0 || h > 1 << 16) {
            return fail("--hidden must be between 1 and 65536");
        }
        let positive = |x: f32| x > 0.0 && x.is_finite();
        if !positive(self.lr) || !positive(self.final_lr_ratio) {
            return fail("--lr and --final-lr-ratio must be positive");
        }
        if king_layout(self.king_buckets).is_none() {
            return fail("--king-buckets must be 1, 2, 4, 8 or 16");
        }
        if !(1..=MAX_OUTPUT_BUCKETS).contains(&self.output_buckets) {
            return fail("--output-buckets must be between 1 and 16");
        }
        if !positive(self.lr_drop_factor) {
            return fail("--lr-drop-factor must be positive");
        }
        if !(0.0..=1.0).contains(&self.wdl) {
            return fail("--wdl must be between 0 and 1");
        }
        if !(1.0..=10_000.0).contains(&self.score_scale) {
            return fail("--score-scale must be between 1 and 10000");
        }
        if self.weight_decay.is_nan() || self.weight_decay < 0.0 {
            return fail("--weight-decay must not be negative");
        }
        if !(0.0..1.0).contains(&self.val_fraction) {
            return fail("--val-fraction must be at least 0 and below 1");
        }
        if self.resume.is_some() && self.init.is_some() {
            return fail("--resume and --init exclude each other");
        }
        Ok(())
    }

    /// What each sample teaches.
    pub fn target(&self) -> Target {
        Target { wdl: self.wdl, score_scale: self.score_scale }
    }

    /// The architecture a new run trains.
    pub fn architecture(&self) -> Architecture {
        let king = king_layout(self.king_buckets).unwrap_or(Buckets::NONE);
        let mirrored = king.mirrored || self.king_mirror;
        Architecture {
            hidden: self.hidden.unwrap_or(HIDDEN),
            buckets: Buckets { output: self.output_buckets, mirrored, ..king },
            factoriser: self.king_buckets > 1 && !self.no_factoriser,
        }
    }

    /// Where the checkpoint after `epoch` epochs goes.
    pub fn checkpoint_path(&self, epoch: usize) -> PathBuf {
        let dir = match &self.checkpoint_dir {
            Some(dir) => dir.clone(),
            None => self.out.parent().map_or_else(PathBuf::new, Path::to_path_buf),
        };
        let stem = self
            .out
            .file_stem()
            .map_or_else(|| "net".to_string(), |stem| stem.to_string_lossy().into_owned());
        dir.join(format!("{stem}-epoch{epoch}.ckpt"))
    }
}

#[derive(Debug, Error)]
pub enum TrainError {
    #[error("{0}")]
    Settings(String),
    #[error("cannot read {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("cannot write {path}: {source}")]
    Write { path: String, source: std::io::Error },
    #[error("checkpoint {path}: {source}")]
    Checkpoint { path: String, source: CheckpointError },
    #[error("no usable training positions")]
    NoData,
}

/// One epoch over the cache's records `0..end`: the next buffer is read on a thread of its
/// own while the trainer works through the current one. Returns the summed loss and the
/// number of samples trained on.
fn train_epoch(
    trainer: &mut Trainer,
    cache: &RecordCache,
    end: usize,
    settings: &Settings,
    lr: f32,
    seed: u64,
) -> std::io::Result<(f64, usize)> {
    let mut epoch = cache.epoch(end, seed, settings.shuffle_buffer, settings.mirror);
    let (sender, receiver) = std::sync::mpsc::sync_channel(1);
    std::thread::scope(|scope| {
        scope.spawn(move || {
            loop {
                let next = epoch.next_buffer();
                let last = !matches!(next, Ok(Some(_)));
                if sender.send(next).is_err() || last {
                    break;
                }
            }
        });
        let (mut loss, mut samples) = (0.0, 0);
        for buffer in receiver {
            let Some(buffer) = buffer? else { break };
            loss += trainer.pass(&buffer, &buffer.order, settings.batch, settings.target(), lr);
            samples += buffer.order.len();
        }
        Ok((loss, samples))
    })
}

/// The mean loss of the net file `net` on the positions of `files` against `target`, and
/// their number: nets of any run compared on one fixed validation set.
pub fn validation_loss(
    net: &Path,
    files: &[PathBuf],
    target: Target,
    threads: usize,
    log: &mut dyn Write,
) -> Result<(f64, usize), TrainError> {
    let network = read_network(net, None, log)?;
    let (mut validation, mut report) = (Dataset::default(), LoadReport::default());
    for path in files {
        validation
            .load_file(path, &mut report)
            .map_err(|source| TrainError::Read { path: path.display().to_string(), source })?;
    }
    if validation.is_empty() {
        return Err(TrainError::NoData);
    }
    let order: Vec<u32> = (0..validation.len() as u32).collect();
    let trainer = Trainer::new(network, AdamW::new(0, 0.0), threads);
    Ok((trainer.mean_loss(&validation, &order, target), validation.len()))
}

/// The seed of epoch `epoch`'s shuffle.
fn epoch_seed(seed: u64, epoch: usize) -> u64 {
    seed ^ (epoch as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// Writes `bytes` to `path` through a temporary file, so a reader never sees half a file.
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), TrainError> {
    let fail = |source| TrainError::Write { path: path.display().to_string(), source };
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".tmp");
    std::fs::write(&temporary, bytes).map_err(fail)?;
    std::fs::rename(&temporary, path).map_err(fail)
}

/// The float network of the quantised net file `path` (`--init`, `val-loss`): its width and
/// buckets, no factoriser (see [`Network::from_quantised`]); `hidden`, if given, must be its
/// width.
fn read_network(
    path: &Path,
    hidden: Option<usize>,
    log: &mut dyn Write,
) -> Result<Network, TrainError> {
    let shown = path.display().to_string();
    let bytes =
        std::fs::read(path).map_err(|source| TrainError::Read { path: shown.clone(), source })?;
    let Some(declared) = declared_hidden(&bytes) else {
        return Err(TrainError::Settings(format!("{shown} is not a network file")));
    };
    if let Some(wanted) = hidden.filter(|&h| h != declared) {
        return Err(TrainError::Settings(format!(
            "--hidden {wanted} does not match {shown}'s {declared}"
        )));
    }
    let net = QuantisedNet::from_bytes(&bytes, INPUTS, declared)
        .map_err(|error| TrainError::Settings(format!("{shown}: {error}")))?;
    if (net.qa, net.qb) != (QA as u32, QB as u32) {
        return Err(TrainError::Settings(format!(
            "{shown} is quantised otherwise than this build"
        )));
    }
    writeln!(log, "starting from {shown} (FNV-1a {:016x})", fnv1a(&bytes[HEADER_BYTES..])).ok();
    if net.scale != SCALE as u32 {
        // The scale is how the engine reads the output, not part of what was learnt.
        writeln!(
            log,
            "note: its output scale {} is not kept: the net written has {SCALE}",
            net.scale
        )
        .ok();
    }
    Ok(Network::from_quantised(&net))
}

/// Loads the data and trains as `settings` say, logging to `log`; returns the final network.
pub fn run(settings: &Settings, log: &mut dyn Write) -> Result<Network, TrainError> {
    settings.check()?;
    let (network, adam, start_epoch) = match &settings.resume {
        Some(path) => {
            let shown = path.display().to_string();
            let bytes = std::fs::read(path)
                .map_err(|source| TrainError::Read { path: shown.clone(), source })?;
            let checkpoint = Checkpoint::from_bytes(&bytes)
                .map_err(|source| TrainError::Checkpoint { path: shown.clone(), source })?;
            let hidden = checkpoint.network.hidden();
            if settings.hidden.is_some_and(|h| h != hidden) {
                return Err(TrainError::Settings(format!(
                    "--hidden {} does not match the checkpoint's {hidden}",
                    settings.hidden.unwrap_or_default()
                )));
            }
            let mut adam = AdamW::new(checkpoint.network.params().len(), settings.weight_decay);
            if let Some((m, v, steps)) = checkpoint.optimiser {
                (adam.m, adam.v, adam.steps) = (m, v, steps);
            }
            writeln!(log, "resuming from {shown} after epoch {}", checkpoint.epoch).ok();
            (checkpoint.network, adam, checkpoint.epoch as usize)
        }
        None => {
            let network = match &settings.init {
                Some(path) => read_network(path, settings.hidden, log)?,
                None => Network::with_architecture(settings.architecture(), settings.seed),
            };
            let adam = AdamW::new(network.params().len(), settings.weight_decay);
            (network, adam, 0)
        }
    };
    let started = Instant::now();
    let mut report = LoadReport::default();
    let cache_parent = settings.cache_dir.clone().unwrap_or_else(std::env::temp_dir);
    // A validation file among the data (as when --data names a folder) is not trained on.
    let held_out: Vec<PathBuf> =
        settings.val_data.iter().filter_map(|path| path.canonicalize().ok()).collect();
    let inputs: Vec<PathBuf> = settings
        .data
        .iter()
        .filter(|path| !path.canonicalize().is_ok_and(|path| held_out.contains(&path)))
        .cloned()
        .collect();
    if inputs.len() < settings.data.len() {
        writeln!(
            log,
            "{} data files are validation files too: not trained on",
            settings.data.len() - inputs.len()
        )
        .ok();
    }
    let decoded = RecordCache::build(&inputs, &cache_parent, settings.threads, &mut report)
        .map_err(|source| TrainError::Read { path: cache_parent.display().to_string(), source })?;
    // The validation set, in memory: the files of --val-data, or else the last
    // --val-fraction of the data (in file order, so whole games: a random split would hold out
    // neighbours of training positions and flatter the validation loss). At least one
    // position trains.
    let mut validation = Dataset::default();
    let train_end = if settings.val_data.is_empty() {
        let held = ((decoded.len() as f64 * settings.val_fraction).round() as usize)
            .min(decoded.len().saturating_sub(1));
        let end = decoded.len() - held;
        decoded
            .read_range(end..decoded.len(), |record| {
                validation.push_record(record);
            })
            .map_err(|source| TrainError::Read {
                path: cache_parent.display().to_string(),
                source,
            })?;
        end
    } else {
        for path in &settings.val_data {
            validation
                .load_file(path, &mut report)
                .map_err(|source| TrainError::Read { path: path.display().to_string(), source })?;
        }
        decoded.len()
    };
    for (path, bytes) in &report.partial {
        writeln!(log, "warning: {path} ends with a partial record of {bytes} bytes, ignored").ok();
    }
    if train_end == 0 {
        return Err(TrainError::NoData);
    }
    let cache = decoded
        .scattered(train_end, &cache_parent, settings.seed)
        .map_err(|source| TrainError::Read { path: cache_parent.display().to_string(), source })?;
    drop(decoded);
    let validation_order: Vec<u32> = (0..validation.len() as u32).collect();
    writeln!(
        log,
        "data: {} records read, {} invalid, {} with |score| > {} skipped; {} training and {} validation positions ({:.1} s)",
        report.records,
        report.invalid,
        report.extreme,
        data::MAX_SCORE,
        train_end,
        validation.len(),
        started.elapsed().as_secs_f64()
    )
    .ok();

    let hidden = network.hidden();
    let architecture = *network.architecture();
    writeln!(
        log,
        "network: (768 x {} king buckets{}{} -> {hidden}) x 2 -> {} output buckets, {} parameters; {} threads, batch {}, lr {:.3e} -> {:.3e}, wdl {}, score scale {}, weight decay {}, seed {}",
        architecture.buckets.king_buckets(),
        if architecture.buckets.mirrored { ", mirrored" } else { "" },
        if architecture.factoriser { ", factoriser" } else { "" },
        architecture.buckets.output,
        network.params().len(),
        settings.threads,
        settings.batch,
        settings.lr,
        settings.learning_rate(settings.epochs.saturating_sub(1)),
        settings.wdl,
        settings.score_scale,
        settings.weight_decay,
        settings.seed
    )
    .ok();
    if hidden != HIDDEN {
        writeln!(
            log,
            "note: this build's hidden width is {HIDDEN}, not {hidden}: the net loads in a build \
             that embeds a net of width {hidden}"
        )
        .ok();
    }

    let mut trainer = Trainer::new(network, adam, settings.threads);
    if start_epoch >= settings.epochs {
        writeln!(log, "the checkpoint has {start_epoch} epochs already; nothing to train").ok();
    }
    for epoch in start_epoch..settings.epochs {
        let epoch_started = Instant::now();
        let lr = settings.learning_rate(epoch);
        let (loss_sum, samples) = train_epoch(
            &mut trainer,
            &cache,
            train_end,
            settings,
            lr,
            epoch_seed(settings.seed, epoch),
        )
        .map_err(|source| TrainError::Read { path: cache_parent.display().to_string(), source })?;
        let train_loss = loss_sum / samples.max(1) as f64;
        let train_seconds = epoch_started.elapsed().as_secs_f64();
        let val_loss = trainer.mean_loss(&validation, &validation_order, settings.target());
        let done = epoch + 1;
        let checkpoint = Checkpoint::new(&trainer.network, &trainer.adam, done as u32);
        let checkpoint_path = settings.checkpoint_path(done);
        if let Some(dir) = checkpoint_path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|source| TrainError::Write { path: dir.display().to_string(), source })?;
        }
        write_file(&checkpoint_path, &checkpoint.to_bytes())?;
        write_file(&settings.out, &trainer.network.quantise().to_bytes())?;
        writeln!(
            log,
            "epoch {done:>3}/{}  train {train_loss:.6}  val {}  lr {lr:.3e}  {:.0} pos/s  {:.1} s",
            settings.epochs,
            if validation.is_empty() { "-".to_string() } else { format!("{val_loss:.6}") },
            samples as f64 / train_seconds.max(1e-9),
            epoch_started.elapsed().as_secs_f64()
        )
        .ok();
        log.flush().ok();
    }
    if start_epoch >= settings.epochs {
        write_file(&settings.out, &trainer.network.quantise().to_bytes())?;
    }
    writeln!(
        log,
        "wrote {} ({:.1} s in all)",
        settings.out.display(),
        started.elapsed().as_secs_f64()
    )
    .ok();
    Ok(trainer.network)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::file::QuantisedNet;
    use crate::tools::records::PackedPosition;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    /// The usual target, and one of search scores alone.
    const MIXED: Target = Target { wdl: 0.25, score_scale: SCALE as f32 };
    const SCORES: Target = Target { wdl: 0.0, score_scale: SCALE as f32 };

    /// Random (not necessarily legal) positions labelled by material: score = White's material
    /// minus Black's in centipawns, result by its sign.
    fn synthetic(count: usize, seed: u64) -> Vec<PackedPosition> {
        const VALUES: [i32; 6] = [100, 300, 320, 500, 900, 0];
        let mut rng = StdRng::seed_from_u64(seed);
        (0..count)
            .map(|_| {
                let mut placed: Vec<(u8, u8)> = Vec::new();
                let mut occupied = 0u64;
                let extra = rng.random_range(0..14);
                let mut pieces = vec![5u8, 11];
                for _ in 0..extra {
                    let kind = rng.random_range(0..5u8);
                    pieces.push(if rng.random_range(0..2) == 0 { kind } else { kind + 6 });
                }
                for code in pieces {
                    let square = loop {
                        let square = rng.random_range(0..64u8);
                        if occupied & (1 << square) == 0 {
                            break square;
                        }
                    };
                    occupied |= 1 << square;
                    placed.push((square, code));
                }
                placed.sort_unstable();
                let mut codes = [0u8; 16];
                let mut material = 0;
                for (i, &(_, code)) in placed.iter().enumerate() {
                    codes[i / 2] |= code << (4 * (i % 2));
                    let value = VALUES[usize::from(code % 6)];
                    material += if code < 6 { value } else { -value };
                }
                let result = if material > 150 {
                    2
                } else if material < -150 {
                    0
                } else {
                    1
                };
                PackedPosition {
                    occupied,
                    codes,
                    score: material as i16,
                    result,
                    side: if rng.random_range(0..2) == 0 {
                        crate::chess::Color::White
                    } else {
                        crate::chess::Color::Black
                    },
                    en_passant: 64,
                    halfmove: 0,
                    fullmove: 1,
                }
            })
            .collect()
    }

    fn dataset(count: usize, seed: u64) -> Dataset {
        let mut data = Dataset::default();
        for record in synthetic(count, seed) {
            assert!(data.push_record(&record));
        }
        data
    }

    fn trainer(hidden: usize, seed: u64, threads: usize) -> Trainer {
        let network = Network::new(hidden, seed);
        let adam = AdamW::new(network.params().len(), 0.01);
        Trainer::new(network, adam, threads)
    }

    /// The first `count` samples in an order shuffled by `seed`.
    fn shuffled(count: usize, seed: u64) -> Vec<u32> {
        let mut order: Vec<u32> = (0..count as u32).collect();
        data::shuffle(&mut order, &mut StdRng::seed_from_u64(seed));
        order
    }

    #[test]
    fn training_is_deterministic() {
        let data = dataset(600, 2);
        let run = || {
            let mut t = trainer(16, 4, 3);
            for epoch in 0..2 {
                t.pass(&data, &shuffled(540, epoch_seed(4, epoch)), 50, MIXED, 0.01);
            }
            t.network
        };
        let first = run();
        assert_eq!(first, run());
        assert_ne!(first, Network::new(16, 4));
    }

    #[test]
    fn threaded_step_equals_the_serial_sum() {
        let data = dataset(5000, 3);
        let batch: Vec<u32> = (0..5000).collect();
        let mut threaded = trainer(8, 2, 3);
        threaded.step(&data, &batch, MIXED, 0.01);
        // The same step by hand: chunk gradients summed in order, then AdamW and the clip.
        let mut network = Network::new(8, 2);
        let mut adam = AdamW::new(network.params().len(), 0.01);
        let mut sum = vec![0.0f32; network.params().len()];
        let mut scratch = Scratch::new(8);
        for part in batch.chunks(5000usize.div_ceil(3)) {
            let mut grad = vec![0.0f32; sum.len()];
            for &i in part {
                loss::add_gradient(
                    &network,
                    &data.sample(i as usize),
                    MIXED,
                    &mut scratch,
                    &mut grad,
                );
            }
            sum.iter_mut().zip(&grad).for_each(|(s, g)| *s += g);
        }
        let rule = adam.begin_step(0.01, 1.0 / 5000.0);
        for (range, decay, clip) in network.groups() {
            let (m, v) = (&mut adam.m[range.clone()], &mut adam.v[range.clone()]);
            let p = &mut network.params_mut()[range.clone()];
            rule.apply(p, &sum[range], m, v, decay);
            if let Some(limit) = clip {
                network::clip(p, limit);
            }
        }
        assert_eq!(threaded.network, network);
        assert_eq!(threaded.adam, adam);
    }

    #[test]
    fn training_lowers_the_loss() {
        let data = dataset(2000, 5);
        let validation: Vec<u32> = (1800..2000).collect();
        let mut t = trainer(16, 1, 2);
        let before = t.mean_loss(&data, &validation, SCORES);
        for epoch in 0..6 {
            t.pass(&data, &shuffled(1800, epoch_seed(1, epoch)), 64, SCORES, 0.01);
        }
        let after = t.mean_loss(&data, &validation, SCORES);
        assert!(after < 0.2 * before, "validation loss {before} -> {after}");
    }

    #[test]
    fn schedule_runs_from_lr_to_the_final_ratio() {
        let settings = Settings { epochs: 5, lr: 0.01, final_lr_ratio: 0.1, ..Settings::default() };
        assert!((settings.learning_rate(0) - 0.01).abs() < 1e-9);
        assert!((settings.learning_rate(2) - 0.0055).abs() < 1e-9);
        assert!((settings.learning_rate(4) - 0.001).abs() < 1e-9);
        assert_eq!(Settings { epochs: 1, ..settings }.learning_rate(0), 0.01);
    }

    #[test]
    fn run_writes_the_net_and_resumes_exactly() {
        let dir = std::env::temp_dir().join(format!("zwischen-train-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let records = synthetic(300, 9);
        let mut first = Vec::new();
        for record in &records[..200] {
            first.extend_from_slice(&record.to_bytes());
        }
        first.extend_from_slice(&[0xff; 32]); // an invalid record
        let mut second = Vec::new();
        for record in &records[200..] {
            second.extend_from_slice(&record.to_bytes());
        }
        second.extend_from_slice(&[1, 2, 3]); // a partial record
        let data = vec![dir.join("a.bin"), dir.join("b.bin")];
        std::fs::write(&data[0], first).unwrap();
        std::fs::write(&data[1], second).unwrap();
        let settings = Settings {
            data,
            out: dir.join("full.nnue"),
            hidden: Some(8),
            epochs: 2,
            batch: 32,
            lr: 0.01,
            threads: 2,
            val_fraction: 0.1,
            ..Settings::default()
        };
        let mut log = Vec::new();
        let full = run(&settings, &mut log).unwrap();
        let log = String::from_utf8(log).unwrap();
        assert!(log.contains("301 records read, 1 invalid"), "{log}");
        assert!(log.contains("270 training and 30 validation"), "{log}");
        assert!(log.contains("partial record of 3 bytes"), "{log}");
        let written = QuantisedNet::from_bytes(&std::fs::read(&settings.out).unwrap(), 768, 8);
        assert_eq!(written, Ok(full.quantise()));

        let stopped = Settings { epochs: 1, out: dir.join("part.nnue"), ..settings.clone() };
        run(&stopped, &mut std::io::sink()).unwrap();
        let resumed = Settings {
            out: dir.join("part.nnue"),
            hidden: None,
            resume: Some(stopped.checkpoint_path(1)),
            ..settings.clone()
        };
        assert_eq!(run(&resumed, &mut std::io::sink()).unwrap(), full);
        assert!(settings.checkpoint_path(2).exists());

        // Training on from the written net: a step too small to move a weight by a
        // quantisation step gives the net back; a real one lowers its loss further.
        let standing = Settings {
            out: dir.join("init.nnue"),
            init: Some(settings.out.clone()),
            hidden: None,
            epochs: 1,
            lr: 1e-9,
            ..settings.clone()
        };
        let mut log = Vec::new();
        let again = run(&standing, &mut log).unwrap();
        assert!(String::from_utf8(log).unwrap().contains("starting from"));
        assert_eq!(again.quantise(), full.quantise());
        let (mut data, mut report) = (Dataset::default(), LoadReport::default());
        for path in &settings.data {
            data.load_file(path, &mut report).unwrap();
        }
        let all: Vec<u32> = (0..data.len() as u32).collect();
        let loss =
            |net: Network| Trainer::new(net, AdamW::new(0, 0.0), 1).mean_loss(&data, &all, SCORES);
        let trained_on =
            run(&Settings { epochs: 4, lr: 0.01, ..standing.clone() }, &mut std::io::sink());
        assert!(loss(trained_on.unwrap()) < loss(full.clone()));
        let both = Settings { resume: Some(settings.checkpoint_path(2)), ..standing };
        assert!(run(&both, &mut std::io::sink()).is_err());

        // A validation file instead of the data's tail: all of the data is trained on.
        let held_out = Settings {
            data: settings.data[..1].to_vec(),
            val_data: settings.data[1..].to_vec(),
            epochs: 1,
            out: dir.join("held.nnue"),
            ..settings.clone()
        };
        let mut log = Vec::new();
        run(&held_out, &mut log).unwrap();
        let log = String::from_utf8(log).unwrap();
        assert!(log.contains("200 training and 100 validation"), "{log}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
