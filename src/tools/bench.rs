//! The bench: a fixed search of a fixed set of positions, for a deterministic node count
//! (the "signature" of the search, as OpenBench uses it) and a speed figure.

use std::time::Instant;

use crate::chess::Position;
use crate::search::{
    self, Limits, SearchJob, Shared, Silent, TablebaseUse, ThreadPool, TranspositionTable,
};

pub const DEFAULT_DEPTH: i32 = 13;

/// Openings, middlegames, endgames and a few Chess960 positions.
pub const POSITIONS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "rnbqk1nr/ppp1ppb1/6p1/3p3p/8/2NP1NP1/PPP1PP1P/R1BQKB1R w KQkq - 0 5",
    "rnbqkb1r/1p1ppppp/p4n2/2pP4/2P5/4P3/PP3PPP/RNBQKBNR b KQkq - 0 4",
    "rnbqkbnr/pp3ppp/4p3/3p4/2Pp4/5NP1/PP2PP1P/RNBQKB1R w KQkq - 0 5",
    "rnbqkb1r/ppp1pppp/5n2/8/4p3/2NB4/PPPP1PPP/R1BQK1NR w KQkq - 0 4",
    "rnbqkb1r/p2ppppp/5n2/1ppP2B1/8/5N2/PPP1PPPP/RN1QKB1R b KQkq - 0 4",
    "r1bqkbnr/ppp2ppp/2n1p3/1B1p4/3PP3/7N/PPP2PPP/RNBQK2R b KQkq - 0 4",
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2NB1N2/PPPP1PPP/R1BQK2R b KQkq - 0 4",
    "rnbqkbnr/p1p1pppp/8/3p4/1pPP4/4P2N/PP3PPP/RNBQKB1R b KQkq c3 0 4",
    "rn1qkb1r/pp2pppp/5n2/2pp1b2/8/PP3N2/1BPPPPPP/RN1QKB1R w KQkq - 0 5",
    "rnb1kbnr/ppq1pppp/2p5/3p4/3P4/2NQ1N2/PPP1PPPP/R1B1KB1R b KQkq - 0 4",
    "rn1qkbnr/pb1ppppp/1p6/2p5/2P1P3/5N2/PP1P1PPP/RNBQKB1R w KQkq - 0 4",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 2 8",
    "2rq1rk1/pb1nbppp/1p2pn2/2pp4/3P4/1P1BPN2/PB1N1PPP/R2Q1RK1 w - - 4 11",
    "r2q1rk1/1b2bppp/p2ppn2/1p6/3NP3/1BN1B3/PPP2PPP/R2Q1RK1 w - - 0 11",
    "r1b2rk1/2q1bppp/p2ppn2/1p6/3BPP2/2NB4/PPP1Q1PP/R4R1K w - - 3 14",
    "2r2rk1/pp1bqpp1/2nppn1p/8/2PNP3/2N1B1P1/PP3PBP/R2Q1RK1 w - - 0 14",
    "r3r1k1/pp3pbp/1qp3p1/2B5/2BP2b1/Q1n2N2/P4PPP/3R1K1R b - - 0 17",
    "1r3rk1/2q2ppp/p1b1pn2/1p2N3/3P4/P1N1Q3/1P3PPP/2RR2K1 w - - 1 20",
    "3r1rk1/p4ppp/1pq1p3/2p1Pn2/2P2Q2/1P3N2/P4PPP/3RR1K1 w - - 0 22",
    "6k1/5p2/6p1/8/7p/8/6PP/6K1 b - - 0 1",
    "8/8/1p2k3/p1p2p2/P1P2P2/1P1K4/8/8 w - - 0 40",
    "8/3k4/8/8/3PK3/8/8/8 w - - 0 1",
    "8/8/8/4k3/8/8/2R5/4K3 w - - 0 1",
    "8/5pk1/6p1/8/5P2/6P1/r4K2/1R6 w - - 0 45",
    "2k5/8/1p6/p1p1r3/P1P5/1P2R3/6K1/8 b - - 10 50",
    "8/6pk/8/4Q3/8/6P1/5q1P/6K1 w - - 3 60",
    "4r1k1/5ppp/8/8/8/8/5PPP/2B2RK1 w - - 0 30",
    "8/p4pk1/1p4p1/3N4/1P6/P4nPP/5P2/6K1 w - - 0 35",
    "3b4/8/8/2k5/8/2K1N3/8/8 w - - 0 70",
    "8/8/8/8/4kp2/8/4K1P1/8 w - - 0 1",
    "4k3/8/8/8/8/8/3PPP2/4K3 w - - 0 1",
    "6k1/pp3ppp/8/8/8/8/PP3PPP/6K1 w - - 0 1",
    "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "rnbqkb1r/pp1p1ppp/4pn2/2p5/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 0 4",
    "r1bqkbnr/pp1ppppp/2n5/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "rnbqkb1r/ppp2ppp/4pn2/3p4/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 2 4",
    "r2qkb1r/pp3ppp/2n1pn2/2pp1b2/3P4/2PBPN2/PP1N1PPP/R1BQK2R w KQkq - 0 7",
    "8/8/3k4/8/8/8/5Q2/4K3 w - - 0 1",
    "5k2/8/4K3/4P3/8/8/8/8 w - - 0 1",
    // Chess960 (Shredder-FEN castling).
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9",
    "qrkbbnrn/pppppppp/8/8/8/8/PPPPPPPP/QRKBBNRN w GBgb - 0 1",
    "rkrnbbqn/pppppppp/8/8/8/8/PPPPPPPP/RKRNBBQN w CAca - 0 1",
];

