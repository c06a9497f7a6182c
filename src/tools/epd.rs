//! Test-suite runner: searches each position of an EPD file and checks the move against its
//! `bm` (best move) or `am` (avoid move) operations.
//!
//! `zwischen epd FILE [--movetime MS | --depth D | --nodes N] [--threads T] [--hash MB]`
//! prints one line per position (pass/fail, and for a pass the depth and time from which the
//! engine chose a right move and kept it), then a summary. A progress bar goes to stderr
//! when stderr is a terminal.

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::chess::{Move, Position};
use crate::search::{
    self, Limits, PvInfo, Reporter, SearchJob, Shared, ThreadPool, TranspositionTable,
};

/// How long to search each position.
#[derive(Copy, Clone, Debug)]
pub enum Budget {
    MoveTime(i64),
    Depth(i32),
    Nodes(u64),
}

/// One test position.
#[derive(Debug)]
pub struct TestCase {
    pub id: String,
    pub position: Position,
    pub best: Vec<Move>,
    pub avoid: Vec<Move>,
}

/// Parses one EPD line: four FEN fields, then `opcode operands;` operations. Returns `None`
/// for blank and comment lines.
pub fn parse_line(line: &str, number: usize) -> Option<Result<TestCase, String>> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let fields: Vec<&str> = line.splitn(5, char::is_whitespace).collect();
    if fields.len() < 4 {
        return Some(Err(format!("line {number}: fewer than four FEN fields")));
    }
    let operations = fields.get(4).copied().unwrap_or("");
    let mut halfmove = "0".to_string();
    let mut fullmove = "1".to_string();
    let mut id = format!("line {number}");
    let mut best_text = Vec::new();
    let mut avoid_text = Vec::new();
    for operation in split_operations(operations) {
        let mut words = operation.split_whitespace();
        let Some(opcode) = words.next() else { continue };
        let operands: Vec<String> = words.map(|w| w.trim_matches('"').to_string()).collect();
        match opcode {
            "bm" => best_text.extend(operands),
            "am" => avoid_text.extend(operands),
            "id" => id = operation[2..].trim().trim_matches('"').to_string(),
            "hmvc" => halfmove = operands.first().cloned().unwrap_or(halfmove),
            "fmvn" => fullmove = operands.first().cloned().unwrap_or(fullmove),
            _ => {}
        }
    }
    let fen =
        format!("{} {} {} {} {halfmove} {fullmove}", fields[0], fields[1], fields[2], fields[3]);
    let position = match Position::from_fen(&fen) {
        Ok(position) => position,
        Err(error) => return Some(Err(format!("line {number} ({id}): {error}"))),
    };
    let parse_all = |texts: &[String]| -> Result<Vec<Move>, String> {
        texts
            .iter()
            .map(|t| position.parse_san(t).map_err(|e| format!("line {number} ({id}): {e}")))
            .collect()
    };
    let best = match parse_all(&best_text) {
        Ok(moves) => moves,
        Err(error) => return Some(Err(error)),
    };
    let avoid = match parse_all(&avoid_text) {
        Ok(moves) => moves,
        Err(error) => return Some(Err(error)),
    };
    if best.is_empty() && avoid.is_empty() {
        return Some(Err(format!("line {number} ({id}): no bm or am operation")));
    }
    Some(Ok(TestCase { id, position, best, avoid }))
}

