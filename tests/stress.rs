//! Stress over pipes: rapid go/stop, option changes between games, long move lists,
//! isready during search, and the panic policy.

mod common;

use std::time::{Duration, Instant};

use common::{Engine, SOON, best_move};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use zwischen::chess::Position;

#[test]
fn a_thousand_go_stop_pairs_give_a_thousand_bestmoves() {
    let mut e = Engine::start();
    e.send("position startpos moves e2e4 e7e5");
    let mut batch = String::new();
    for _ in 0..1000 {
        batch.push_str("go infinite\nstop\n");
    }
    e.send_bytes(batch.as_bytes());
    let mut bestmoves = 0;
    while bestmoves < 1000 {
        let (line, _) = e.expect_prefix("bestmove", Duration::from_secs(30));
        assert_ne!(line, "bestmove (none)");
        bestmoves += 1;
    }
    // No extra bestmove, and the engine still answers.
    let before = e.sync();
    assert!(!before.iter().any(|l| l.starts_with("bestmove")));
    e.expect_silence(Duration::from_millis(300), |l| l.starts_with("bestmove"));
}

#[test]
fn isready_is_answered_quickly_during_search() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    let mut delays = Vec::new();
    for _ in 0..50 {
        let sent = Instant::now();
        e.sync();
        delays.push(sent.elapsed());
        std::thread::sleep(Duration::from_millis(10));
    }
    delays.sort();
    // The protocol asks for an immediate answer: allow 100 ms for nearly all of them and a
    // generous second for the slowest (the tests run many engines at once).
    assert!(delays[delays.len() * 95 / 100] < Duration::from_millis(100), "{delays:?}");
    assert!(delays[delays.len() - 1] < Duration::from_secs(1), "{delays:?}");
    e.send("stop");
    e.expect_prefix("bestmove", SOON);
}

#[test]
fn hash_resizes_and_new_games_between_searches() {
    let mut e = Engine::start();
    for (i, mb) in [1, 64, 2, 256, 16, 3, 128, 1].iter().enumerate() {
        e.send(&format!("setoption name Hash value {mb}"));
        if i % 2 == 0 {
            e.send("ucinewgame");
        }
        e.send("position startpos moves d2d4 d7d5 c2c4");
        let (line, _) = e.go("depth 6");
        assert_ne!(line, "bestmove (none)");
    }
    // ucinewgame in the middle of a game, then the game goes on.
    e.send("position startpos moves e2e4 e7e5 g1f3");
    e.go("depth 5");
    e.send("ucinewgame");
    e.send("position startpos moves e2e4 e7e5 g1f3 b8c6");
    let (line, _) = e.go("depth 5");
    let mut pos = Position::startpos();
    for m in ["e2e4", "e7e5", "g1f3", "b8c6"] {
        pos.make_move(pos.parse_uci_move(m, false).unwrap());
    }
    assert!(pos.parse_uci_move(best_move(&line), false).is_ok());
}

/// A legal game of `plies` moves (random, never ending it early).
fn long_game(plies: usize) -> (Vec<String>, Position) {
    let mut rng = StdRng::seed_from_u64(600);
    let mut pos = Position::startpos();
    let mut moves = Vec::new();
    while moves.len() < plies {
        let legal = pos.legal_moves();
        let candidates: Vec<_> = legal
            .iter()
            .copied()
            .filter(|&m| {
                let mut child = pos;
                child.make_move(m);
                child.has_legal_move()
            })
            .collect();
        let mv = candidates[rng.random_range(0..candidates.len())];
        moves.push(mv.to_uci(false));
        pos.make_move(mv);
    }
    (moves, pos)
}

#[test]
fn a_position_with_600_moves() {
    let (moves, pos) = long_game(600);
    let mut e = Engine::start();
    e.send(&format!("position startpos moves {}", moves.join(" ")));
    e.send("d");
    let (fen, _) = e.expect_prefix("Fen:", SOON);
    assert_eq!(fen, format!("Fen: {}", pos.to_fen()));
    let (line, _) = e.go("depth 4");
    assert!(pos.parse_uci_move(best_move(&line), false).is_ok(), "{line}");
}

#[test]
fn go_infinite_then_quit_exits() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    let sent = Instant::now();
    e.send("quit");
    assert!(e.wait_exit(Duration::from_secs(5)));
    assert!(sent.elapsed() < Duration::from_secs(5));
}

/// The ids of the engine's threads (Linux).
#[cfg(target_os = "linux")]
fn thread_ids(e: &Engine) -> std::collections::BTreeSet<String> {
    let tasks = std::fs::read_dir(format!("/proc/{}/task", e.pid())).unwrap();
    tasks.map(|task| task.unwrap().file_name().to_string_lossy().into_owned()).collect()
}

#[cfg(target_os = "linux")]
#[test]
fn searches_keep_their_threads_and_threads_changes_end_the_old_ones() {
    let mut e = Engine::start();
    e.send("setoption name Threads value 4");
    let mut searching = Vec::new();
    for moves in ["e2e4", "e2e4 e7e5", "e2e4 c7c5", "d2d4"] {
        e.send(&format!("position startpos moves {moves}"));
        e.send("go infinite");
        e.sync();
        // Counted while the search runs: every search thread exists now.
        searching.push(thread_ids(&e));
        e.send("stop");
        e.expect_prefix("bestmove", SOON);
        e.send("ucinewgame");
    }
    // The very same threads searched every time: none was started for a move.
    assert!(searching.iter().all(|ids| *ids == searching[0]), "{searching:?}");
    e.send("setoption name Threads value 1");
    e.sync();
    // The three helper threads ended; the rest stayed.
    let after = thread_ids(&e);
    assert_eq!(after.len() + 3, searching[0].len(), "{searching:?} -> {after:?}");
    assert!(after.is_subset(&searching[0]), "{searching:?} -> {after:?}");
    let (line, _) = e.go("depth 6");
    assert_ne!(line, "bestmove (none)");
}

/// Needs the `test-hooks` feature (`cargo test --release --features test-hooks --test stress`,
/// as CI runs it): only that build panics on request.
#[cfg(feature = "test-hooks")]
#[test]
fn a_panicking_search_still_answers_and_the_engine_keeps_serving() {
    let mut e = Engine::start_with_env(&[("ZWISCHEN_TEST_PANIC", "1"), ("RUST_BACKTRACE", "0")]);
    for _ in 0..3 {
        e.send("position startpos moves e2e4");
        let (line, before) = e.go("depth 5");
        assert!(
            before.iter().any(|l| l.starts_with("info string error: the search failed")),
            "{before:?}"
        );
        let mut pos = Position::startpos();
        pos.make_move(pos.parse_uci_move("e2e4", false).unwrap());
        assert!(pos.parse_uci_move(best_move(&line), false).is_ok(), "{line}");
        e.sync();
    }
}
