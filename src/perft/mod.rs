//! Perft at scale: the count split over threads, a perft table shared by them, progress
//! reports, and suites of positions with published counts (`suite`).
//!
//! The work is split two plies below the root: every (root move, reply) pair is one item, and
//! the threads take items in order from a shared counter. Twenty root moves would share out
//! badly between threads; the few hundred items of most positions share out evenly.

mod count;
pub mod suite;
mod table;

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::chess::{Move, Position};

pub use count::castling_salt;
pub use table::{ENTRY_BYTES, PerftTable, TableAllocError};

/// The deepest perft accepted (counts are 64-bit: from the start position they overflow from
/// depth 14 on, far beyond any run that could finish).
pub const MAX_DEPTH: u32 = 20;

/// No progress report before a run has lasted this long...
const FIRST_REPORT: Duration = Duration::from_secs(3);
/// ...and then at most one this often.
const REPORT_INTERVAL: Duration = Duration::from_secs(2);

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PerftError {
    #[error("depth {0} is beyond the deepest perft supported ({MAX_DEPTH})")]
    Depth(u32),
    #[error("{0}")]
    Table(#[from] TableAllocError),
}

/// How far a running perft has got.
#[derive(Copy, Clone, Debug)]
pub struct Progress {
    pub root_moves_done: usize,
    pub root_moves: usize,
    /// Items: (root move, reply) subtrees.
    pub items_done: usize,
    pub items: usize,
    pub elapsed: Duration,
}

/// A perft counter: the thread count and the table (if any), kept across runs.
pub struct Perft {
    threads: usize,
    table: Option<PerftTable>,
}

impl Perft {
    /// `threads` (at least one) and a table of `hash_mb` MiB, none for 0.
    pub fn new(threads: usize, hash_mb: usize) -> Result<Perft, PerftError> {
        let table = if hash_mb == 0 { None } else { Some(PerftTable::new(hash_mb)?) };
        Ok(Perft { threads: threads.max(1), table })
    }

    /// The leaf count of `pos` to `depth`.
    pub fn count(
        &self,
        pos: &Position,
        depth: u32,
        progress: &(dyn Fn(&Progress) + Sync),
    ) -> Result<u64, PerftError> {
        if depth == 0 {
            return Ok(1);
        }
        Ok(self.divide(pos, depth, progress)?.iter().map(|&(_, nodes)| nodes).sum())
    }

    /// The leaf count below each root move, in generation order (nothing at depth 0).
    pub fn divide(
        &self,
        pos: &Position,
        depth: u32,
        progress: &(dyn Fn(&Progress) + Sync),
    ) -> Result<Vec<(Move, u64)>, PerftError> {
        if depth > MAX_DEPTH {
            return Err(PerftError::Depth(depth));
        }
        if depth == 0 {
            return Ok(Vec::new());
        }
        let start = Instant::now();
        let table = self.table.as_ref();
        let salt = castling_salt(pos);
        let roots: Vec<Move> = pos.legal_moves().iter().copied().collect();
        if depth <= 2 {
            // Too small to share out.
            return Ok(roots
                .iter()
                .map(|&mv| {
                    let mut child = *pos;
                    child.make_move(mv);
                    (mv, count::count(&child, depth - 1, table, salt))
                })
                .collect());
        }

        // The items: each root move's replies, root move by root move.
        let mut items = Vec::new();
        for (root, &mv) in roots.iter().enumerate() {
            let mut child = *pos;
            child.make_move(mv);
            for &reply in child.legal_moves().iter() {
                let mut grandchild = child;
                grandchild.make_move(reply);
                items.push((root, grandchild));
            }
        }
        let counts: Vec<AtomicU64> = roots.iter().map(|_| AtomicU64::new(0)).collect();
        // Items left per root move; a root move with no reply is done from the start.
        let left: Vec<AtomicUsize> = roots.iter().map(|_| AtomicUsize::new(0)).collect();
        for &(root, _) in &items {
            left[root].fetch_add(1, Ordering::Relaxed);
        }
        let roots_done =
            AtomicUsize::new(left.iter().filter(|n| n.load(Ordering::Relaxed) == 0).count());
        let next = AtomicUsize::new(0);
        let items_done = AtomicUsize::new(0);
        let reporter = Reporter::new(start);

        let work = || {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((root, grandchild)) = items.get(i) else { break };
                let nodes = count::count(grandchild, depth - 2, table, salt);
                counts[*root].fetch_add(nodes, Ordering::Relaxed);
                if left[*root].fetch_sub(1, Ordering::Relaxed) == 1 {
                    roots_done.fetch_add(1, Ordering::Relaxed);
                }
                let done = items_done.fetch_add(1, Ordering::Relaxed) + 1;
                reporter.maybe_report(|elapsed| {
                    progress(&Progress {
                        root_moves_done: roots_done.load(Ordering::Relaxed),
                        root_moves: roots.len(),
                        items_done: done,
                        items: items.len(),
                        elapsed,
                    })
                });
            }
        };
        std::thread::scope(|scope| {
            // This thread works too: `threads` in all. A thread the system refuses leaves its
            // share to the others.
            for _ in 1..self.threads {
                if std::thread::Builder::new().spawn_scoped(scope, work).is_err() {
                    break;
                }
            }
            work();
        });
        Ok(roots.into_iter().zip(counts).map(|(mv, nodes)| (mv, nodes.into_inner())).collect())
    }
}

