//! Tuned search constants, in one place. Each was kept because a match said it helps; the
//! commit that set it carries the result.

/// Reverse futility pruning: the static eval beats beta by this much per ply of depth.
pub const RFP_MAX_DEPTH: i32 = 8;
pub const RFP_MARGIN: i32 = 80;

/// Null-move pruning.
pub const NMP_MIN_DEPTH: i32 = 3;
pub const NMP_BASE_REDUCTION: i32 = 3;
pub const NMP_DEPTH_DIVISOR: i32 = 4;
pub const NMP_EVAL_DIVISOR: i32 = 200;

/// Futility pruning of quiet moves: eval plus this margin cannot reach alpha.
pub const FP_MAX_DEPTH: i32 = 7;
pub const FP_BASE: i32 = 100;
pub const FP_PER_DEPTH: i32 = 90;

/// Late-move pruning: quiet moves tried beyond `(LMP_BASE + depth^2) / (2 - improving)`.
pub const LMP_MAX_DEPTH: i32 = 8;
pub const LMP_BASE: i32 = 3;

/// Up to this depth, quiet checks are still tried once late-move or futility pruning skips
/// the other quiet moves (so that a mate in one behind them is seen).
pub const QUIET_CHECKS_MAX_DEPTH: i32 = 2;

/// SEE pruning thresholds per ply of depth.
pub const SEE_QUIET_MARGIN: i32 = -60;
pub const SEE_NOISY_MARGIN: i32 = -30;
pub const SEE_MAX_DEPTH: i32 = 8;

/// Late-move reductions from this depth on.
pub const LMR_MIN_DEPTH: i32 = 3;
/// Late-move reductions: `LMR_BASE + ln(depth) ln(moves) / LMR_DIVISOR`, in hundredths.
pub const LMR_BASE: f64 = 0.75;
pub const LMR_DIVISOR: f64 = 2.25;
/// History score worth one ply of reduction.
pub const LMR_HISTORY_DIVISOR: i32 = 8192;

/// Singular extensions: from this depth, with a margin of this many cp per ply of depth.
pub const SE_MIN_DEPTH: i32 = 8;
pub const SE_MARGIN_PER_DEPTH: i32 = 2;

/// Extend checked positions by one ply.
pub const CHECK_EXTENSION: bool = true;

/// Aspiration windows.
pub const ASPIRATION_MIN_DEPTH: i32 = 4;
pub const ASPIRATION_DELTA: i32 = 20;

/// Quiescence delta pruning margin.
pub const DELTA_MARGIN: i32 = 200;

/// Internal iterative reduction: nodes without a hash move this deep are searched a ply less.
pub const IIR_MIN_DEPTH: i32 = 4;
