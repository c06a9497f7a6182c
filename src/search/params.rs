//! Search and time-management constants, in one place.
//!
//! Where the values come from: none has been tuned yet. Each is the value its feature was
//! added with, set by hand, and most features were measured only together (the search v2
//! stack against the search before it, search v3 bundle 1 as a bundle); the commit that
//! added each says how it was measured ("SPRT pending" where it was not measured alone).
//! The first SPSA run (`docs/spsa/search-v3.json`, 5,000 pairs at 20,000 nodes) found no
//! values that won a match, so none was taken: docs/search.md has its table and
//! docs/match-history.md its matches. A value that changes says its source next to it.
//!
//! The numeric ones are *tunables*: a function per constant, which in a normal build returns
//! the value as a constant, and in a tuning build (`--features tune`) reads a value that a UCI
//! option of the same name sets, so that SPSA (`scripts/spsa.py`) can play games with other
//! values. `TUNABLES` lists them with their ranges and SPSA steps (`zwischen tunables` prints
//! them in the form OpenBench takes).

#[cfg(feature = "tune")]
use std::sync::atomic::{AtomicI32, Ordering};

/// One tunable constant: its name (also its UCI option in a tuning build), value, the range
/// SPSA may move it in, and SPSA's final perturbation (`c_end`) for it.
#[derive(Copy, Clone, Debug)]
pub struct Tunable {
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    pub step: i32,
}

