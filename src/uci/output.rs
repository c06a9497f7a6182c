//! Everything the engine writes to the GUI. Each line is written under stdout's lock and
//! stdout flushes at each newline, so lines from the search thread and the loop never mix.

use std::io::Write;

use crate::chess::{Color, Move, Position, Square};
use crate::search::{Bound, PvInfo, Reporter, ScoreReport};

pub fn line(text: &str) {
    if writeln!(std::io::stdout().lock(), "{text}").is_err() {
        // The GUI has closed our output (a broken pipe): nobody is left to answer, so end
        // quietly, as a C engine does on SIGPIPE, instead of panicking in whichever thread
        // wrote.
        std::process::exit(0);
    }
}

pub fn error(problem: &str) {
    line(&format!("info string error: {problem}"));
}

/// The search output in UCI form.
pub struct UciReporter {
    pub chess960: bool,
    pub show_wdl: bool,
}

impl UciReporter {
    pub fn print_best_move(&self, best: Option<Move>, ponder: Option<Move>) {
        match (best, ponder) {
            (None, _) => line("bestmove (none)"),
            (Some(best), None) => line(&format!("bestmove {}", best.to_uci(self.chess960))),
            (Some(best), Some(ponder)) => line(&format!(
                "bestmove {} ponder {}",
                best.to_uci(self.chess960),
                ponder.to_uci(self.chess960)
            )),
        }
    }
}

impl Reporter for UciReporter {
    fn pv(&self, info: &PvInfo) {
        let score = match ScoreReport::from_score(info.score) {
            ScoreReport::Centipawns(cp) => format!("cp {cp}"),
            ScoreReport::Mate(moves) => format!("mate {moves}"),
        };
        let wdl = if self.show_wdl {
            let (w, d, l) = crate::search::wdl::wdl(info.score);
            format!(" wdl {w} {d} {l}")
        } else {
            String::new()
        };
        let bound = match info.bound {
            Some(Bound::Lower) => " lowerbound",
            Some(Bound::Upper) => " upperbound",
            _ => "",
        };
        let nps = info.nodes * 1000 / info.time_ms.max(1);
        let pv: Vec<String> = info.pv.iter().map(|m| m.to_uci(self.chess960)).collect();
        line(&format!(
            "info depth {} seldepth {} multipv {} score {score}{bound}{wdl} nodes {} nps {nps} hashfull {} tbhits {} time {} pv {}",
            info.depth,
            info.seldepth,
            info.multipv,
            info.nodes,
            info.hashfull,
            info.tbhits,
            info.time_ms,
            pv.join(" ")
        ));
    }

    fn best_move(&self, best: Option<Move>, ponder: Option<Move>) {
        self.print_best_move(best, ponder);
    }

    fn message(&self, text: &str) {
        line(&format!("info string {text}"));
    }
}

/// The `d` command: a board diagram, FEN, key and checkers.
pub fn board(pos: &Position) {
    let separator = " +---+---+---+---+---+---+---+---+";
    line(separator);
    for rank in (0..8).rev() {
        let mut row = String::from(" |");
        for file in 0..8 {
            let square = Square::from_file_rank(file, rank);
            let symbol = pos.piece_on(square).map_or(' ', |p| p.letter());
            row.push_str(&format!(" {symbol} |"));
        }
        row.push_str(&format!(" {}", rank + 1));
        line(&row);
        line(separator);
    }
    line("   a   b   c   d   e   f   g   h");
    line("");
    line(&format!("Fen: {}", pos.to_fen()));
    line(&format!("Key: {:016X}", pos.key()));
    let checkers: Vec<String> = pos.checkers().map(|s| s.to_string()).collect();
    line(&format!("Checkers: {}", checkers.join(" ")));
    let side = if pos.side_to_move() == Color::White { "white" } else { "black" };
    line(&format!("Side to move: {side}"));
}
