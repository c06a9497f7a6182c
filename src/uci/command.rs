//! Parsing one line of UCI input into a command. Pure text handling: nothing here touches
//! engine state, so every input string can be tried safely.

use std::num::IntErrorKind;

use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Uci,
    Debug,
    IsReady,
    UciNewGame,
    SetOption {
        name: String,
        value: Option<String>,
    },
    /// `fen` is `None` for `startpos`.
    Position {
        fen: Option<String>,
        moves: Vec<String>,
    },
    Go(GoParams),
    Perft(u32),
    Stop,
    PonderHit,
    Quit,
    /// Non-standard: show the board.
    Display,
    /// Non-standard: show the static evaluation.
    Eval,
    /// Non-standard: run the bench (optional depth).
    Bench(Option<i32>),
    /// A blank line or `register`: nothing to do.
    Nothing,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GoParams {
    pub wtime: Option<i64>,
    pub btime: Option<i64>,
    pub winc: Option<i64>,
    pub binc: Option<i64>,
    pub movestogo: Option<u32>,
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    pub mate: Option<u32>,
    pub movetime: Option<i64>,
    pub infinite: bool,
    pub ponder: bool,
    pub searchmoves: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CommandError {
    #[error("unknown command '{0}'")]
    Unknown(String),
    #[error("{0}")]
    Invalid(String),
}

/// Parses a line. Problems that do not stop the command (unknown `go` parameters, a
/// malformed `go` answered by a minimal search) are reported in `warnings`.
pub fn parse(line: &str, warnings: &mut Vec<String>) -> Result<Command, CommandError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some((&first, rest)) = words.split_first() else {
        return Ok(Command::Nothing);
    };
    match first {
        "uci" => Ok(Command::Uci),
        "debug" => Ok(Command::Debug),
        "isready" => Ok(Command::IsReady),
        "ucinewgame" => Ok(Command::UciNewGame),
        "setoption" => parse_setoption(line, rest),
        "position" => parse_position(rest),
        "go" => parse_go(rest, warnings),
        "stop" => Ok(Command::Stop),
        "ponderhit" => Ok(Command::PonderHit),
        "quit" => Ok(Command::Quit),
        "register" => Ok(Command::Nothing),
        "d" => Ok(Command::Display),
        "eval" => Ok(Command::Eval),
        "bench" => match rest.first() {
            None => Ok(Command::Bench(None)),
            Some(text) => text
                .parse::<i32>()
                .ok()
                .filter(|d| (1..=64).contains(d))
                .map(|d| Command::Bench(Some(d)))
                .ok_or_else(|| {
                    CommandError::Invalid(format!("bench depth must be 1 to 64, not '{text}'"))
                }),
        },
        other => Err(CommandError::Unknown(shorten(other))),
    }
}

/// Keeps error messages short when the input is huge.
fn shorten(text: &str) -> String {
    const MAX: usize = 64;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_string(),
    }
}

/// `words` are slices of `line`; the value is the rest of the line as written (a path may hold
/// runs of spaces).
fn parse_setoption(line: &str, words: &[&str]) -> Result<Command, CommandError> {
    if words.first() != Some(&"name") {
        return Err(CommandError::Invalid("setoption needs 'name <option>'".into()));
    }
    let value_at = words.iter().position(|w| *w == "value");
    let name_end = value_at.unwrap_or(words.len());
    let name = words[1..name_end].join(" ");
    if name.is_empty() {
        return Err(CommandError::Invalid("setoption needs an option name".into()));
    }
    let value = value_at.map(|at| match words.get(at + 1) {
        Some(first) => {
            let start = first.as_ptr() as usize - line.as_ptr() as usize;
            line.get(start..).unwrap_or(first).trim_end().to_string()
        }
        None => String::new(),
    });
    Ok(Command::SetOption { name, value })
}

