//! Perft suites: EPD files of positions with published counts, one `FEN ;D1 n ;D2 n ...` a
//! line (the format of `perft-suites/`), checked depth by depth up to a node cap.

use std::time::{Duration, Instant};

use crate::chess::{CastleSide, Color, FenError, Position, Square};

use super::{MAX_DEPTH, Perft, PerftError, Progress, Reporter};

/// What is wrong with a suite file. Lines are numbered from 1.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SuiteError {
    #[error("line {line}: invalid FEN '{fen}': {error}")]
    Fen { line: usize, fen: String, error: FenError },
    #[error("line {line}: malformed count '{text}' (expected 'D<depth> <nodes>')")]
    Count { line: usize, text: String },
    #[error("line {line}: depth {depth} is beyond the deepest perft supported ({MAX_DEPTH})")]
    Depth { line: usize, depth: u32 },
    #[error("line {line}: no counts after the FEN (expected 'FEN ;D1 n ;D2 n ...')")]
    NoCounts { line: usize },
    #[error("no positions (lines 'FEN ;D1 n ;D2 n ...')")]
    Empty,
}

/// One position of a suite and its published counts.
#[derive(Clone, Debug)]
pub struct Case {
    pub line: usize,
    pub fen: String,
    pub position: Position,
    /// (depth, expected leaf count), in the file's order.
    pub counts: Vec<(u32, u64)>,
}

/// Reads a suite; blank lines and lines starting with `#` are skipped.
pub fn parse(text: &str) -> Result<Vec<Case>, SuiteError> {
    let mut cases = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_number = i + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.split(';');
        let fen = parts.next().unwrap_or_default().trim().to_string();
        let position = Position::from_fen(&fen).map_err(|error| SuiteError::Fen {
            line: line_number,
            fen: fen.clone(),
            error,
        })?;
        let counts =
            parts.map(|part| parse_count(part, line_number)).collect::<Result<Vec<_>, _>>()?;
        if counts.is_empty() {
            return Err(SuiteError::NoCounts { line: line_number });
        }
        cases.push(Case { line: line_number, fen, position, counts });
    }
    if cases.is_empty() {
        return Err(SuiteError::Empty);
    }
    Ok(cases)
}

/// One `D<depth> <nodes>` field.
fn parse_count(part: &str, line: usize) -> Result<(u32, u64), SuiteError> {
    let malformed = || SuiteError::Count { line, text: part.trim().to_string() };
    let words: Vec<&str> = part.split_whitespace().collect();
    let [depth, nodes] = words[..] else { return Err(malformed()) };
    let depth: u32 = depth.strip_prefix('D').and_then(|d| d.parse().ok()).ok_or_else(malformed)?;
    let nodes: u64 = nodes.parse().map_err(|_| malformed())?;
    if depth > MAX_DEPTH {
        return Err(SuiteError::Depth { line, depth });
    }
    Ok((depth, nodes))
}

/// A count that differs from the published one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub line: usize,
    pub fen: String,
    pub depth: u32,
    pub expected: u64,
    pub got: u64,
    /// Whether the position castles in a way only Chess960 notation writes unambiguously.
    pub chess960: bool,
}

impl Mismatch {
    /// The command that lists the count below each root move, to narrow the fault down.
    pub fn divide_command(&self) -> String {
        let chess960 = if self.chess960 { " --chess960" } else { "" };
        format!("zwischen perft {} --fen \"{}\" --divide{chess960}", self.depth, self.fen)
    }
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "mismatch: line {}: {}: depth {}: expected {}, got {}; narrow it down with: {}",
            self.line,
            self.fen,
            self.depth,
            self.expected,
            self.got,
            self.divide_command()
        )
    }
}

/// The outcome of a suite run.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub positions: usize,
    /// Counts compared with the published ones.
    pub checked: usize,
    /// Counts above the node cap, not run.
    pub skipped: usize,
    pub mismatches: Vec<Mismatch>,
    /// Leaf nodes counted, over all checked counts.
    pub nodes: u64,
    pub seconds: f64,
}

/// How far a suite run has got: between counts, or within a long one.
pub struct SuiteProgress<'a> {
    pub case: &'a Case,
    /// 1 for the first position of the suite.
    pub number: usize,
    pub positions: usize,
    pub depth: u32,
    /// The progress of the count under way, in a long one.
    pub count: Option<Progress>,
    /// Since the suite started.
    pub elapsed: Duration,
}

