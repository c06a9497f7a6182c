//! Parsing one line of UCI input into a command. Pure text handling: nothing here touches
//! engine state, so every input string can be tried safely.

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

/// Parses a line. For `go`, malformed parameters are reported in `warnings` and skipped so
/// that every `go` still searches and answers `bestmove`.
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
        "setoption" => parse_setoption(rest),
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

fn parse_setoption(words: &[&str]) -> Result<Command, CommandError> {
    if words.first() != Some(&"name") {
        return Err(CommandError::Invalid("setoption needs 'name <option>'".into()));
    }
    let value_at = words.iter().position(|w| *w == "value");
    let name_end = value_at.unwrap_or(words.len());
    let name = words[1..name_end].join(" ");
    if name.is_empty() {
        return Err(CommandError::Invalid("setoption needs an option name".into()));
    }
    let value = value_at.map(|at| words[at + 1..].join(" "));
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

fn parse_go(words: &[&str], warnings: &mut Vec<String>) -> Result<Command, CommandError> {
    let mut go = GoParams::default();
    let mut i = 0;
    while i < words.len() {
        let keyword = words[i];
        i += 1;
        let mut value = |warnings: &mut Vec<String>| -> Option<i64> {
            let text = words.get(i).copied();
            match text.and_then(|t| t.parse::<i64>().ok()) {
                Some(v) => {
                    i += 1;
                    Some(v)
                }
                None => {
                    warnings.push(format!(
                        "go {keyword} needs a number, found '{}'; ignored",
                        shorten(text.unwrap_or(""))
                    ));
                    // Skip a bad value, but not the next keyword.
                    if text.is_some_and(|t| !GO_KEYWORDS.contains(&t)) {
                        i += 1;
                    }
                    None
                }
            }
        };
        match keyword {
            "wtime" => go.wtime = value(warnings),
            "btime" => go.btime = value(warnings),
            "winc" => go.winc = value(warnings),
            "binc" => go.binc = value(warnings),
            "movestogo" => {
                go.movestogo = value(warnings).map(|v| v.clamp(0, u32::MAX as i64) as u32)
            }
            "depth" => go.depth = value(warnings).map(|v| v.clamp(1, 1000) as i32),
            "nodes" => go.nodes = value(warnings).map(|v| v.max(1) as u64),
            "mate" => go.mate = value(warnings).map(|v| v.clamp(1, 1000) as u32),
            "movetime" => go.movetime = value(warnings),
            "infinite" => go.infinite = true,
            "ponder" => go.ponder = true,
            "perft" => {
                let depth = words.get(i).and_then(|t| t.parse::<u32>().ok()).filter(|d| *d <= 20);
                return depth.map(Command::Perft).ok_or_else(|| {
                    CommandError::Invalid("go perft needs a depth from 0 to 20".into())
                });
            }
            "searchmoves" => {
                while let Some(&mv) = words.get(i).filter(|w| !GO_KEYWORDS.contains(w)) {
                    go.searchmoves.push(mv.to_string());
                    i += 1;
                }
            }
            other => warnings.push(format!("unknown go parameter '{}' ignored", shorten(other))),
        }
    }
    Ok(Command::Go(go))
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
        let (p, w) = go("go depth abc nodes 500");
        assert_eq!((p.depth, p.nodes, w.len()), (None, Some(500), 1));
        let (p, w) = go("go depth infinite");
        assert!(p.infinite && p.depth.is_none() && w.len() == 1);
        let (p, _) = go("go searchmoves e2e4 d2d4 ponder");
        assert_eq!(p.searchmoves, vec!["e2e4", "d2d4"]);
        assert!(p.ponder);
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