fn parse_position(words: &[&str]) -> Result<Command, CommandError> {
    let moves_at = words.iter().position(|w| *w == "moves");
    let setup = &words[..moves_at.unwrap_or(words.len())];
    let moves =
        moves_at.map_or(Vec::new(), |at| words[at + 1..].iter().map(|m| m.to_string()).collect());
    match setup.split_first() {
        Some((&"startpos", [])) => Ok(Command::Position { fen: None, moves }),
        Some((&"startpos", extra)) => Err(CommandError::Invalid(format!(
            "unexpected '{}' after 'position startpos'",
            shorten(extra[0])
        ))),
        Some((&"fen", fen)) if !fen.is_empty() => {
            Ok(Command::Position { fen: Some(fen.join(" ")), moves })
        }
        Some((&"fen", _)) => Err(CommandError::Invalid("'position fen' needs a FEN".into())),
        _ => Err(CommandError::Invalid("position needs 'startpos' or 'fen <FEN>'".into())),
    }
}

/// Parses the parameters of `go`.
///
/// A malformed `go` (a parameter without its value, a value that is not a whole number, out
/// of range, or given twice) is not run as written: the problems are reported in `warnings`
/// and the command becomes `GoParams::fallback`, a depth-1 search. Why not reject it
/// outright, as a bad `position` is? Every `go` must get exactly one `bestmove`: a GUI
/// that sent one waits for it, and queues its next `position` and `go` behind it. Why not
/// run it without the bad part, as before? `go depth abc` would then search with no limit at
/// all, and the GUI would wait for ever. (Stockfish, the usual reference, reads `go depth abc`
/// as `go` and searches until `stop`: exactly that hang.) A depth-1 search answers at once
/// with a legal move; `ponder` and `infinite` are kept, so its `bestmove` still waits for
/// `ponderhit` or `stop` when the GUI said it would send one. Unknown words are reported and
/// skipped, as the UCI protocol asks. `go perft` is not a search: a malformed one is an
/// error and prints nothing else.
fn parse_go(words: &[&str], warnings: &mut Vec<String>) -> Result<Command, CommandError> {
    if words.contains(&"perft") {
        return match words {
            ["perft", depth] => {
                depth.parse::<u32>().ok().filter(|d| *d <= 20).map(Command::Perft).ok_or_else(
                    || {
                        CommandError::Invalid(format!(
                            "go perft needs a depth from 0 to 20, not '{}'",
                            shorten(depth)
                        ))
                    },
                )
            }
            _ => Err(CommandError::Invalid(
                "go perft takes one depth from 0 to 20 and no other parameter".into(),
            )),
        };
    }
    let mut go = GoParams::default();
    let mut problems = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let keyword = words[i];
        i += 1;
        if GO_KEYWORDS.contains(&keyword) {
            if seen.contains(&keyword) {
                problems.push(format!("go {keyword} is given twice"));
            }
            seen.push(keyword);
        }
        // The keyword's value, checked against `range`.
        let mut value = |range: std::ops::RangeInclusive<i128>| -> Option<i128> {
            let text = words.get(i).copied().filter(|t| !GO_KEYWORDS.contains(t));
            let Some(text) = text else {
                problems.push(format!("go {keyword} needs a value"));
                return None;
            };
            i += 1;
            let problem = match text.parse::<i128>() {
                Ok(v) if range.contains(&v) => return Some(v),
                Ok(_) => "out of range",
                Err(e)
                    if matches!(
                        e.kind(),
                        IntErrorKind::PosOverflow | IntErrorKind::NegOverflow
                    ) =>
                {
                    "out of range"
                }
                Err(_) => "not a whole number",
            };
            problems.push(format!(
                "go {keyword} {}: {problem} (from {} to {})",
                shorten(text),
                range.start(),
                range.end()
            ));
            None
        };
        // Clock times may be negative: a clock that has run over means "move now".
        const MS: i128 = i64::MAX as i128;
        const COUNT: i128 = u32::MAX as i128;
        match keyword {
            "wtime" => go.wtime = value(-MS - 1..=MS).map(|v| v as i64),
            "btime" => go.btime = value(-MS - 1..=MS).map(|v| v as i64),
            "winc" => go.winc = value(0..=MS).map(|v| v as i64),
            "binc" => go.binc = value(0..=MS).map(|v| v as i64),
            "movestogo" => go.movestogo = value(1..=COUNT).map(|v| v as u32),
            // Deeper than the search can go (or a longer mate than it sees) means "as deep as
            // it goes".
            "depth" => go.depth = value(1..=COUNT).map(|v| v.min(1000) as i32),
            "nodes" => go.nodes = value(1..=u64::MAX as i128).map(|v| v as u64),
            "mate" => go.mate = value(1..=COUNT).map(|v| v.min(1000) as u32),
            "movetime" => go.movetime = value(0..=MS).map(|v| v as i64),
            "infinite" => go.infinite = true,
            "ponder" => go.ponder = true,
            "searchmoves" => {
                let first = i;
                while let Some(&mv) = words.get(i).filter(|w| !GO_KEYWORDS.contains(w)) {
                    go.searchmoves.push(mv.to_string());
                    i += 1;
                }
                if i == first {
                    problems.push("go searchmoves needs at least one move".into());
                }
            }
            other => warnings.push(format!("unknown go parameter '{}' ignored", shorten(other))),
        }
    }
    if problems.is_empty() {
        return Ok(Command::Go(go));
    }
    warnings.push(format!("{}; {FALLBACK_NOTE}", problems.join("; ")));
    Ok(Command::Go(go.fallback()))
}