/// Calls for a progress report once the run has lasted `FIRST_REPORT`, then at most every
/// `REPORT_INTERVAL`, from whichever thread gets there first.
pub(crate) struct Reporter {
    start: Instant,
    /// Milliseconds since `start` of the last report (or of when reports may begin, less an
    /// interval).
    last_ms: AtomicU64,
}

impl Reporter {
    pub(crate) fn new(start: Instant) -> Reporter {
        let first = (FIRST_REPORT - REPORT_INTERVAL).as_millis() as u64;
        Reporter { start, last_ms: AtomicU64::new(first) }
    }

    pub(crate) fn maybe_report(&self, report: impl FnOnce(Duration)) {
        let elapsed = self.start.elapsed();
        let now_ms = elapsed.as_millis() as u64;
        let last = self.last_ms.load(Ordering::Relaxed);
        if now_ms >= last + REPORT_INTERVAL.as_millis() as u64
            && self
                .last_ms
                .compare_exchange(last, now_ms, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            report(elapsed);
        }
    }
}

/// A progress callback that reports nothing.
pub fn no_progress(_: &Progress) {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::{self, START_FEN};

    const POSITIONS: &[(&str, u32)] = &[
        (START_FEN, 4),
        ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5),
        ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 3),
        // En passant capturable at the root.
        ("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", 3),
        // Chess960 with Shredder-FEN and X-FEN rights.
        ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", 3),
        ("1r2k1r1/8/8/8/8/8/8/1R2K1R1 w KQkq - 0 1", 3),
        // Checkmated and stalemated roots: no moves at all.
        ("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", 3),
        ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 3),
    ];

    #[test]
    fn every_thread_and_table_setting_gives_the_plain_counts() {
        for (threads, hash_mb) in [(1, 0), (2, 0), (3, 1), (1, 1), (4, 2)] {
            let perft = Perft::new(threads, hash_mb).unwrap();
            for &(fen, depth) in POSITIONS {
                let pos = Position::from_fen(fen).unwrap();
                let expected = chess::divide(&pos, depth);
                let got = perft.divide(&pos, depth, &no_progress).unwrap();
                assert_eq!(got, expected, "{fen}, {threads} threads, {hash_mb} MiB");
                for d in 0..=depth {
                    assert_eq!(
                        perft.count(&pos, d, &no_progress).unwrap(),
                        chess::perft(&pos, d),
                        "{fen} depth {d}, {threads} threads, {hash_mb} MiB"
                    );
                }
            }
        }
    }

    #[test]
    fn too_deep_is_an_error() {
        let perft = Perft::new(1, 0).unwrap();
        let pos = Position::startpos();
        assert_eq!(perft.count(&pos, MAX_DEPTH + 1, &no_progress), Err(PerftError::Depth(21)));
    }

    #[test]
    fn progress_is_reported_late_and_seldom() {
        let start = Instant::now() - Duration::from_secs(10);
        let reporter = Reporter::new(start);
        let reports = std::cell::Cell::new(0);
        for _ in 0..5 {
            reporter.maybe_report(|_| reports.set(reports.get() + 1));
        }
        assert_eq!(reports.get(), 1, "one report, not one per item");
        let fresh = Reporter::new(Instant::now());
        fresh.maybe_report(|_| panic!("no report in the first seconds"));
    }
}
