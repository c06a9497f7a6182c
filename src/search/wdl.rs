//! The score-to-WDL model behind `UCI_ShowWDL`: the chances of a win, draw and loss, in per
//! mille, for a search score.
//!
//! P(win) = 1 / (1 + exp(-(score - A) / B)) and P(loss) = 1 / (1 + exp(-(-score - A) / B));
//! the draw takes the rest. A and B were fitted by maximum likelihood (`zwischen fit-wdl`) on
//! the scores and results of Zwischen's own games with the embedded network (gen9) at
//! 8+0.08 s: the 28,436 scored positions of gen9's moves in its 408 landing games against
//! gen8 (`scripts/pgn_scores.py --engine new`, then `zwischen convert` and `zwischen
//! fit-wdl`; docs/network-history.md). gen2's games gave A = 201.5, B = 99.6.

use super::TB_BOUND;

/// Score (cp) at which a win is as likely as not.
pub const WDL_A: f64 = 213.4;
/// Spread (cp) of the logistic curves.
pub const WDL_B: f64 = 97.6;

/// (win, draw, loss) per mille for `score` from the side to move's view.
pub fn wdl(score: i32) -> (u32, u32, u32) {
    // Mates and table results are certain.
    if score >= TB_BOUND {
        return (1000, 0, 0);
    }
    if score <= -TB_BOUND {
        return (0, 0, 1000);
    }
    let logistic = |x: f64| 1.0 / (1.0 + (-(x - WDL_A) / WDL_B).exp());
    let win = (1000.0 * logistic(score as f64)).round() as u32;
    let loss = (1000.0 * logistic(-score as f64)).round() as u32;
    let (win, loss) = (win.min(1000), loss.min(1000 - win.min(1000)));
    (win, 1000 - win - loss, loss)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_to_a_thousand_and_is_monotonic() {
        let mut last_win = 0;
        for score in (-3000..=3000).step_by(7) {
            let (w, d, l) = wdl(score);
            assert_eq!(w + d + l, 1000);
            assert!(w >= last_win);
            last_win = w;
        }
        let (w, _, l) = wdl(0);
        assert_eq!(w, l);
        assert_eq!(wdl(super::super::MATE_BOUND + 5), (1000, 0, 0));
        assert_eq!(wdl(super::super::TB_WIN - 7), (1000, 0, 0));
        assert_eq!(wdl(7 - super::super::TB_WIN), (0, 0, 1000));
    }
}