/// How the error message about a malformed `go` ends.
pub const FALLBACK_NOTE: &str = "go not run as given, searching to depth 1 instead";

impl GoParams {
    /// What a malformed `go` is answered with (see `parse_go`): a depth-1 search that keeps
    /// only `ponder` and `infinite`, which say when its `bestmove` may be sent.
    pub fn fallback(&self) -> GoParams {
        GoParams {
            depth: Some(1),
            infinite: self.infinite,
            ponder: self.ponder,
            ..GoParams::default()
        }
    }
}

const GO_KEYWORDS: &[&str] = &[
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
    "ponder",
    "searchmoves",
    "perft",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn go(line: &str) -> (GoParams, Vec<String>) {
        let mut warnings = Vec::new();
        match parse(line, &mut warnings) {
            Ok(Command::Go(params)) => (params, warnings),
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn go_parameters() {
        let (p, w) = go("go wtime 1000 btime -5 winc 10 binc 0 movestogo 20");
        assert!(w.is_empty());
        assert_eq!(
            (p.wtime, p.btime, p.winc, p.binc, p.movestogo),
            (Some(1000), Some(-5), Some(10), Some(0), Some(20))
        );
        let (p, w) = go("go depth 7 nodes 18446744073709551615 mate 3 movetime 0");
        assert!(w.is_empty());
        assert_eq!(
            (p.depth, p.nodes, p.mate, p.movetime),
            (Some(7), Some(u64::MAX), Some(3), Some(0))
        );
        let (p, _) = go("go searchmoves e2e4 d2d4 ponder");
        assert_eq!(p.searchmoves, vec!["e2e4", "d2d4"]);
        assert!(p.ponder);
        // Unknown words are skipped.
        let (p, w) = go("go depth 5 sideways 3");
        assert_eq!((p.depth, w.len()), (Some(5), 2));
    }

    #[test]
    fn a_malformed_go_becomes_a_depth_1_search() {
        let fallback = GoParams { depth: Some(1), ..GoParams::default() };
        for keyword in
            ["wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate", "movetime"]
        {
            let mut bad = vec![
                format!("go {keyword}"),
                format!("go {keyword} nodes 5"),
                format!("go {keyword} abc"),
                format!("go {keyword} 1.5"),
                format!("go {keyword} 99999999999999999999999"),
                format!("go {keyword} 7 {keyword} 7"),
            ];
            if !["wtime", "btime"].contains(&keyword) {
                bad.push(format!("go {keyword} -1"));
            }
            for line in bad {
                let (p, w) = go(&line);
                // Even where the rest is fine (`nodes 5`), the whole go is replaced.
                assert_eq!(p, fallback, "{line}");
                assert_eq!(w.len(), 1, "{line}: {w:?}");
                assert!(w[0].contains(keyword) && w[0].ends_with(FALLBACK_NOTE), "{line}: {w:?}");
            }
        }
        for line in
            ["go searchmoves", "go searchmoves depth 3", "go infinite infinite", "go ponder ponder"]
        {
            let (p, w) = go(line);
            assert_eq!((p.depth, p.searchmoves.len(), w.len()), (Some(1), 0, 1), "{line}");
        }
        // `ponder` and `infinite` stay: they say when the bestmove may be sent.
        let (p, _) = go("go ponder wtime abc infinite");
        assert_eq!(
            p,
            GoParams { depth: Some(1), ponder: true, infinite: true, ..GoParams::default() }
        );
        // Zero is out of range for counts, in range for times.
        for line in ["go depth 0", "go nodes 0", "go mate 0", "go movestogo 0"] {
            assert_eq!(go(line).0, fallback, "{line}");
        }
        for line in ["go movetime 0", "go wtime 0 btime 0 winc 0 binc 0"] {
            assert!(go(line).1.is_empty(), "{line}");
        }
    }

    #[test]
    fn a_malformed_perft_is_an_error() {
        let mut w = Vec::new();
        assert_eq!(parse("go perft 0", &mut w), Ok(Command::Perft(0)));
        for line in [
            "go perft",
            "go perft abc",
            "go perft -1",
            "go perft 21",
            "go perft 99999999999999999999",
            "go perft 2 perft 3",
            "go perft 2 depth 3",
            "go depth 3 perft 2",
        ] {
            assert!(matches!(parse(line, &mut w), Err(CommandError::Invalid(_))), "{line}");
        }
        assert!(w.is_empty());
    }

    #[test]
    fn other_commands() {
        let mut w = Vec::new();
        assert_eq!(parse("  isready  ", &mut w), Ok(Command::IsReady));
        assert_eq!(parse("", &mut w), Ok(Command::Nothing));
        assert_eq!(
            parse("setoption name Move Overhead value 30", &mut w),
            Ok(Command::SetOption { name: "Move Overhead".into(), value: Some("30".into()) })
        );
        // A value is kept as written: runs of spaces in a path, even the word "value".
        assert_eq!(
            parse("setoption name SyzygyPath value  /my  tables/value:/b \t", &mut w),
            Ok(Command::SetOption {
                name: "SyzygyPath".into(),
                value: Some("/my  tables/value:/b".into())
            })
        );
        assert_eq!(
            parse("setoption name SyzygyPath value", &mut w),
            Ok(Command::SetOption { name: "SyzygyPath".into(), value: Some(String::new()) })
        );
        assert_eq!(
            parse("position startpos moves e2e4 e7e5", &mut w),
            Ok(Command::Position { fen: None, moves: vec!["e2e4".into(), "e7e5".into()] })
        );
        assert_eq!(parse("go perft 3", &mut w), Ok(Command::Perft(3)));
        assert!(matches!(parse("position", &mut w), Err(CommandError::Invalid(_))));
        assert!(matches!(parse("position fen", &mut w), Err(CommandError::Invalid(_))));
        assert!(matches!(parse("xyzzy", &mut w), Err(CommandError::Unknown(_))));
        assert!(
            matches!(parse(&"x".repeat(100_000), &mut w), Err(CommandError::Unknown(s)) if s.len() < 100)
        );
    }
}
