//! `zwischen train`: the network's trainer (see src/tools/train/).

use std::process::ExitCode;

/// `zwischen train`'s command line; the defaults are the library's
/// (`zwischen::tools::train::Settings::default`).
#[derive(clap::Args)]
pub struct Args {
    /// A data file (a game pack, games or 32-byte records) or a folder of packs (such as
    /// `data/`); repeat for several.
    #[arg(long, required = true)]
    data: Vec<std::path::PathBuf>,
    /// The quantised network file, rewritten after every epoch.
    #[arg(long)]
    out: std::path::PathBuf,
    /// Hidden width (default: the engine's, or the checkpoint's when resuming).
    #[arg(long)]
    hidden: Option<usize>,
    /// King buckets of the inputs: 1 (none), or 2, 4, 8 or 16, mirrored left-right;
    /// ignored when resuming.
    #[arg(long, default_value_t = train_defaults().king_buckets)]
    king_buckets: usize,
    /// Output buckets, chosen by the number of pieces (1 to 16); ignored when resuming.
    #[arg(long, default_value_t = train_defaults().output_buckets)]
    output_buckets: usize,
    /// Train king buckets without shared (factoriser) rows.
    #[arg(long)]
    no_factoriser: bool,
    /// Mirror a perspective's board left-right when its king is on files e-h, so that its
    /// king is always on files a-d (always so with king buckets); ignored when resuming.
    #[arg(long)]
    king_mirror: bool,
    #[arg(long, default_value_t = train_defaults().epochs)]
    epochs: usize,
    /// Positions per optimiser step.
    #[arg(long, default_value_t = train_defaults().batch)]
    batch: usize,
    /// Learning rate of the first epoch.
    #[arg(long, default_value_t = train_defaults().lr)]
    lr: f32,
    /// Last epoch's learning rate as a share of --lr (cosine in between).
    #[arg(long, default_value_t = train_defaults().final_lr_ratio)]
    final_lr_ratio: f32,
    /// Epochs (from 0) at which the learning rate drops by --lr-drop-factor, instead of the
    /// cosine schedule: e.g. `--lr-drops 20,30`.
    #[arg(long, value_delimiter = ',')]
    lr_drops: Vec<usize>,
    #[arg(long, default_value_t = train_defaults().lr_drop_factor)]
    lr_drop_factor: f32,
    /// Weight of the game result in the target (the rest is the search score).
    #[arg(long, default_value_t = train_defaults().wdl)]
    wdl: f32,
    /// Centipawns of the logistic that turns scores into expected results (in the target and
    /// the prediction alike; the network still learns centipawns).
    #[arg(long, default_value_t = train_defaults().score_scale)]
    score_scale: f32,
    #[arg(long, default_value_t = train_defaults().weight_decay)]
    weight_decay: f32,
    /// Training threads (default: every core).
    #[arg(long, default_value_t = train_defaults().threads)]
    threads: usize,
    #[arg(long, default_value_t = train_defaults().seed)]
    seed: u64,
    /// Share of the positions held out for validation.
    #[arg(long, default_value_t = train_defaults().val_fraction)]
    val_fraction: f64,
    /// A validation file (repeat for several) instead of --val-fraction of the data, which
    /// is then all trained on but for these files: the same validation set for runs on
    /// different data.
    #[arg(long)]
    val_data: Vec<std::path::PathBuf>,
    /// Also train on the left-right mirror of each position without castling rights.
    #[arg(long)]
    mirror: bool,
    /// Where the per-epoch float checkpoints go (default: next to --out).
    #[arg(long)]
    checkpoint_dir: Option<std::path::PathBuf>,
    /// Where the data is decoded to for the run, 32 bytes a position, removed at the end
    /// (default: the system's temporary folder).
    #[arg(long)]
    cache_dir: Option<std::path::PathBuf>,
    /// Positions read and shuffled together each epoch; memory is about 80 bytes times this.
    #[arg(long, default_value_t = train_defaults().shuffle_buffer)]
    shuffle_buffer: usize,
    /// Continue from a checkpoint (keep --epochs as in the original run).
    #[arg(long)]
    resume: Option<std::path::PathBuf>,
    /// Start from this net file (its width and buckets) instead of random weights, to train
    /// it on further data; --king-buckets and --output-buckets are then ignored.
    #[arg(long, conflicts_with = "resume")]
    init: Option<std::path::PathBuf>,
}

fn train_defaults() -> zwischen::tools::train::Settings {
    zwischen::tools::train::Settings::default()
}

impl From<Args> for zwischen::tools::train::Settings {
    fn from(args: Args) -> Self {
        zwischen::tools::train::Settings {
            // A folder stands for its packs (`data/` holds the chunks we keep).
            data: zwischen::tools::data::pack_files(&args.data)
                .unwrap_or_else(|_| args.data.clone()),
            out: args.out,
            hidden: args.hidden,
            king_buckets: args.king_buckets,
            output_buckets: args.output_buckets,
            no_factoriser: args.no_factoriser,
            king_mirror: args.king_mirror,
            epochs: args.epochs,
            batch: args.batch,
            lr: args.lr,
            final_lr_ratio: args.final_lr_ratio,
            lr_drops: args.lr_drops,
            lr_drop_factor: args.lr_drop_factor,
            wdl: args.wdl,
            score_scale: args.score_scale,
            weight_decay: args.weight_decay,
            threads: args.threads,
            seed: args.seed,
            val_fraction: args.val_fraction,
            val_data: args.val_data,
            mirror: args.mirror,
            checkpoint_dir: args.checkpoint_dir,
            cache_dir: args.cache_dir,
            shuffle_buffer: args.shuffle_buffer,
            resume: args.resume,
            init: args.init,
        }
    }
}

pub fn run(args: Args) -> ExitCode {
    match zwischen::tools::train::run(&args.into(), &mut std::io::stdout()) {
        Ok(_) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
