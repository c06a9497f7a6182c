//! The `zwischen perft` command as a user runs it: counts, `--suite`, and errors that exit
//! non-zero with a message instead of a panic.

use std::process::{Command, Output};

fn zwischen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zwischen")).args(args).output().expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Writes `text` to a file of its own in the temp directory; returns its path.
fn temp_file(name: &str, text: &str) -> String {
    let path = std::env::temp_dir().join(format!("zwischen-perft-{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

#[test]
fn counts_agree_with_threads_and_hash() {
    for args in [&[][..], &["--threads", "2"], &["--hash", "1"], &["--threads", "2", "--hash", "4"]]
    {
        let mut all = vec!["perft", "4", "--fen", KIWIPETE, "--divide"];
        all.extend_from_slice(args);
        let output = zwischen(&all);
        assert!(output.status.success(), "{args:?}: {}", stderr(&output));
        let out = stdout(&output);
        assert!(out.contains("\nNodes: 4085603\n"), "{args:?}: {out}");
        assert!(out.lines().any(|l| l.starts_with("Time: ")));
        assert!(out.lines().any(|l| l.starts_with("NPS: ")));
        // Every root move, with its count ("e2e4: 1234").
        let moves = out.lines().filter(|l| {
            l.split_once(": ")
                .is_some_and(|(m, _)| m.len() >= 4 && m.as_bytes()[1].is_ascii_digit())
        });
        assert_eq!(moves.count(), 48, "{args:?}: {out}");
        assert!(out.contains("e1g1: 86975\n"), "{out}");
    }
}

#[test]
fn perft_zero_is_one() {
    let output = zwischen(&["perft", "0", "--threads", "2", "--hash", "1"]);
    assert!(output.status.success());
    assert!(stdout(&output).starts_with("Nodes: 1\n"), "{}", stdout(&output));
}

#[test]
fn a_suite_with_a_wrong_count_fails_and_names_it() {
    let file = temp_file(
        "suite.epd",
        &format!(
            "# two positions, one count wrong\n\
             {KIWIPETE} ;D1 48 ;D2 2039 ;D3 97862\n\
             bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9 ;D1 21 ;D2 529 ;D3 12189 ;D4 326672\n"
        ),
    );
    let output = zwischen(&["perft", "--suite", &file, "--threads", "2", "--hash", "1"]);
    let out = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{out}");
    let mismatches: Vec<&str> = out.lines().filter(|l| l.starts_with("mismatch")).collect();
    assert_eq!(mismatches.len(), 1, "{out}");
    let line = mismatches[0];
    for part in ["line 3", "depth 2", "expected 529", "got 528", "BQ1BNRKR w HFhf", "--divide"] {
        assert!(line.contains(part), "'{part}' missing from: {line}");
    }
    assert!(line.contains("zwischen perft 2 --fen \""), "{line}");
    assert!(line.contains("--chess960"), "{line}");
    assert!(
        out.contains("2 positions, 7 counts checked, 0 over the node cap skipped, 1 mismatches")
    );
    assert!(out.contains("\nNodes: "), "{out}");

    // The node cap leaves the wrong count out (529 > 500): all good.
    let output = zwischen(&["perft", "--suite", &file, "--max-nodes", "500"]);
    assert!(output.status.success(), "{}", stdout(&output));
    assert!(
        stdout(&output)
            .contains("2 positions, 2 counts checked, 5 over the node cap skipped, 0 mismatches")
    );
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let malformed = temp_file("malformed.epd", &format!("{KIWIPETE} ;D1 48\n{KIWIPETE} ;D2\n"));
    let missing = std::env::temp_dir().join("zwischen-perft-no-such-file.epd");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["perft", "3", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1"], "invalid FEN"),
        (vec!["perft", "3", "--fen", "not a fen"], "invalid FEN"),
        (vec!["perft", "21"], "21"),
        (vec!["perft", "-1"], "-1"),
        (vec!["perft"], "DEPTH"),
        (vec!["perft", "3", "--threads", "0"], "0"),
        (vec!["perft", "--suite", &malformed], "line 2"),
        (vec!["perft", "--suite", missing.to_str().unwrap()], "cannot read"),
        (vec!["perft", "3", "--suite", &malformed], "cannot be used with"),
    ];
    for (args, message) in cases {
        let output = zwischen(&args);
        let err = stderr(&output);
        assert!(!output.status.success(), "{args:?} succeeded");
        assert!(err.contains(message), "{args:?}: '{message}' not in: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