/// Splits `op1 a b; op2 "x; y"; ...` at semicolons outside quotes.
fn split_operations(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut quoted = false;
    for (i, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ';' if !quoted => {
                parts.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !text[start..].trim().is_empty() {
        parts.push(text[start..].trim());
    }
    parts
}

impl TestCase {
    pub fn is_right(&self, mv: Move) -> bool {
        (self.best.is_empty() || self.best.contains(&mv)) && !self.avoid.contains(&mv)
    }
}

/// Remembers the best move of every iteration.
struct Recorder(Mutex<Vec<(i32, u64, Move)>>);

impl Reporter for Recorder {
    fn pv(&self, info: &PvInfo) {
        if let (Some(&mv), Ok(mut lines)) = (info.pv.first(), self.0.lock()) {
            lines.push((info.depth, info.time_ms, mv));
        }
    }
    fn best_move(&self, _best: Option<Move>, _ponder: Option<Move>) {}
    fn message(&self, _text: &str) {}
}

pub struct Summary {
    pub solved: usize,
    pub total: usize,
    pub seconds: f64,
}

/// Runs every case, writing a line per case to `out`.
pub fn run(
    cases: &[TestCase],
    budget: Budget,
    threads: usize,
    hash_mb: usize,
    out: &mut dyn Write,
) -> Summary {
    let tt = TranspositionTable::new(hash_mb)
        .or_else(|_| TranspositionTable::new(16))
        .map(Arc::new)
        .expect("a 16 MB hash table");
    let mut pool = ThreadPool::new(threads);
    let progress = std::io::stderr().is_terminal();
    let start = Instant::now();
    let mut solved = 0;
    for (i, case) in cases.iter().enumerate() {
        tt.clear();
        pool.clear();
        let limits = match budget {
            Budget::MoveTime(ms) => Limits { move_time: Some(ms), ..Limits::default() },
            Budget::Depth(depth) => Limits { depth: Some(depth), ..Limits::default() },
            Budget::Nodes(nodes) => Limits { nodes: Some(nodes), ..Limits::default() },
        };
        let job = SearchJob::new(case.position, limits);
        let recorder = Recorder(Mutex::new(Vec::new()));
        let result = search::run(&job, &tt, &Arc::new(Shared::new()), &mut pool, &recorder);
        let iterations = recorder.0.into_inner().unwrap_or_default();
        let chosen = result.best.unwrap_or(Move::NONE);
        let pass = case.is_right(chosen);
        // The first iteration from which every later one had a right move.
        let settled = iterations
            .iter()
            .rposition(|&(_, _, mv)| !case.is_right(mv))
            .map_or(0, |last_wrong| last_wrong + 1);
        let expected = describe(case);
        let line = if pass {
            solved += 1;
            let (depth, time_ms, _) =
                iterations.get(settled).copied().unwrap_or((result.depth, 0, chosen));
            format!(
                "{:>4}/{} pass  {:<20} {:<8} found at depth {depth}, {:.2} s   ({expected})",
                i + 1,
                cases.len(),
                case.id,
                case.position.to_san(chosen),
                time_ms as f64 / 1000.0
            )
        } else {
            let played =
                if chosen.is_none() { "(none)".to_string() } else { case.position.to_san(chosen) };
            format!("{:>4}/{} FAIL  {:<20} {played:<8} ({expected})", i + 1, cases.len(), case.id)
        };
        let _ = writeln!(out, "{line}");
        if progress {
            let done = (i + 1) * 30 / cases.len().max(1);
            eprint!(
                "\r[{}{}] {}/{} solved {solved}",
                "#".repeat(done),
                ".".repeat(30 - done),
                i + 1,
                cases.len()
            );
        }
    }
    if progress {
        eprintln!();
    }
    Summary { solved, total: cases.len(), seconds: start.elapsed().as_secs_f64() }
}

fn describe(case: &TestCase) -> String {
    let sans = |moves: &[Move]| {
        moves.iter().map(|&m| case.position.to_san(m)).collect::<Vec<_>>().join(" ")
    };
    match (case.best.is_empty(), case.avoid.is_empty()) {
        (false, true) => format!("bm {}", sans(&case.best)),
        (true, false) => format!("am {}", sans(&case.avoid)),
        _ => format!("bm {}; am {}", sans(&case.best), sans(&case.avoid)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_operations() {
        let line =
            r#"2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";"#;
        let case = parse_line(line, 1).unwrap().unwrap();
        assert_eq!(case.id, "WAC.001");
        assert_eq!(case.best.len(), 1);
        assert_eq!(case.position.to_san(case.best[0]), "Qg6");
        assert!(parse_line("# comment", 2).is_none());
        assert!(parse_line("8/8/8/8/8/8/8/8 w - - bm Qg6;", 3).unwrap().is_err());
        assert!(parse_line("4k3/8/8/8/8/8/8/4K3 w - - id \"x\";", 4).unwrap().is_err());
        let avoid =
            parse_line("4k3/8/8/8/8/8/8/4K2R w K - am O-O; id \"a;b\";", 5).unwrap().unwrap();
        assert_eq!(avoid.id, "a;b");
        assert!(avoid.is_right(avoid.position.parse_san("Kd1").unwrap()));
        assert!(!avoid.is_right(avoid.position.parse_san("O-O").unwrap()));
    }

    #[test]
    fn solves_an_easy_mate() {
        let case =
            parse_line("6k1/8/6K1/8/8/8/8/1R6 w - - bm Rb8#; id \"mate\";", 1).unwrap().unwrap();
        let mut out = Vec::new();
        let summary = run(&[case], Budget::Depth(4), 1, 1, &mut out);
        assert_eq!((summary.solved, summary.total), (1, 1));
        assert!(String::from_utf8(out).unwrap().contains("pass"));
    }
}
