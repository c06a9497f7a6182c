//! Time management: how long to think about one move.
//!
//! A soft limit says when not to start another iteration; a hard limit aborts the search. Both
//! leave `Move Overhead` on the clock for the GUI and the pipes.

use std::time::Duration;

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
}

impl TimeManager {
    pub fn new(limits: &Limits, side: Color, overhead_ms: i64) -> TimeManager {
        if let Some(move_time) = limits.move_time {
            let budget = ms((move_time - overhead_ms).max(1));
            return TimeManager { soft: Some(budget), hard: Some(budget) };
        }
        let Some(time) = limits.time[side.index()] else {
            return TimeManager { soft: None, hard: None };
        };
        let increment = limits.increment[side.index()].max(0);
        // What may be spent in all; zero or negative clocks mean "move now".
        let available = (time - overhead_ms).max(1);
        let horizon = limits.moves_to_go.map_or(30, |m| m.clamp(1, 30) as i64);
        let soft = (available / horizon + increment * 3 / 4).min(available * 2 / 5);
        let hard = (soft * 4).min(available * 3 / 4).max(soft);
        TimeManager { soft: Some(ms(soft.max(1))), hard: Some(ms(hard.max(1))) }
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
        for time in [-500, 0, 1, 5, 30, 100, 1000, 8000, 60_000] {
            for inc in [0, 10, 80, 1000] {
                let tm = TimeManager::new(&limits(time, inc), Color::White, 10);
                let hard = tm.hard.unwrap().as_millis() as i64;
                assert!(hard <= (time - 10).max(1), "time {time} inc {inc}: hard {hard}");
                assert!(tm.soft.unwrap() <= tm.hard.unwrap());
            }
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
