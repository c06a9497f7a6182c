//! Playing below full strength (`UCI_LimitStrength`, `UCI_Elo`). Up to 2100, fewer nodes per
//! move and a choice among the best few lines that sometimes prefers a slightly worse move.
//! The moves stay plausible (every candidate was among the engine's best lines); only their
//! precision drops. Above 2100 the engine plays its own best line, on a node budget that
//! grows with the label: four lines with noise cost too much strength to reach the top
//! labels (at 2+0.02 s, four lines with 10 cp of noise and no node limit scored 37.5 %
//! against Stockfish at 2700).
//!
//! The labels follow Stockfish 15.1's own `UCI_Elo` scale at 2+0.02 s, measured with the
//! network (the strength levels of the former hand-written evaluation no longer apply): each
//! anchor below was set from matches of 100 games at 2+0.02 s against Stockfish limited to a
//! nearby number, and each label from 1500 up was then checked against the same number
//! (docs/uci-elo-calibration.md lists the matches). Between anchors the level is interpolated linearly.

use crate::chess::Move;

/// The weakest and strongest settings offered.
pub const MIN_ELO: u32 = 1320;
pub const MAX_ELO: u32 = 2850;

/// The strongest label that chooses among several lines with noise.
const NOISY_MAX_ELO: u32 = 2100;

/// (label, strength level in 0..=1): anchors of the label scale, each placed where matches
/// against Stockfish at that number put a 50 % score; every net moves them (a stronger net
/// makes a node budget buy more). Last set with gen8: 1500, 1750, 2000 and 2100 each scored
/// within their 95 % error of even. docs/uci-elo-calibration.md has every calibration.
const ANCHORS: [(u32, f64); 5] =
    [(MIN_ELO, 0.0), (1500, 0.027), (1750, 0.26), (2000, 0.50), (NOISY_MAX_ELO, 0.595)];

/// (label, nodes a move) above `NOISY_MAX_ELO`, where one line is searched with no noise:
/// geometric between anchors. Last set with gen8 (2250, 2400 and 2700 within their error of
/// even against Stockfish at the same number; docs/uci-elo-calibration.md). The top label's
/// budget is more than a fast game allows, so there it plays at full strength; at longer time
/// controls it stays capped. The first anchor is extrapolated.
const BUDGET_ANCHORS: [(u32, f64); 4] =
    [(NOISY_MAX_ELO, 7000.0), (2400, 26_000.0), (2700, 45_000.0), (MAX_ELO, 1_000_000.0)];

/// Lines searched to choose from by the noisy labels.
const CANDIDATE_LINES: usize = 4;

/// The value at `elo` of a piecewise linear function given by (label, value) anchors in
/// rising order, constant beyond the ends.
fn interpolate(anchors: &[(u32, f64)], elo: u32) -> f64 {
    let elo = elo.clamp(anchors[0].0, anchors[anchors.len() - 1].0);
    let upper =
        anchors.iter().position(|&(label, _)| label >= elo).unwrap_or(anchors.len() - 1).max(1);
    let (low_label, low_value) = anchors[upper - 1];
    let (high_label, high_value) = anchors[upper];
    let fraction = (elo - low_label) as f64 / (high_label - low_label) as f64;
    low_value + fraction * (high_value - low_value)
}

/// A strength setting.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Strength {
    pub elo: u32,
}

impl Strength {
    /// Whether this label chooses among several lines with noise.
    fn is_noisy(self) -> bool {
        self.elo <= NOISY_MAX_ELO
    }

    /// Strength level of a noisy label, in 0..=1: 0 would search a few hundred nodes with the
    /// most noise, 1 a few hundred thousand with almost none.
    fn level(self) -> f64 {
        interpolate(&ANCHORS, self.elo.clamp(MIN_ELO, NOISY_MAX_ELO))
    }

    /// Nodes per move: for the noisy labels from a few hundred to a few hundred thousand,
    /// geometrically in the level; above them, from the budget anchors.
    pub fn node_budget(self) -> u64 {
        if self.is_noisy() {
            (300.0 * 1000f64.powf(self.level())) as u64
        } else {
            interpolate(&BUDGET_ANCHORS.map(|(label, nodes)| (label, nodes.ln())), self.elo)
                .exp()
                .round() as u64
        }
    }

    /// Largest random bonus (cp) a candidate line may get when the move is chosen.
    pub fn noise_cp(self) -> i32 {
        if self.is_noisy() { (10.0 + 190.0 * (1.0 - self.level())) as i32 } else { 0 }
    }

    /// Lines to search and choose from.
    pub fn candidate_lines(self) -> usize {
        if self.is_noisy() { CANDIDATE_LINES } else { 1 }
    }

    /// Picks among `lines` (move, score), best first: each line's score plus a random bonus
    /// up to `noise_cp`, using `random` as the source of numbers in 0..1.
    pub fn choose(self, lines: &[(Move, i32)], mut random: impl FnMut() -> f64) -> Option<Move> {
        let noise = self.noise_cp() as f64;
        lines
            .iter()
            .map(|&(mv, score)| (mv, score as f64 + noise * random()))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(mv, _)| mv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::{MoveKind, Square};

    #[test]
    fn budget_and_noise_follow_the_setting() {
        let weak = Strength { elo: MIN_ELO };
        let noisy_top = Strength { elo: NOISY_MAX_ELO };
        assert!(weak.node_budget() < 1000 && noisy_top.node_budget() > 10_000);
        assert!(weak.noise_cp() > noisy_top.noise_cp() && noisy_top.noise_cp() > 0);
        assert_eq!(noisy_top.candidate_lines(), CANDIDATE_LINES);
    }

    #[test]
    fn the_labels_above_the_noisy_ones_search_one_line_on_a_rising_budget() {
        let mut previous = 0;
        for elo in NOISY_MAX_ELO + 1..=MAX_ELO {
            let strength = Strength { elo };
            assert_eq!((strength.noise_cp(), strength.candidate_lines()), (0, 1));
            assert!(strength.node_budget() > previous, "{elo}");
            previous = strength.node_budget();
        }
        for (label, nodes) in BUDGET_ANCHORS.into_iter().skip(1) {
            assert_eq!(Strength { elo: label }.node_budget(), nodes as u64);
        }
        assert_eq!(Strength { elo: 9999 }.node_budget(), Strength { elo: MAX_ELO }.node_budget());
    }

    #[test]
    fn level_rises_with_the_label_and_meets_the_anchors() {
        let mut previous = -1.0;
        for elo in MIN_ELO..=NOISY_MAX_ELO {
            let level = Strength { elo }.level();
            assert!(level > previous && (0.0..=1.0).contains(&level), "{elo}: {level}");
            previous = level;
        }
        for (label, level) in ANCHORS {
            assert!((Strength { elo: label }.level() - level).abs() < 1e-9);
        }
        assert_eq!(Strength { elo: NOISY_MAX_ELO + 1 }.level(), ANCHORS[ANCHORS.len() - 1].1);
        assert_eq!(Strength { elo: 0 }.level(), ANCHORS[0].1);
    }

    #[test]
    fn never_picks_a_far_worse_move() {
        let good = Move::new(Square::E2, Square::E4, MoveKind::Normal);
        let blunder = Move::new(Square::G1, Square::H3, MoveKind::Normal);
        let lines = [(good, 50), (blunder, -400)];
        let mut seed = 1u64;
        let mut random = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..1000 {
            assert_eq!(Strength { elo: MIN_ELO }.choose(&lines, &mut random), Some(good));
        }
    }
}
