//! Mate scores are exact: over tests/data/mates.epd (positions whose mate distance an
//! independent program proved, see scripts/make_mate_suite.py), searched to depth 2N + 4:
//! mates in one either way are exact from depth 2 on; a mate in N (or being mated in N),
//! once any iteration reports it, is exact at depth 2N + 4 (never a longer one); no iteration
//! claims a mate that does not exist or is shorter than the real one; and at least 90% of
//! the mates are exact at depth 2N + 4. (With the network, the default evaluation: all but
//! the "exact once seen" rule, and 85%; see the test.)

use std::sync::Mutex;

use zwischen::chess::{Move, Position};
use zwischen::search::{
    self, Limits, PvInfo, Reporter, ScoreReport, SearchJob, Shared, ThreadPool, TranspositionTable,
};

/// Collects the score of each completed iteration.
struct Scores(Mutex<Vec<(i32, ScoreReport)>>);

impl Reporter for Scores {
    fn pv(&self, info: &PvInfo) {
        if info.bound.is_none() && info.multipv == 1 {
            self.0.lock().unwrap().push((info.depth, ScoreReport::from_score(info.score)));
        }
    }
    fn best_move(&self, _best: Option<Move>, _ponder: Option<Move>) {}
    fn message(&self, _text: &str) {}
}

fn suite() -> Vec<(String, i32)> {
    let text = include_str!("data/mates.epd");
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let (fen, dm) = line.split_once(";dm ").expect("FEN ;dm N");
            (fen.trim().to_string(), dm.trim().parse().expect("a mate distance"))
        })
        .collect()
}

/// What is wrong with the iterations' scores (depth 1 to `depth`) for a position with mate
/// distance `dm`.
fn problems(fen: &str, dm: i32, scores: &[(i32, ScoreReport)], depth: i32) -> Vec<String> {
    let mut found = Vec::new();
    let mut complain = |d: i32, score: ScoreReport, what: &str| {
        found.push(format!("{fen} (dm {dm}): depth {d} says {score:?}: {what}"));
    };
    let final_score = scores.iter().find(|&&(d, _)| d == depth).map(|&(_, score)| score);
    let reported = scores.iter().any(|(_, score)| matches!(score, ScoreReport::Mate(_)));
    for &(d, score) in scores {
        match score {
            // A mate for the wrong side, or nearer than it is, cannot be right at any depth.
            ScoreReport::Mate(m) if m.signum() != dm.signum() || m.abs() < dm.abs() => {
                complain(d, score, "a mate that does not exist")
            }
            _ if dm.abs() == 1 && d >= 2 && score != ScoreReport::Mate(dm) => {
                complain(d, score, "a mate in one, not exact from depth 2")
            }
            // Once a mate is seen, it is exact by depth 2N + 4.
            _ if d == depth && reported && score != ScoreReport::Mate(dm) => {
                complain(d, score, "a mate seen, not exact at depth 2N + 4")
            }
            _ => {}
        }
    }
    if final_score.is_none() {
        found.push(format!("{fen} (dm {dm}): no iteration of depth {depth}"));
    }
    found
}

/// The score of each completed iteration of a search of `fen` to `depth`, from an empty
/// table. Run it on a thread with the engine's stack size.
fn iteration_scores(
    tt: &std::sync::Arc<TranspositionTable>,
    fen: &str,
    depth: i32,
) -> Vec<(i32, ScoreReport)> {
    tt.clear();
    let mut pool = ThreadPool::new(1);
    let limits = Limits { depth: Some(depth), ..Limits::default() };
    let job = SearchJob::new(Position::from_fen(fen).unwrap(), limits);
    let reporter = Scores(Mutex::new(Vec::new()));
    search::run(&job, tt, &std::sync::Arc::new(Shared::new()), &mut pool, &reporter);
    reporter.0.into_inner().unwrap()
}

/// Searches every position of the suite to depth 2N + 4; asserts the rules and that at least
/// `min_exact` percent of the mates are exact.
fn check_suite(min_exact: usize) {
    let positions = suite();
    assert!(positions.len() >= 30, "the suite has {} positions", positions.len());
    for dm in (-5..=5).filter(|&n| n != 0) {
        assert!(positions.iter().any(|&(_, n)| n == dm), "no position with dm {dm}");
    }
    // The search needs a large stack, as in the engine.
    let (failures, unseen, count) = std::thread::Builder::new()
        .stack_size(search::STACK_SIZE)
        .spawn(move || {
            let tt = std::sync::Arc::new(TranspositionTable::new(16).unwrap());
            let mut failures = Vec::new();
            let mut unseen = Vec::new();
            let count = positions.len();
            for (fen, dm) in positions {
                let depth = 2 * dm.abs() + 4;
                let scores = iteration_scores(&tt, &fen, depth);
                failures.extend(problems(&fen, dm, &scores, depth));
                let exact = scores.iter().any(|&(d, s)| d == depth && s == ScoreReport::Mate(dm));
                if !exact {
                    unseen.push(format!("{fen} (dm {dm}): {:?}", scores.last()));
                }
            }
            (failures, unseen, count)
        })
        .unwrap()
        .join()
        .unwrap();
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    // A mate not seen at all by depth 2N + 4 is a matter of the search's selectivity, not a
    // wrong score; nearly all are expected all the same. (On these 39 positions: 35 with the
    // gen3 net, 36 with gen2, 37 with the hand-written evaluation, 15 before the fix.
    // Stockfish 15.1 gets 28 exact by the same rules and breaks a rule on 11 positions:
    // scripts/mates_vs_engine.py.)
    assert!(
        (count - unseen.len()) * 100 >= min_exact * count,
        "{} of {count} mates not exact at depth 2N + 4:\n{}",
        unseen.len(),
        unseen.join("\n")
    );
}

/// Every rule holds; 35 of the 39 mates are exact by depth 2N + 4 with the embedded gen3 net
/// (36 with gen2; the hand-written evaluation, since removed, got 37).
#[test]
fn mate_distances_are_exact_by_depth_2n_plus_4() {
    check_suite(85);
}

/// The quiet mates in two: the mating move is quiet and comes late among the root's
/// moves, and the second move is a quiet check. Before the decided-window rules (no reverse
/// futility pruning, quiet checks at the first quiescence ply) the first was reported at
/// depth 12 and the second not by depth 14; now both must be `mate 2` by depth 8.
#[test]
fn quiet_mates_in_two_are_reported_by_depth_8() {
    let fens =
        ["8/5Pp1/1p1r3p/8/8/8/4p2k/K7 b - - 0 1", "1n2kb2/5p2/1p3K2/8/1p4Pr/r7/5P1P/5N2 b - - 0 1"];
    let late = std::thread::Builder::new()
        .stack_size(search::STACK_SIZE)
        .spawn(move || {
            let tt = std::sync::Arc::new(TranspositionTable::new(16).unwrap());
            fens.iter()
                .filter(|fen| {
                    let scores = iteration_scores(&tt, fen, 8);
                    scores.iter().find(|&&(d, _)| d == 8).map(|&(_, s)| s)
                        != Some(ScoreReport::Mate(2))
                })
                .map(|fen| fen.to_string())
                .collect::<Vec<_>>()
        })
        .unwrap()
        .join()
        .unwrap();
    assert!(late.is_empty(), "not mate 2 at depth 8: {late:?}");
}