macro_rules! tunables {
    ($($(#[doc = $doc:literal])* $name:ident: $default:literal, $min:literal..=$max:literal,
        step $step:literal;)*) => {
        $(
            $(#[doc = $doc])*
            #[cfg(not(feature = "tune"))]
            #[inline(always)]
            pub const fn $name() -> i32 {
                $default
            }

            $(#[doc = $doc])*
            #[cfg(feature = "tune")]
            #[inline(always)]
            pub fn $name() -> i32 {
                cells::$name.load(Ordering::Relaxed)
            }
        )*

        /// The values of a tuning build.
        #[cfg(feature = "tune")]
        #[allow(non_upper_case_globals)]
        mod cells {
            use std::sync::atomic::AtomicI32;
            $(pub static $name: AtomicI32 = AtomicI32::new($default);)*
        }

        #[cfg(feature = "tune")]
        fn cell(name: &str) -> Option<&'static AtomicI32> {
            match name {
                $(stringify!($name) => Some(&cells::$name),)*
                _ => None,
            }
        }

        pub const TUNABLES: &[Tunable] = &[
            $(Tunable { name: stringify!($name), default: $default, min: $min, max: $max, step: $step },)*
        ];
    };
}

tunables! {
    /// Reverse futility pruning: the static eval beats beta by `rfp_margin` per ply of depth.
    rfp_max_depth: 8, 4..=12, step 1;
    rfp_margin: 80, 30..=160, step 8;

    /// Razoring to this depth, where the static eval is below alpha by more than `razor_base
    /// + razor_per_depth2 * depth^2`.
    razor_max_depth: 3, 1..=6, step 1;
    razor_base: 450, 150..=900, step 40;
    razor_per_depth2: 250, 80..=500, step 20;

    /// Null-move pruning: from `nmp_min_depth`, reduced by `nmp_base_reduction + depth /
    /// nmp_depth_divisor + min((eval - beta) / nmp_eval_divisor, 3)`.
    nmp_min_depth: 3, 2..=5, step 1;
    nmp_base_reduction: 3, 2..=5, step 1;
    nmp_depth_divisor: 4, 2..=8, step 1;
    nmp_eval_divisor: 200, 80..=400, step 20;

    /// ProbCut: from `probcut_min_depth`, captures that beat beta by `probcut_margin` in a
    /// search `probcut_depth_reduction` plies shallower.
    probcut_min_depth: 5, 3..=8, step 1;
    probcut_margin: 200, 80..=400, step 15;
    probcut_depth_reduction: 4, 3..=5, step 1;

    /// Futility pruning of quiet moves: eval plus `fp_base + fp_per_depth * depth` cannot reach
    /// alpha.
    fp_max_depth: 7, 4..=10, step 1;
    fp_base: 100, 30..=250, step 12;
    fp_per_depth: 90, 30..=200, step 10;

    /// Late-move pruning: quiet moves tried beyond `(lmp_base + depth^2) / (2 - improving)`.
    lmp_max_depth: 8, 4..=12, step 1;
    lmp_base: 3, 1..=8, step 1;

    /// History pruning of quiet moves to this depth, whose history is below `-hp_margin`
    /// per ply of depth.
    hp_max_depth: 4, 1..=8, step 1;
    hp_margin: 3000, 500..=8000, step 300;

    /// SEE pruning thresholds (quiet moves per ply of depth, noisy ones per ply squared).
    see_quiet_margin: -60, -150..=-10, step 8;
    see_noisy_margin: -30, -100..=-5, step 5;
    see_max_depth: 8, 4..=12, step 1;

    /// Late-move reductions from this depth on.
    lmr_min_depth: 3, 2..=5, step 1;
    /// Late-move reductions: `lmr_base + ln(depth) ln(moves) / lmr_divisor`, both in
    /// hundredths.
    lmr_base: 75, 25..=150, step 8;
    lmr_divisor: 225, 150..=350, step 12;
    /// History score worth one ply of reduction.
    lmr_history_divisor: 8192, 2048..=16384, step 800;
    /// A reduced search that beats alpha is searched again a ply deeper when it beats the
    /// best score by `lmr_deeper_margin + 2 * depth`, a ply shallower when by less than
    /// `lmr_shallower_margin`.
    lmr_deeper_margin: 40, 10..=100, step 5;
    lmr_shallower_margin: 8, 0..=30, step 2;

    /// Singular extensions: from this depth, with a margin of this many cp per ply of depth.
    se_min_depth: 8, 5..=10, step 1;
    se_margin_per_depth: 2, 1..=5, step 1;
    /// Double extension where the other moves fail this far below the singular beta, at
    /// most `se_double_limit` times on one path.
    se_double_margin: 20, 4..=60, step 4;
    se_double_limit: 6, 2..=12, step 1;

    /// Aspiration windows: from this depth, this wide at first.
    aspiration_min_depth: 4, 2..=8, step 1;
    aspiration_delta: 20, 8..=50, step 3;

    /// Quiescence delta pruning margin.
    delta_margin: 200, 80..=400, step 20;

    /// Internal iterative reduction: nodes without a hash move this deep are searched a ply less.
    iir_min_depth: 4, 2..=8, step 1;

    /// Time management: the soft limit in percent of the clock's share for this move (before
    /// the cap at a fifth of the clock), and the hard limit in percent of the soft one (before
    /// the cap at half the clock).
    tm_soft_percent: 100, 60..=160, step 8;
    tm_hard_percent: 400, 200..=600, step 25;
    /// Time management: the soft limit grows by this many percent per unit of best-move
    /// instability, and by the score's drop in cp up to this many percent.
    tm_instability_percent: 15, 0..=40, step 3;
    tm_drop_cap: 100, 0..=200, step 10;

    /// Correction history: an entry is at most `correction_limit` cp; one update moves it by
    /// at most `correction_max_weight`/256 of the error.
    correction_limit: 96, 32..=256, step 8;
    correction_max_weight: 16, 4..=64, step 3;

    /// Time management: the soft limit is also scaled by `(tm_node_share_pivot - the best
    /// move's share of the nodes in percent) * tm_node_share_gain / 10000`: 0.81 at a 90 %
    /// share, 1.35 at 50 %, 1.76 at 20 %.
    tm_node_share_pivot: 150, 110..=200, step 8;
    tm_node_share_gain: 135, 80..=200, step 8;
}

/// Up to this depth, quiet checks are still tried once late-move or futility pruning skips
/// the other quiet moves (so that a mate in one behind them is seen). Not tuned: mate scores
/// depend on it.
pub const QUIET_CHECKS_MAX_DEPTH: i32 = 2;

/// Scores this far from zero are decided: one side is a rook or more up, and what matters is
/// whether it mates. In a window beyond them (`is_decided`) reverse futility pruning is off,
/// since its margin on the static eval says nothing about a quiet mate, and the first ply of
/// the quiescence search tries quiet checks.
pub const DECIDED: i32 = 1500;

/// Whether the window (alpha, beta) lies wholly beyond `DECIDED` on one side.
pub fn is_decided(alpha: i32, beta: i32) -> bool {
    alpha >= DECIDED || beta <= -DECIDED
}

/// The tunable of this name (any case).
pub fn find(name: &str) -> Option<&'static Tunable> {
    TUNABLES.iter().find(|t| t.name.eq_ignore_ascii_case(name))
}

/// Sets a tunable of a tuning build; the value must be in its range.
#[cfg(feature = "tune")]
pub fn set(tunable: &Tunable, value: i32) -> Result<(), String> {
    if !(tunable.min..=tunable.max).contains(&value) {
        return Err(format!(
            "{} needs a value from {} to {}",
            tunable.name, tunable.min, tunable.max
        ));
    }
    cell(tunable.name).expect("every tunable has a cell").store(value, Ordering::Relaxed);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tunable_starts_inside_its_range_with_a_usable_step() {
        for t in TUNABLES {
            assert!(t.min < t.max && (t.min..=t.max).contains(&t.default), "{t:?}");
            assert!(t.step > 0 && t.step <= (t.max - t.min) / 2, "{t:?}");
        }
        let mut names: Vec<_> = TUNABLES.iter().map(|t| t.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TUNABLES.len(), "tunable names are unique");
    }

    #[cfg(feature = "tune")]
    #[test]
    fn a_tuning_build_sets_values_in_range_only() {
        // (Only timed searches read this one, so other tests running beside it see no change.)
        let drop_cap = find("TM_DROP_CAP").expect("names ignore case");
        assert_eq!(tm_drop_cap(), 100);
        assert!(set(drop_cap, 120).is_ok());
        assert_eq!(tm_drop_cap(), 120);
        assert!(set(drop_cap, 500).is_err());
        assert!(find("no_such").is_none());
        assert_eq!(tm_drop_cap(), 120);
        set(drop_cap, 100).unwrap();
    }
}