/// Checks every count of `cases` up to `max_nodes` (by the published count) with `perft`,
/// calling `on_mismatch` as each mismatch is found and `progress` now and then in a long run.
pub fn run(
    cases: &[Case],
    perft: &Perft,
    max_nodes: u64,
    on_mismatch: &mut dyn FnMut(&Mismatch),
    progress: &(dyn Fn(&SuiteProgress) + Sync),
) -> Result<Summary, PerftError> {
    let start = Instant::now();
    let reporter = Reporter::new(start);
    let mut summary = Summary { positions: cases.len(), ..Summary::default() };
    for (i, case) in cases.iter().enumerate() {
        let report = |depth, count| {
            progress(&SuiteProgress {
                case,
                number: i + 1,
                positions: cases.len(),
                depth,
                count,
                elapsed: start.elapsed(),
            })
        };
        for &(depth, expected) in &case.counts {
            if expected > max_nodes {
                summary.skipped += 1;
                continue;
            }
            reporter.maybe_report(|_| report(depth, None));
            let got =
                perft.count(&case.position, depth, &|p: &Progress| report(depth, Some(*p)))?;
            summary.checked += 1;
            summary.nodes += got;
            if got != expected {
                let mismatch = Mismatch {
                    line: case.line,
                    fen: case.fen.clone(),
                    depth,
                    expected,
                    got,
                    chess960: castles_as_chess960(&case.position),
                };
                on_mismatch(&mismatch);
                summary.mismatches.push(mismatch);
            }
        }
    }
    summary.seconds = start.elapsed().as_secs_f64();
    Ok(summary)
}

/// Whether some castling right of `pos` is not the standard one (king on e1/e8, rook on the
/// a- or h-file), so that castling needs king-takes-rook notation.
fn castles_as_chess960(pos: &Position) -> bool {
    [Color::White, Color::Black].into_iter().any(|color| {
        CastleSide::BOTH.into_iter().any(|side| {
            pos.castling_rook(color, side).is_some_and(|rook| {
                let standard_rook = match side {
                    CastleSide::King => Square::H1,
                    CastleSide::Queen => Square::A1,
                };
                pos.king_square(color) != Square::E1.relative(color)
                    || rook != standard_rook.relative(color)
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn a_suite_is_read_line_by_line() {
        let text = format!(
            "# comment\n\n{START} ;D1 20 ;D2 400\n  bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9 ;D1 21\n"
        );
        let cases = parse(&text).unwrap();
        assert_eq!(cases.len(), 2);
        assert_eq!((cases[0].line, cases[0].fen.as_str()), (3, START));
        assert_eq!(cases[0].counts, vec![(1, 20), (2, 400)]);
        assert_eq!(cases[1].line, 4);
        assert_eq!(cases[1].counts, vec![(1, 21)]);
        assert!(!castles_as_chess960(&cases[0].position));
        assert!(castles_as_chess960(&cases[1].position));
    }

    #[test]
    fn malformed_lines_are_errors_with_their_line() {
        let bad_fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1 ;D1 20";
        assert!(matches!(parse(bad_fen), Err(SuiteError::Fen { line: 1, .. })));
        for (count, text) in [
            ("D1", "D1"),
            ("1 20", "1 20"),
            ("Dx 20", "Dx 20"),
            ("D1 twenty", "D1 twenty"),
            ("D1 -20", "D1 -20"),
            ("D1 20 30", "D1 20 30"),
            ("", ""),
        ] {
            let line = format!("{START} ;{count}");
            assert_eq!(
                parse(&format!("#\n{line}")).unwrap_err(),
                SuiteError::Count { line: 2, text: text.into() },
                "{line}"
            );
        }
        assert_eq!(
            parse(&format!("{START} ;D21 1")).unwrap_err(),
            SuiteError::Depth { line: 1, depth: 21 }
        );
        assert_eq!(parse(START).unwrap_err(), SuiteError::NoCounts { line: 1 });
        assert_eq!(parse("# nothing\n\n").unwrap_err(), SuiteError::Empty);
    }

    #[test]
    fn a_run_reports_each_mismatch_and_skips_what_is_over_the_cap() {
        let text = format!("{START} ;D1 20 ;D2 401 ;D3 8902 ;D4 197281\n");
        let cases = parse(&text).unwrap();
        let perft = Perft::new(2, 1).unwrap();
        let mut seen = Vec::new();
        let summary = run(&cases, &perft, 10_000, &mut |m| seen.push(m.clone()), &|_| {}).unwrap();
        assert_eq!((summary.positions, summary.checked, summary.skipped), (1, 3, 1));
        assert_eq!(summary.nodes, 20 + 400 + 8902);
        assert_eq!(seen, summary.mismatches);
        let [mismatch] = &summary.mismatches[..] else { panic!("{:?}", summary.mismatches) };
        assert_eq!((mismatch.depth, mismatch.expected, mismatch.got), (2, 401, 400));
        assert_eq!(
            mismatch.divide_command(),
            format!("zwischen perft 2 --fen \"{START}\" --divide")
        );
        assert!(mismatch.to_string().contains("line 1"));
    }
}
