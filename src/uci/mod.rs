//! The UCI protocol loop.

use std::io::{self, BufRead, Write};

use crate::chess::{self, Position};

pub fn run() {
    let stdin = io::stdin();
    let mut pos = Position::startpos();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let mut words = line.split_whitespace();
        match words.next() {
            Some("uci") => {
                println!("id name Zwischen {}", env!("CARGO_PKG_VERSION"));
                println!("uciok");
            }
            Some("isready") => println!("readyok"),
            Some("position") => {
                let rest: Vec<&str> = words.collect();
                match parse_position(&rest) {
                    Ok(p) => pos = p,
                    Err(e) => println!("info string error: {e}"),
                }
            }
            Some("go") if words.next() == Some("perft") => {
                let depth: u32 = words.next().and_then(|d| d.parse().ok()).unwrap_or(1);
                let split = chess::divide(&pos, depth);
                for (mv, n) in &split {
                    println!("{}: {n}", mv.to_uci(false));
                }
                println!();
                println!("Nodes searched: {}", split.iter().map(|x| x.1).sum::<u64>());
            }
            Some("quit") => break,
            _ => {}
        }
        let _ = io::stdout().flush();
    }
}

fn parse_position(words: &[&str]) -> Result<Position, String> {
    let moves_at = words
        .iter()
        .position(|w| *w == "moves")
        .unwrap_or(words.len());
    let mut pos = match words.first() {
        Some(&"startpos") => Position::startpos(),
        Some(&"fen") => {
            Position::from_fen(&words[1..moves_at].join(" ")).map_err(|e| e.to_string())?
        }
        _ => return Err("expected startpos or fen".into()),
    };
    for text in words.iter().skip(moves_at + 1) {
        let mv = pos.parse_uci_move(text, false).map_err(|e| e.to_string())?;
        pos.make_move(mv);
    }
    Ok(pos)
}