/// Searches every bench position to `depth` from a fresh state on one thread with a 16 MB
/// hash, and returns (nodes, nodes per second).
pub fn run(depth: i32) -> (u64, u64) {
    let result = run_with_tables(depth, None, false);
    (result.nodes, result.nps)
}

/// The result of a bench run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BenchResult {
    pub nodes: u64,
    pub nps: u64,
    /// Successful table probes.
    pub tbhits: u64,
    /// Hash table probes, and those that found the position.
    pub hash_probes: u64,
    pub hash_hits: u64,
}

/// Bench positions with at least this many pieces: no search to the bench depth gets from
/// them to a table position (`--middlegame`: what loaded tables cost a search never helped
/// by them).
pub const MIDDLEGAME_PIECES: u32 = 12;

/// Like [`run`], with endgame tables (the bench's endgame positions use them), or on the
/// `middlegame_only` positions.
pub fn run_with_tables(
    depth: i32,
    tablebases: Option<TablebaseUse>,
    middlegame_only: bool,
) -> BenchResult {
    let tt = match TranspositionTable::new(16) {
        Ok(tt) => std::sync::Arc::new(tt),
        Err(_) => return BenchResult { nodes: 0, nps: 0, tbhits: 0, hash_probes: 0, hash_hits: 0 },
    };
    let mut pool = ThreadPool::new(1);
    let (mut nodes, mut tbhits, mut hash_probes, mut hash_hits) = (0, 0, 0, 0);
    let start = Instant::now();
    for fen in POSITIONS {
        let Ok(root) = Position::from_fen(fen) else {
            continue;
        };
        if middlegame_only && root.occupied().count() < MIDDLEGAME_PIECES {
            continue;
        }
        let job = SearchJob {
            tablebases: tablebases.clone(),
            ..SearchJob::new(root, Limits { depth: Some(depth), ..Limits::default() })
        };
        let shared = std::sync::Arc::new(Shared::new());
        nodes += search::run(&job, &tt, &shared, &mut pool, &Silent).nodes;
        tbhits += shared.tb_hits.load(std::sync::atomic::Ordering::Relaxed);
        let (probes, hits) = pool.main_worker().hash_hits();
        (hash_probes, hash_hits) = (hash_probes + probes, hash_hits + hits);
    }
    let seconds = start.elapsed().as_secs_f64().max(1e-6);
    BenchResult { nodes, nps: (nodes as f64 / seconds) as u64, tbhits, hash_probes, hash_hits }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_bench_position_is_valid() {
        for fen in super::POSITIONS {
            assert!(crate::chess::Position::from_fen(fen).is_ok(), "{fen}");
        }
        assert!(super::POSITIONS.len() >= 40);
    }
}
