//! The engine binary over pipes: protocol behaviour, robustness against bad input, and play.

mod common;

use std::time::{Duration, Instant};

use common::{Engine, SOON, best_move, last_score};
use zwischen::chess::Position;

fn assert_legal(fen: &str, moves: &[&str], bestmove_line: &str) {
    let mut pos = Position::from_fen(fen).unwrap();
    for m in moves {
        let mv = pos.parse_uci_move(m, false).unwrap();
        pos.make_move(mv);
    }
    let mv = best_move(bestmove_line);
    assert!(pos.parse_uci_move(mv, false).is_ok(), "{mv} is not legal in {}", pos.to_fen());
}

#[test]
fn handshake() {
    let mut e = Engine::start();
    e.send("uci");
    let (_, lines) = e.expect("uciok", SOON, |l| l == "uciok");
    assert!(lines.iter().any(|l| l.starts_with("id name Zwischen")));
    assert!(lines.iter().any(|l| l.starts_with("id author")));
    for option in
        ["Hash", "Threads", "Move Overhead", "Ponder", "Clear Hash", "UCI_Chess960", "MultiPV"]
    {
        assert!(
            lines.iter().any(|l| l.starts_with(&format!("option name {option} type"))),
            "{option}"
        );
    }
    e.sync();
    e.send("quit");
    assert!(e.wait_exit(SOON));
}

#[test]
fn isready_and_stop_during_infinite_search() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    for _ in 0..5 {
        let sent = Instant::now();
        let before = e.sync();
        assert!(sent.elapsed() < Duration::from_secs(2));
        assert!(!before.iter().any(|l| l.starts_with("bestmove")), "bestmove before stop");
    }
    let sent = Instant::now();
    e.send("stop");
    let (line, _) = e.expect_prefix("bestmove", SOON);
    assert!(sent.elapsed() < Duration::from_secs(2));
    assert_legal(zwischen::chess::START_FEN, &[], &line);
    // Exactly one bestmove.
    e.sync();
    e.expect_silence(Duration::from_millis(200), |l| l.starts_with("bestmove"));
}

#[test]
fn infinite_search_waits_for_stop_even_when_done() {
    let mut e = Engine::start();
    // Mate in one: the search is finished at once, but must not answer before `stop`.
    e.send("position fen 6k1/8/6K1/8/8/8/8/1R6 w - - 0 1");
    e.send("go infinite");
    e.expect_silence(Duration::from_millis(500), |l| l.starts_with("bestmove"));
    e.send("stop");
    let (line, _) = e.expect_prefix("bestmove", SOON);
    assert_eq!(best_move(&line), "b1b8");
}

#[test]
fn ponder_then_ponderhit() {
    let mut e = Engine::start();
    e.send("setoption name Ponder value true");
    e.send("position startpos moves e2e4");
    e.send("go ponder wtime 1000 btime 1000");
    // A ponder search never ends by itself, whatever the clock says.
    e.expect_silence(Duration::from_millis(1500), |l| l.starts_with("bestmove"));
    e.send("ponderhit");
    let (line, _) = e.expect_prefix("bestmove", SOON);
    assert_legal(zwischen::chess::START_FEN, &["e2e4"], &line);
    // And `stop` during a ponder search answers at once.
    e.send("go ponder wtime 100000 btime 100000");
    std::thread::sleep(Duration::from_millis(200));
    e.send("stop");
    let (line, _) = e.expect_prefix("bestmove", SOON);
    assert_legal(zwischen::chess::START_FEN, &["e2e4"], &line);
}

#[test]
fn bestmove_with_ponder_move() {
    let mut e = Engine::start();
    e.send("position startpos");
    let (line, _) = e.go("depth 6");
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(words.len(), 4, "{line}");
    assert_eq!(words[2], "ponder");
}

#[test]
fn quit_and_end_of_input_exit_mid_search() {
    let mut e = Engine::start();
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    e.send("quit");
    assert!(e.wait_exit(Duration::from_secs(5)), "engine still running after quit");

    let mut e = Engine::start();
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    e.close_input();
    assert!(e.wait_exit(Duration::from_secs(5)), "engine still running after end of input");
}

