//! Every position of `perft-suites/*.epd` must give its published node counts.
//!
//! `cargo test --release` checks each position at every listed depth up to 5 million nodes;
//! `cargo test --release -- --ignored` checks every listed depth: about 22 billion nodes for
//! the standard suite and 524 billion for Chess960 (tens of minutes on two cores).

use std::path::Path;

use zwischen::chess::{Position, perft};
use zwischen::perft::{Perft, suite};

struct Case {
    line: usize,
    fen: String,
    /// (depth, expected nodes)
    counts: Vec<(u32, u64)>,
}

fn load(file: &str) -> Vec<Case> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("perft-suites").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut cases = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.split(';');
        let fen = parts.next().unwrap().trim().to_string();
        let counts = parts
            .map(|part| {
                let mut words = part.split_whitespace();
                let depth =
                    words.next().and_then(|d| d.strip_prefix('D')).and_then(|d| d.parse().ok());
                let nodes = words.next().and_then(|n| n.parse().ok());
                match (depth, nodes) {
                    (Some(d), Some(n)) => (d, n),
                    _ => panic!("{file}:{}: bad count '{part}'", i + 1),
                }
            })
            .collect();
        cases.push(Case { line: i + 1, fen, counts });
    }
    cases
}

/// Checks the counts up to `limit` nodes on two threads; returns the number checked.
fn check(file: &str, limit: u64) -> usize {
    let cases = load(file);
    assert!(!cases.is_empty(), "{file} is empty");
    let failures = std::sync::Mutex::new(Vec::new());
    let checked = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for part in 0..2 {
            let (cases, failures, checked) = (&cases, &failures, &checked);
            scope.spawn(move || {
                for case in cases.iter().skip(part).step_by(2) {
                    let pos = Position::from_fen(&case.fen)
                        .unwrap_or_else(|e| panic!("{file}:{}: {e}", case.line));
                    for &(depth, expected) in &case.counts {
                        if expected > limit {
                            continue;
                        }
                        let nodes = perft(&pos, depth);
                        checked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if nodes != expected {
                            failures.lock().unwrap().push(format!(
                                "{file}:{} depth {depth}: {nodes}, expected {expected} ({})",
                                case.line, case.fen
                            ));
                        }
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    checked.into_inner()
}

const QUICK_LIMIT: u64 = 5_000_000;

#[test]
fn standard_suite() {
    assert!(check("standard.epd", QUICK_LIMIT) > 500);
}

#[test]
fn chess960_suite() {
    assert!(check("chess960.epd", QUICK_LIMIT) > 400);
}

/// The suites again through `zwischen perft --suite`'s code: two threads sharing one table
/// across all the positions (Chess960 castling rooks included), and the file parser.
#[test]
fn suites_with_threads_and_a_table() {
    let perft = Perft::new(2, 16).unwrap();
    for file in ["standard.epd", "chess960.epd"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("perft-suites").join(file);
        let cases = suite::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert_eq!(cases.len(), load(file).len());
        let summary = suite::run(&cases, &perft, QUICK_LIMIT, &mut |_| {}, &|_| {}).unwrap();
        let mismatches: Vec<String> = summary.mismatches.iter().map(|m| m.to_string()).collect();
        assert!(mismatches.is_empty(), "{file}:\n{}", mismatches.join("\n"));
        assert!(summary.checked > 400, "{file}: {} checked", summary.checked);
    }
}

#[test]
#[ignore = "billions of nodes: cargo test --release -- --ignored"]
fn standard_suite_full_depth() {
    check("standard.epd", u64::MAX);
}

#[test]
#[ignore = "billions of nodes: cargo test --release -- --ignored"]
fn chess960_suite_full_depth() {
    check("chess960.epd", u64::MAX);
}
