//! Time management: how long to think about one move.
//!
//! A soft limit says when not to start another iteration; a hard limit aborts the search. Both
//! leave `Move Overhead` on the clock for the GUI and the pipes.

use std::time::Duration;

use super::params::{tm_hard_percent, tm_soft_percent};
use crate::chess::Color;

/// Limits from the `go` command.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Milliseconds left on each side's clock (index by colour). May be zero or negative.
    pub time: [Option<i64>; 2],
    pub increment: [i64; 2],
    pub moves_to_go: Option<u32>,
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    /// Search for a mate in this many moves.
    pub mate: Option<u32>,
    pub move_time: Option<i64>,
    pub infinite: bool,
    pub ponder: bool,
}

#[derive(Clone, Debug)]
pub struct TimeManager {
    soft: Option<Duration>,
    hard: Option<Duration>,
    /// A fixed time (`go movetime`): spent whole, not managed.
    fixed: bool,
}

impl TimeManager {
    pub fn new(limits: &Limits, side: Color, overhead_ms: i64) -> TimeManager {
        if let Some(move_time) = limits.move_time {
            let budget = ms(move_time.saturating_sub(overhead_ms).max(1));
            return TimeManager { soft: Some(budget), hard: Some(budget), fixed: true };
        }
        let Some(time) = limits.time[side.index()] else {
            return TimeManager { soft: None, hard: None, fixed: false };
        };
        let increment = limits.increment[side.index()].max(0);
        // What may be spent on this move at most; zero or negative clocks mean "move now".
        let available = time.saturating_sub(overhead_ms).max(1);
        let horizon = limits.moves_to_go.map_or(30, |m| m.clamp(1, 30) as i64);
        // The time expected over the next `horizon` moves: the clock plus the increments to
        // come, less `Move Overhead` for each of those moves.
        // (Saturating: the clock values come from the GUI and may be absurd.)
        let expected = time
            .saturating_add(increment.saturating_mul(horizon - 1))
            .saturating_sub(overhead_ms.saturating_mul(horizon + 1))
            .max(1);
        // Never plan more than a fifth of the clock: when the clock runs low the engine
        // spends less than the increment and the clock recovers, rather than living on the
        // increment with a few milliseconds in hand, where any delay in the pipes or the
        // scheduler would lose on time.
        let share = (expected / horizon).saturating_mul(tm_soft_percent() as i64) / 100;
        let soft = share.min(available / 5);
        // soft <= available / 5 <= available / 2, so hard >= soft.
        let stretched = (soft.saturating_mul(tm_hard_percent() as i64) / 100).max(soft);
        // At most half the clock on one move: at a low clock the engine then settles where
        // the increment is half of it, so a move that overruns its limit (a slow system, a
        // busy GUI) still has about the increment in hand.
        let hard = stretched.min(available / 2);
        TimeManager { soft: Some(ms(soft.max(1))), hard: Some(ms(hard.max(1))), fixed: false }
    }

    /// Whether another iteration may start, `scale` (in percent) stretching the soft limit by
    /// how unsettled the search is.
    pub fn may_continue(&self, elapsed: Duration, scale_percent: u32) -> bool {
        match (self.soft, self.hard) {
            (Some(soft), Some(hard)) => elapsed < (soft * scale_percent / 100).min(hard),
            _ => true,
        }
    }

    pub fn hard_limit_reached(&self, elapsed: Duration) -> bool {
        self.hard.is_some_and(|hard| elapsed >= hard)
    }

    pub fn is_timed(&self) -> bool {
        self.hard.is_some()
    }

    /// Whether the time is a fixed `movetime`, to be used whole.
    pub fn is_fixed(&self) -> bool {
        self.fixed
    }
}

fn ms(value: i64) -> Duration {
    Duration::from_millis(value.max(0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(time: i64, inc: i64) -> Limits {
        Limits { time: [Some(time), Some(time)], increment: [inc, inc], ..Limits::default() }
    }

    #[test]
    fn never_plans_beyond_the_clock() {
        for time in [i64::MIN, -500, 0, 1, 5, 30, 100, 1000, 8000, 60_000, i64::MAX] {
            for inc in [0, 10, 80, 1000, i64::MAX] {
                let tm = TimeManager::new(&limits(time, inc), Color::White, 10);
                let hard = tm.hard.unwrap().as_millis() as i64;
                assert!(
                    hard <= time.saturating_sub(10).max(1),
                    "time {time} inc {inc}: hard {hard}"
                );
                assert!(tm.soft.unwrap() <= tm.hard.unwrap());
            }
        }
    }

    #[test]
    fn one_move_never_plans_more_than_half_the_clock() {
        for (time, inc) in [(120, 80), (170, 80), (400, 80), (50, 10), (1000, 1000)] {
            let tm = TimeManager::new(&limits(time, inc), Color::White, 10);
            let hard = tm.hard.unwrap().as_millis() as i64;
            assert!(hard <= (time - 10) / 2, "time {time} inc {inc}: hard {hard}");
        }
    }

    #[test]
    fn a_low_clock_is_rebuilt_and_a_healthy_one_uses_the_increment() {
        let soft = |time, inc| {
            TimeManager::new(&limits(time, inc), Color::White, 10).soft.unwrap().as_millis() as i64
        };
        for (time, inc) in [(300, 80), (150, 80), (60, 10), (3000, 1000)] {
            assert!(soft(time, inc) < inc, "time {time} inc {inc}: soft {}", soft(time, inc));
        }
        for (time, inc) in [(8000, 80), (2000, 80), (1000, 10), (60_000, 1000)] {
            assert!(soft(time, inc) > inc, "time {time} inc {inc}: soft {}", soft(time, inc));
        }
    }

    #[test]
    fn movetime_is_exact_and_untimed_has_no_limit() {
        let tm = TimeManager::new(
            &Limits { move_time: Some(500), ..Limits::default() },
            Color::Black,
            10,
        );
        assert_eq!(tm.hard, Some(Duration::from_millis(490)));
        let tm =
            TimeManager::new(&Limits { depth: Some(5), ..Limits::default() }, Color::White, 10);
        assert!(!tm.is_timed());
    }
}