#[test]
fn a_closed_output_ends_the_engine_quietly() {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
    // The GUI goes away without `quit`: it stops reading our output, then writing input.
    let mut child = Command::new(env!("CARGO_BIN_EXE_zwischen"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"uci\ngo depth 8\n").unwrap();
    std::thread::sleep(Duration::from_millis(500));
    drop(stdin);
    let deadline = Instant::now() + Duration::from_secs(10);
    while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = child.try_wait().unwrap();
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert!(status.is_some_and(|s| s.success()), "exit: {status:?}, stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
#[test]
fn no_legal_move_gives_bestmove_none() {
    let mut e = Engine::start();
    // Checkmated.
    e.send("position fen R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1");
    let (line, _) = e.go("depth 5");
    assert_eq!(line, "bestmove (none)");
    // Stalemated.
    e.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    let (line, _) = e.go("movetime 100");
    assert_eq!(line, "bestmove (none)");
}

#[test]
fn malformed_input_is_reported_and_harmless() {
    let huge = "x".repeat(200_000);
    let long_moves = format!("position startpos moves {}", "e2e4 ".repeat(300));
    let cases: Vec<(&[u8], bool)> = vec![
        (b"xyzzy", true),
        (b"position", true),
        (b"position fen", true),
        (b"position fen 8/8/8 w - - 0 1", true),
        (b"position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra", true),
        (b"position startpos moves e2e5", true),
        (b"position startpos moves e2e4 e2e4", true),
        (b"position startpos moves zz", true),
        (b"position startpos junk", true),
        (b"position fen 4k3/8/8/8/8/8/8/4K2r b - - 0 1", true),
        (b"position fen 8/8/8/8/8/8/8/8 w - - 0 1", true),
        (b"position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", true),
        (b"position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", true),
        (b"position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNZ w KQkq - 0 1", true),
        (b"position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - zero 1", true),
        (b"position fen 4k3/8/8/8/8/8/8/R3K3 w Q - 0 1 moves e1c1 e8e7 c1c2 e7e8 zz", true),
        (b"setoption name Hash value abc", true),
        (b"setoption name Hash value 0", true),
        (b"setoption name Nope value 1", true),
        (b"setoption", true),
        (b"setoption value 3", true),
        (b"setoption name UCI_Chess960 value maybe", true),
        (b"go perft abc", true),
        (b"go perft 3 depth 2", true),
        (b"bench abc", true),
        (b"\xff\xfe\xfd", true),
        (huge.as_bytes(), true),
        (long_moves.as_bytes(), true),
        (b"is\0ready", true),
        (b"\t  \t", false),
        (b"ucinewgame", false),
    ];
    assert!(cases.len() >= 25);
    let mut e = Engine::start();
    for (input, is_error) in cases {
        e.send("position startpos moves d2d4");
        let mut bytes = input.to_vec();
        bytes.push(b'\n');
        e.send_bytes(&bytes);
        let before = e.sync();
        let shown = String::from_utf8_lossy(&input[..input.len().min(60)]).to_string();
        let errors = before.iter().filter(|l| l.starts_with("info string error")).count();
        assert_eq!(errors > 0, is_error, "input {shown:?} gave {before:?}");
        // The previous position stands and search works.
        e.send("position startpos moves d2d4");
        let (line, _) = e.go("depth 3");
        assert_legal(zwischen::chess::START_FEN, &["d2d4"], &line);
    }
}

/// The answer to a malformed `go`: the error, then a depth-1 search's `bestmove`, unasked.
fn expect_depth_1_answer(e: &mut Engine, go: &str) {
    e.send(go);
    let (line, before) = e.expect_prefix("bestmove", SOON);
    let errors: Vec<&String> =
        before.iter().filter(|l| l.starts_with("info string error: ")).collect();
    assert_eq!(errors.len(), 1, "{go}: {before:?}");
    assert!(errors[0].ends_with("searching to depth 1 instead"), "{go}: {before:?}");
    assert!(before.iter().any(|l| l.starts_with("info depth 1 ")), "{go}: {before:?}");
    assert!(!before.iter().any(|l| l.starts_with("info depth 2 ")), "{go}: {before:?}");
    assert_legal(zwischen::chess::START_FEN, &["d2d4"], &line);
}

#[test]
fn every_malformed_go_is_answered_by_a_depth_1_search() {
    let mut e = Engine::start();
    e.send("position startpos moves d2d4");
    let mut cases = Vec::new();
    for keyword in
        ["wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate", "movetime"]
    {
        cases.push(format!("go {keyword}")); // missing value, end of line
        cases.push(format!("go {keyword} depth 3")); // missing value, next keyword
        cases.push(format!("go {keyword} abc")); // not a number
        cases.push(format!("go {keyword} 2.5"));
        cases.push(format!("go {keyword} 99999999999999999999999999")); // overflow
        cases.push(format!("go {keyword} 100 {keyword} 100")); // repeated
        if !["wtime", "btime"].contains(&keyword) {
            cases.push(format!("go {keyword} -1")); // negative
        }
        if ["movestogo", "depth", "nodes", "mate"].contains(&keyword) {
            cases.push(format!("go {keyword} 0")); // a count of nothing
        }
    }
    cases.extend(
        [
            "go nodes 18446744073709551616",
            "go mate 4294967296",
            "go searchmoves",
            "go searchmoves depth 3",
            "go searchmoves e2e5",
            "go searchmoves e2e4 depth 3",
            "go searchmoves zz",
            "go searchmoves e7e5 searchmoves e7e5",
        ]
        .map(String::from),
    );
    assert!(cases.len() >= 70);
    for go in &cases {
        expect_depth_1_answer(&mut e, go);
    }
    // With `infinite` or `ponder` the depth-1 bestmove waits for `stop` or `ponderhit`, as
    // the GUI expects.
    for (go, end) in [
        ("go infinite depth abc", "stop"),
        ("go ponder wtime 1000 btime abc", "ponderhit"),
        ("go ponder wtime -", "stop"),
        ("go infinite infinite", "stop"),
        ("go ponder ponder", "ponderhit"),
    ] {
        let start = e.transcript.len();
        e.send(go);
        e.expect_silence(Duration::from_millis(300), |l| l.starts_with("bestmove"));
        e.send(end);
        let (line, _) = e.expect_prefix("bestmove", SOON);
        let answer = &e.transcript[start..];
        assert!(answer.iter().any(|l| l.starts_with("info string error")), "{go}: {answer:?}");
        assert!(!answer.iter().any(|l| l.starts_with("info depth 2 ")), "{go}: {answer:?}");
        assert_legal(zwischen::chess::START_FEN, &["d2d4"], &line);
    }
    // Clocks may be negative or zero (move now), and unknown words are skipped: a normal go.
    for go in ["go wtime -50 btime -50", "go wtime 0 btime 0 winc 0 binc 0", "go depth 2 sideways"]
    {
        e.send(go);
        let (line, before) = e.expect_prefix("bestmove", SOON);
        assert!(!before.iter().any(|l| l.contains("depth 1 instead")), "{go}: {before:?}");
        assert_legal(zwischen::chess::START_FEN, &["d2d4"], &line);
    }
    // A malformed perft is an error and nothing else: no count, no bestmove.
    for go in [
        "go perft",
        "go perft abc",
        "go perft -1",
        "go perft 21",
        "go perft 99999999999999999999999",
        "go perft 2 perft 2",
        "go perft 1 depth 2",
    ] {
        e.send(go);
        let before = e.sync();
        assert_eq!(before.len(), 1, "{go}: {before:?}");
        assert!(before[0].starts_with("info string error: go perft"), "{go}: {before:?}");
    }
    e.sync();
    e.expect_silence(Duration::from_millis(200), |l| l.starts_with("bestmove"));
}

#[test]
fn position_is_all_or_nothing() {
    let mut e = Engine::start();
    e.send("position startpos moves e2e4");
    e.send("position startpos moves e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5xc6");
    let before = e.sync();
    assert!(before.iter().any(|l| l.starts_with("info string error")));
    e.send("d");
    let (fen, _) = e.expect_prefix("Fen:", SOON);
    assert_eq!(fen, "Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    e.send("position fen 8/8/8/8/8/8/8/8 w - - 0 1");
    e.send("d");
    let (fen, _) = e.expect_prefix("Fen:", SOON);
    assert_eq!(fen, "Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
}

fn search_score(fen_and_moves: &str, go: &str) -> (String, (String, i32)) {
    let mut e = Engine::start();
    e.send(&format!("position {fen_and_moves}"));
    let (line, info) = e.go(go);
    (best_move(&line).to_string(), last_score(&info))
}

#[test]
fn finds_mates_with_the_right_score() {
    let (mv, score) = search_score("fen 6k1/8/6K1/8/8/8/8/1R6 w - - 0 1", "depth 6");
    assert_eq!((mv.as_str(), score), ("b1b8", ("mate".to_string(), 1)));
    let (mv, score) = search_score("fen r5k1/5ppp/8/8/8/8/3R1PPP/3R2K1 w - - 0 1", "depth 8");
    assert_eq!((mv.as_str(), score), ("d2d8", ("mate".to_string(), 2)));
    let (_, score) = search_score("fen 4k3/8/8/3K4/8/8/8/7R w - - 0 1", "depth 16");
    assert_eq!(score, ("mate".to_string(), 3));
    // Being mated: negative mate distance.
    let (mv, score) = search_score("fen r2R2k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 1 1", "depth 8");
    assert_eq!((mv.as_str(), score), ("a8d8", ("mate".to_string(), -1)));
    // `go mate` stops once the mate is found, with a move that mates in 3.
    let fen = "4k3/8/8/3K4/8/8/8/7R w - - 0 1";
    let (mv, score) = search_score(&format!("fen {fen}"), "mate 3");
    assert_eq!(score, ("mate".to_string(), 3));
    let mut pos = Position::from_fen(fen).unwrap();
    pos.make_move(pos.parse_uci_move(&mv, false).unwrap());
    assert!(is_mated_within(&pos, 2), "{mv} does not mate in 3");
}

/// Whether the side to move (which has just been moved against) is mated within `moves` more
/// moves of the opponent, whatever it plays: a brute-force check for small endings.
fn is_mated_within(pos: &Position, moves: u32) -> bool {
    let replies = pos.legal_moves();
    if replies.is_empty() {
        return pos.in_check();
    }
    moves > 0
        && replies.iter().all(|&reply| {
            let mut after_reply = *pos;
            after_reply.make_move(reply);
            after_reply.legal_moves().iter().any(|&attack| {
                let mut after_attack = after_reply;
                after_attack.make_move(attack);
                is_mated_within(&after_attack, moves - 1)
            })
        })
}

#[test]
fn stalemate_is_a_draw_not_a_win() {
    // Qg6 would stalemate; Qg7 and Qh1 mate.
    let fen = "7k/5K2/8/8/8/8/8/6Q1 w - - 0 1";
    let (mv, score) = search_score(&format!("fen {fen}"), "depth 6");
    let mut pos = Position::from_fen(fen).unwrap();
    pos.make_move(pos.parse_uci_move(&mv, false).unwrap());
    assert!(pos.in_check() && pos.legal_moves().is_empty(), "{mv} does not mate");
    assert_eq!(score, ("mate".to_string(), 1));
    let (_, score) = search_score("fen 7k/5K2/8/8/8/8/8/6Q1 w - - 0 1", "depth 6 searchmoves g1g6");
    assert_eq!(score, ("cp".to_string(), 0));
}

#[test]
fn fifty_move_rule() {
    // A queen up, but every move but a capture or pawn move completes 100 quiet halfmoves.
    let (_, score) = search_score("fen 8/8/8/4k3/8/8/Q7/6K1 w - - 99 120", "depth 8");
    assert_eq!(score, ("cp".to_string(), 0));
    // A mate delivered on the hundredth halfmove still wins.
    let (mv, score) = search_score("fen 6k1/8/6K1/8/8/8/8/1R6 w - - 99 120", "depth 6");
    assert_eq!((mv.as_str(), score), ("b1b8", ("mate".to_string(), 1)));
    // The clock carries through the move list: 97 + 2 quiet moves = 99.
    let (_, score) =
        search_score("fen 8/8/8/4k3/8/8/Q7/6K1 w - - 97 120 moves g1h1 e5f5", "depth 8");
    assert_eq!(score, ("cp".to_string(), 0));
}

#[test]
fn repetition_through_the_move_list_is_a_draw() {
    // Black, a rook against a queen, is lost unless it can repeat: after these moves, Rh8
    // brings about the same position for the third time.
    let moves = "h8h7 d1d2 h7h8 d2d1 h8h7 d1d2 h7h8 d2d1 h8h7 d1d2";
    let (mv, score) = search_score(
        &format!("fen 6kr/5pp1/7p/8/8/8/5PPP/3Q2K1 b - - 0 1 moves {moves}"),
        "depth 8",
    );
    assert_eq!((mv.as_str(), score), ("h7h8", ("cp".to_string(), 0)));
}

#[test]
fn dead_positions_score_zero() {
    for fen in [
        "8/8/4k3/8/8/3K4/8/8 w - - 0 1",
        "8/8/4k3/8/8/3K4/5B2/8 w - - 0 1",
        "8/8/4k3/8/8/3K4/5N2/8 b - - 0 1",
        "8/2b5/4k3/8/8/3K4/3B4/8 w - - 0 1",
    ] {
        let mut e = Engine::start();
        e.send(&format!("position fen {fen}"));
        let (line, info) = e.go("depth 6");
        assert_ne!(line, "bestmove (none)");
        assert_eq!(last_score(&info), ("cp".to_string(), 0), "{fen}");
    }
}

#[test]
fn movetime_is_used_whole() {
    // A GUI that asks for T ms gets T ms (less Move Overhead, 10 ms by default), whatever the
    // search's own sense of when to stop: this search once ended at two thirds of it.
    let positions = [
        "startpos",
        "fen r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        "fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "fen 8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "fen r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
        "fen rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "fen r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        "fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1",
        "fen 8/8/4k3/8/2p5/8/B2K4/8 w - - 0 1",
        "fen r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2PP1N2/PP3PPP/RNBQ1RK1 w - - 0 7",
        "fen 2r3k1/pp3pp1/7p/3p4/3P4/7P/PP3PP1/2R3K1 b - - 0 1",
        "fen 4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
    ];
    let mut e = Engine::start();
    for (i, position) in positions.iter().enumerate() {
        e.send(&format!("position {position}"));
        let movetime = if i % 3 == 0 { 1000 } else { 300 };
        let started = Instant::now();
        let (line, _) = e.go(&format!("movetime {movetime}"));
        let used = started.elapsed().as_millis() as u64;
        assert!(line.starts_with("bestmove "), "{line}");
        assert!(used * 10 >= movetime * 9, "{position}: {used} ms of movetime {movetime}");
    }
}

#[test]
fn node_and_depth_limits() {
    let mut e = Engine::start();
    e.send("position startpos");
    let (_, info) = e.go("depth 5");
    assert!(info.iter().any(|l| l.starts_with("info depth 5 ")));
    assert!(!info.iter().any(|l| l.starts_with("info depth 6 ")));
    let (line, _) = e.go("nodes 5000");
    assert_legal(zwischen::chess::START_FEN, &[], &line);
    let started = Instant::now();
    let (_, _) = e.go("movetime 300");
    assert!(started.elapsed() < Duration::from_secs(3));
    // A clock at zero or below means "move now", never "no limit".
    let started = Instant::now();
    let (line, _) = e.go("wtime -50 btime 1000");
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_legal(zwischen::chess::START_FEN, &[], &line);
}

/// The nodes of the last info line before `bestmove`.
fn last_nodes(info: &[String]) -> Option<u64> {
    info.iter().rev().find_map(|line| {
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = words.iter().position(|w| *w == "nodes")?;
        words.get(at + 1)?.parse().ok()
    })
}

#[test]
fn go_nodes_counts_every_thread_and_the_last_line_shows_them_all() {
    let mut e = Engine::start();
    for threads in [1, 2] {
        e.send(&format!("setoption name Threads value {threads}"));
        for fen in zwischen::tools::bench::POSITIONS.iter().take(4) {
            e.send("ucinewgame");
            e.send(&format!("position fen {fen}"));
            let (line, info) = e.go("nodes 100000");
            assert_legal(fen, &[], &line);
            let nodes = last_nodes(&info).unwrap();
            assert!(
                (98_000..=102_000).contains(&nodes),
                "{threads} threads, {fen}: {nodes} nodes for go nodes 100000"
            );
        }
    }
}

#[test]
fn perft_over_uci() {
    let mut e = Engine::start();
    e.send("position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    e.send("go perft 3");
    let (total, lines) = e.expect_prefix("Nodes searched:", SOON);
    assert_eq!(total, "Nodes searched: 97862");
    let moves: Vec<&String> = lines.iter().filter(|l| l.contains(": ")).collect();
    assert_eq!(moves.len(), 48);
    assert_eq!(lines.last().map(String::as_str), Some(""));
}

#[test]
fn perft_over_uci_with_threads_and_hash() {
    let mut e = Engine::start();
    e.send("setoption name Threads value 2");
    e.send("setoption name Hash value 1");
    e.send("position startpos moves e2e4");
    e.send("go perft 4");
    let (total, lines) = e.expect_prefix("Nodes searched:", SOON);
    assert_eq!(total, "Nodes searched: 405385");
    assert_eq!(lines.iter().filter(|l| l.contains(": ")).count(), 20);
    assert!(lines.contains(&"e7e5: 24825".to_string()), "{lines:?}");
    e.send("go perft 0");
    assert_eq!(e.expect_prefix("Nodes searched:", SOON).0, "Nodes searched: 1");
}

/// The `Network <hash>` line of the `eval` command: which net is in use.
fn network_in_use(e: &mut Engine) -> String {
    e.send("eval");
    e.expect_prefix("Network ", SOON).0
}

#[test]
fn eval_file_loads_good_nets_and_refuses_bad_ones() {
    use zwischen::eval::file::{HEADER_BYTES, fnv1a};
    let embedded =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/src/eval/zwischen.nnue")).unwrap();
    let dir = std::env::temp_dir().join(format!("zwischen eval file {}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path.to_string_lossy().into_owned()
    };
    // A different but valid net: one weight changed and the hash recomputed.
    let mut other = embedded.clone();
    other[HEADER_BYTES + 100] ^= 1;
    let hash = fnv1a(&other[HEADER_BYTES..]);
    other[40..48].copy_from_slice(&hash.to_le_bytes());
    let other_path = write("other net.nnue", &other);
    let truncated = write("truncated.nnue", &embedded[..embedded.len() / 2]);
    let mut corrupt = embedded.clone();
    corrupt[HEADER_BYTES + 7] ^= 0x40;
    let corrupt = write("corrupt.nnue", &corrupt);
    let mut version = embedded.clone();
    version[4] = 99;
    let version = write("version.nnue", &version);
    let oversized = write("oversized.nnue", &[embedded.as_slice(), &[0u8; 8]].concat());
    let text = write("text.nnue", "not a network at all\n".repeat(10).as_bytes());

    let mut e = Engine::start();
    let original = network_in_use(&mut e);
    for (path, why) in [
        ("/no/such/dir/net.nnue".to_string(), "No such file"),
        (truncated, "payload is"),
        (corrupt, "corrupt"),
        (version, "format version 99"),
        (oversized, "payload is"),
        (text, "bad magic"),
    ] {
        e.send(&format!("setoption name EvalFile value {path}"));
        let (line, _) = e.expect_prefix("info string", SOON);
        assert!(line.starts_with("info string error: EvalFile") && line.contains(why), "{line}");
        assert_eq!(network_in_use(&mut e), original, "a refused file must not replace the net");
    }
    e.send(&format!("setoption name EvalFile value {other_path}"));
    let (line, _) = e.expect_prefix("info string", SOON);
    assert!(line.starts_with("info string EvalFile: loaded"), "{line}");
    // The other net keeps the embedded net's output scale, so only the hash differs.
    let embedded_hash = format!("{:016x}", fnv1a(&embedded[HEADER_BYTES..]));
    assert_eq!(network_in_use(&mut e), original.replace(&embedded_hash, &format!("{hash:016x}")));
    let (line, _) = e.go("depth 4");
    assert_legal(zwischen::chess::START_FEN, &[], &line);
    e.send("setoption name EvalFile value <internal>");
    e.expect_prefix("info string EvalFile: the embedded network", SOON);
    assert_eq!(network_in_use(&mut e), original);
    e.send("quit");
    assert!(e.wait_exit(SOON));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether `line` (UCI moves) can be played from `pos`.
fn is_legal_line(pos: &Position, line: &[&str]) -> bool {
    let mut pos = *pos;
    line.iter().all(|text| match pos.parse_uci_move(text, false) {
        Ok(mv) => {
            pos.make_move(mv);
            true
        }
        Err(_) => false,
    })
}

#[test]
fn every_line_and_ponder_move_shown_in_self_play_is_legal() {
    // A root move that fails high is searched again with a wider window; when the node limit
    // stops the search before that, the move is played without a PV of its own, and once
    // came with the line of the move searched before it (an illegal ponder move).
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};
    let mut rng = StdRng::seed_from_u64(5);
    let mut e = Engine::start();
    let mut bad = Vec::new();
    for start in zwischen::tools::bench::POSITIONS.iter().skip(24).take(12) {
        let mut pos = Position::from_fen(start).unwrap();
        let mut moves: Vec<String> = Vec::new();
        while moves.len() < 120 && !pos.legal_moves().is_empty() && pos.halfmove_clock() < 100 {
            e.send(&format!("position fen {start} moves {}", moves.join(" ")));
            let nodes = [300, 1000, 3000][rng.random_range(0..3)];
            let (line, info) = e.go(&format!("nodes {nodes}"));
            for shown in info.iter().chain(std::iter::once(&line)) {
                let words: Vec<&str> = shown.split_whitespace().collect();
                let seq: Vec<&str> = match words.iter().position(|w| *w == "pv") {
                    Some(at) if words[0] == "info" => words[at + 1..].to_vec(),
                    _ if words[0] == "bestmove" => {
                        words.iter().skip(1).copied().filter(|w| *w != "ponder").collect()
                    }
                    _ => continue,
                };
                if !is_legal_line(&pos, &seq) {
                    bad.push(format!("{}: {shown}", pos.to_fen()));
                }
            }
            let mv = pos.parse_uci_move(best_move(&line), false).unwrap();
            pos.make_move(mv);
            moves.push(best_move(&line).to_string());
        }
    }
    assert!(bad.is_empty(), "illegal lines:\n{}", bad.join("\n"));
}

/// The first move of the last `info ... pv` line before `bestmove` (multipv 1 lines only).
fn last_pv_move(info: &[String]) -> Option<String> {
    info.iter().rev().find_map(|line| {
        let words: Vec<&str> = line.split_whitespace().collect();
        let multipv = words.iter().position(|w| *w == "multipv").map(|at| words[at + 1]);
        let pv = words.iter().position(|w| *w == "pv")?;
        (words[0] == "info" && multipv.is_none_or(|m| m == "1")).then(|| words[pv + 1].to_string())
    })
}

#[test]
fn the_move_played_is_the_line_shown_last() {
    // A move that beats the best one in an unfinished iteration is played; a limited strength
    // may pick another line than the best; either way the last line shown is the move played.
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};
    let mut rng = StdRng::seed_from_u64(11);
    let mut e = Engine::start();
    let mut bad = Vec::new();
    let mut searches = 0;
    for (game, start) in zwischen::tools::bench::POSITIONS.iter().take(16).enumerate() {
        let limited = game % 4 == 3;
        e.send(&format!("setoption name UCI_LimitStrength value {limited}"));
        // A label that chooses among noisy lines, and one that plays its single best line.
        let elo = if game % 8 == 3 { 1800 } else { 2500 };
        e.send(&format!("setoption name UCI_Elo value {elo}"));
        e.send(&format!("setoption name Threads value {}", 1 + game % 2));
        let mut pos = Position::from_fen(start).unwrap();
        let mut moves: Vec<String> = Vec::new();
        while moves.len() < 40 && !pos.legal_moves().is_empty() && pos.halfmove_clock() < 100 {
            e.send(&format!("position fen {start} moves {}", moves.join(" ")));
            let go = match rng.random_range(0..3) {
                0 => format!("nodes {}", rng.random_range(50..5000)),
                1 => format!("movetime {}", rng.random_range(1..15)),
                _ => format!("wtime {0} btime {0} winc 10 binc 10", rng.random_range(20..400)),
            };
            let (line, info) = e.go(&go);
            searches += 1;
            let played = best_move(&line).to_string();
            if last_pv_move(&info).as_deref() != Some(played.as_str()) {
                bad.push(format!("{} go {go}: {line}; last info: {:?}", pos.to_fen(), info.last()));
            }
            let mv = pos.parse_uci_move(&played, false).unwrap();
            pos.make_move(mv);
            moves.push(played);
        }
    }
    assert!(bad.is_empty(), "{} of {searches} searches:\n{}", bad.len(), bad.join("\n"));
}
