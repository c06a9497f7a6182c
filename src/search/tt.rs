//! The transposition table: a fixed-size hash of search results shared by all search threads.
//!
//! Buckets of four 16-byte entries fill one cache line. Each entry is two atomic words: the
//! packed data and the key xor-ed with that data, so an entry torn by two threads writing at
//! once fails its key check instead of returning mixed data (lockless hashing).

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use super::{MATE, MATE_BOUND, TB_BOUND, TB_WIN};
use crate::chess::Move;

/// Marks "no static evaluation stored" (the node was in check).
pub const NO_EVAL: i32 = i16::MIN as i32;

/// Mate and table scores count from the root in search but from the node in the table.
pub fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= TB_BOUND {
        score + ply as i32
    } else if score <= -TB_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// A stored score seen from `ply`. A mate or table result stored from another path may lie
/// beyond the 50-move rule from here (`halfmove_clock` plies already played): such a score
/// becomes the edge of the table band, still a sure win or loss to the search's bounds but no
/// longer a claimed mate distance (as in Stockfish).
pub fn score_from_tt(score: i32, ply: usize, halfmove_clock: u16) -> i32 {
    let left = 100 - i32::from(halfmove_clock);
    if score >= TB_BOUND {
        let distance = if score >= MATE_BOUND { MATE - score } else { TB_WIN - score };
        if distance > left { TB_BOUND - 1 } else { score - ply as i32 }
    } else if score <= -TB_BOUND {
        let distance = if score <= -MATE_BOUND { MATE + score } else { TB_WIN + score };
        if distance > left { -TB_BOUND + 1 } else { score + ply as i32 }
    } else {
        score
    }
}

/// `eval` moved to a stored score where its bound says the true score lies beyond `eval` (a
/// lower bound above it or an upper bound below it); scores of magnitude `limit` or more are
/// left out. The main search passes `TB_BOUND`: its evaluation feeds pruning margins and the
/// null-move reduction, which a table or mate bound would turn into nonsense. Quiescence
/// passes `MATE_BOUND`: its stand pat is only compared with the window, where a table win
/// is as good a bound as any.
pub fn sharpen_eval(eval: i32, stored: Option<(Bound, i32)>, limit: i32) -> i32 {
    match stored {
        Some((Bound::Lower, score)) if score.abs() < limit && score > eval => score,
        Some((Bound::Upper, score)) if score.abs() < limit && score < eval => score,
        _ => eval,
    }
}

/// How a stored score relates to the true value.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Bound {
    /// The score is at most this (every move failed low).
    Upper = 1,
    /// The score is at least this (a move failed high).
    Lower = 2,
    Exact = 3,
}

impl Bound {
    /// Whether a `score` with this bound settles the question "is the score inside
    /// (alpha, beta)?".
    pub fn allows_cutoff(self, score: i32, alpha: i32, beta: i32) -> bool {
        match self {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
        }
    }
}

#[derive(Copy, Clone, Debug)]
pub struct TtEntry {
    pub mv: Move,
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
    /// Whether the node was searched as part of a principal variation.
    pub was_pv: bool,
}

#[derive(Default)]
struct Slot {
    key_xor_data: AtomicU64,
    data: AtomicU64,
}

#[repr(align(64))]
#[derive(Default)]
struct Bucket {
    slots: [Slot; 4],
}

const BUCKET_BYTES: usize = std::mem::size_of::<Bucket>();
const _: () = assert!(BUCKET_BYTES == 64);

// Data layout: move (16) | score (16) | eval (16) | depth (8) | generation (5) pv (1) bound (2).
fn pack(
    mv: Move,
    score: i32,
    eval: i32,
    depth: i32,
    bound: Bound,
    was_pv: bool,
    generation: u8,
) -> u64 {
    (mv.raw() as u64)
        | ((score as i16 as u16 as u64) << 16)
        | ((eval as i16 as u16 as u64) << 32)
        | (((depth.clamp(-1, 254) + 1) as u64) << 48)
        | ((generation as u64 & 31) << 59)
        | ((was_pv as u64) << 58)
        | ((bound as u64) << 56)
}

fn unpack(data: u64) -> Option<TtEntry> {
    let bound = match (data >> 56) & 3 {
        1 => Bound::Upper,
        2 => Bound::Lower,
        3 => Bound::Exact,
        _ => return None,
    };
    Some(TtEntry {
        mv: Move::from_raw(data as u16),
        score: (data >> 16) as u16 as i16 as i32,
        eval: (data >> 32) as u16 as i16 as i32,
        depth: ((data >> 48) & 0xff) as i32 - 1,
        bound,
        was_pv: (data >> 58) & 1 != 0,
    })
}

fn generation_of(data: u64) -> u8 {
    ((data >> 59) & 31) as u8
}

fn depth_of(data: u64) -> i32 {
    ((data >> 48) & 0xff) as i32 - 1
}

pub struct TranspositionTable {
    /// The memory block: the buckets plus up to one cache line before them.
    allocation: NonNull<u8>,
    /// The first bucket, on a cache-line boundary inside `allocation`.
    buckets: NonNull<Bucket>,
    len: usize,
    generation: AtomicU8,
}

// SAFETY: the buckets are only accessed through atomics.
unsafe impl Send for TranspositionTable {}
unsafe impl Sync for TranspositionTable {}

#[derive(Debug, thiserror::Error)]
#[error("cannot allocate a {0} MB hash table")]
pub struct AllocError(pub usize);

/// The block holding `len` buckets. Its alignment is only that of an atomic word: with the
/// system allocator, `alloc_zeroed` of a small alignment is `calloc`, which hands out fresh zero
/// pages without writing them, whereas a cache-line alignment makes it write every byte. That
/// write took most of the engine's start-up time and made the whole table resident at once.
/// The spare cache line lets the buckets start on a line boundary inside the block.
fn block_layout(len: usize) -> Option<Layout> {
    let bytes = len.checked_mul(BUCKET_BYTES)?.checked_add(BUCKET_BYTES)?;
    Layout::from_size_align(bytes, std::mem::align_of::<AtomicU64>()).ok()
}

/// Asks Linux to back the table with 2 MiB pages where they fit whole inside the block (the
/// kernel's "madvise" mode for transparent huge pages, a common default, uses them only when
/// asked). A probe lands on a random bucket, and with 4 KiB pages nearly every probe of a
/// large table also misses the address-translation cache. Only a hint: where it is refused or
/// not supported the table works the same on small pages.
#[cfg(target_os = "linux")]
fn advise_huge_pages(block: *mut u8, bytes: usize) {
    const HUGE_PAGE: usize = 2 << 20;
    const MADV_HUGEPAGE: i32 = 14;
    unsafe extern "C" {
        fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
    }
    let start = (block as usize).next_multiple_of(HUGE_PAGE);
    let end = (block as usize + bytes) / HUGE_PAGE * HUGE_PAGE;
    if end > start {
        // SAFETY: the range lies inside the block this table owns; madvise changes no
        // contents, and its result is ignored because the advice is optional.
        unsafe { madvise(start as *mut std::ffi::c_void, end - start, MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_block: *mut u8, _bytes: usize) {}

impl TranspositionTable {
    /// A table of exactly `megabytes` MiB (at least one bucket). Pages become resident as
    /// the search (or `clear`) first touches them.
    pub fn new(megabytes: usize) -> Result<TranspositionTable, AllocError> {
        let len = (megabytes.saturating_mul(1 << 20) / BUCKET_BYTES).max(1);
        let layout = block_layout(len).ok_or(AllocError(megabytes))?;
        // SAFETY: the layout is non-zero in size.
        let allocation =
            NonNull::new(unsafe { alloc_zeroed(layout) }).ok_or(AllocError(megabytes))?;
        let offset = allocation.as_ptr().align_offset(BUCKET_BYTES);
        assert!(offset < BUCKET_BYTES);
        // SAFETY: `offset` < one bucket, and the block has one bucket to spare; all-zero bytes
        // are valid atomics, i.e. empty slots.
        let buckets = unsafe { NonNull::new_unchecked(allocation.as_ptr().add(offset).cast()) };
        advise_huge_pages(allocation.as_ptr(), layout.size());
        Ok(TranspositionTable { allocation, buckets, len, generation: AtomicU8::new(0) })
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.len * BUCKET_BYTES
    }

    fn buckets(&self) -> &[Bucket] {
        // SAFETY: `buckets` points to `len` initialised buckets owned by `self`.
        unsafe { std::slice::from_raw_parts(self.buckets.as_ptr(), self.len) }
    }

    #[inline(always)]
    fn bucket(&self, key: u64) -> &Bucket {
        // Map the key onto 0..len by a multiply-high, which needs no power-of-two size.
        let index = ((key as u128 * self.len as u128) >> 64) as usize;
        &self.buckets()[index]
    }

    /// Empties the table. Not to be called while a search runs.
    pub fn clear(&self) {
        for bucket in self.buckets() {
            for slot in &bucket.slots {
                slot.data.store(0, Ordering::Relaxed);
                slot.key_xor_data.store(0, Ordering::Relaxed);
            }
        }
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Starts a new search: older entries become preferred victims.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    fn current_generation(&self) -> u8 {
        self.generation.load(Ordering::Relaxed) & 31
    }

    /// Brings the bucket of `key` into the cache ahead of a probe.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let bucket = self.bucket(key) as *const Bucket as *const i8;
            // SAFETY: prefetching is only a hint and never faults.
            unsafe { std::arch::x86_64::_mm_prefetch(bucket, std::arch::x86_64::_MM_HINT_T0) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        for slot in &self.bucket(key).slots {
            let data = slot.data.load(Ordering::Relaxed);
            if slot.key_xor_data.load(Ordering::Relaxed) ^ data == key {
                return unpack(data);
            }
        }
        None
    }

    /// Stores a result. Replaces the same position's entry unless that one is deeper and from
    /// this search, else the least valuable slot (shallow and old).
    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &self,
        key: u64,
        mv: Move,
        score: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
        was_pv: bool,
    ) {
        let generation = self.current_generation();
        let bucket = self.bucket(key);
        let mut victim = &bucket.slots[0];
        let mut victim_worth = i32::MAX;
        for slot in &bucket.slots {
            let data = slot.data.load(Ordering::Relaxed);
            if slot.key_xor_data.load(Ordering::Relaxed) ^ data == key {
                let old = unpack(data);
                // Keep a deeper exact-enough entry of the current search, but not its move only.
                if let Some(old) = old
                    && bound != Bound::Exact
                    && depth + 3 < old.depth
                    && generation_of(data) == generation
                {
                    return;
                }
                let mv = if mv.is_none() { old.map_or(mv, |o| o.mv) } else { mv };
                let data = pack(mv, score, eval, depth, bound, was_pv, generation);
                slot.data.store(data, Ordering::Relaxed);
                slot.key_xor_data.store(key ^ data, Ordering::Relaxed);
                return;
            }
            let age = (generation.wrapping_sub(generation_of(data)) & 31) as i32;
            let worth = if data == 0 { i32::MIN } else { depth_of(data) - 8 * age };
            if worth < victim_worth {
                victim_worth = worth;
                victim = slot;
            }
        }
        let data = pack(mv, score, eval, depth, bound, was_pv, generation);
        victim.data.store(data, Ordering::Relaxed);
        victim.key_xor_data.store(key ^ data, Ordering::Relaxed);
    }

    /// Per mille of the first thousand slots holding entries of the current search.
    pub fn hashfull(&self) -> u32 {
        let generation = self.current_generation();
        let mut used = 0;
        let mut seen = 0;
        'outer: for bucket in self.buckets() {
            for slot in &bucket.slots {
                let data = slot.data.load(Ordering::Relaxed);
                if data != 0 && generation_of(data) == generation {
                    used += 1;
                }
                seen += 1;
                if seen == 1000 {
                    break 'outer;
                }
            }
        }
        used * 1000 / seen.max(1)
    }
}

impl Drop for TranspositionTable {
    fn drop(&mut self) {
        if let Some(layout) = block_layout(self.len) {
            // SAFETY: allocated in `new` with this layout.
            unsafe { dealloc(self.allocation.as_ptr(), layout) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::{MoveKind, Square};

    #[test]
    fn stores_and_finds() {
        let tt = TranspositionTable::new(1).unwrap();
        assert_eq!(tt.bytes(), 1 << 20);
        let mv = Move::new(Square::E2, Square::E4, MoveKind::Normal);
        tt.store(0xdead_beef_1234_5678, mv, -31990, 25, 7, Bound::Lower, true);
        let e = tt.probe(0xdead_beef_1234_5678).unwrap();
        assert_eq!(
            (e.mv, e.score, e.eval, e.depth, e.bound, e.was_pv),
            (mv, -31990, 25, 7, Bound::Lower, true)
        );
        assert!(tt.probe(0x1234).is_none());
        tt.clear();
        assert!(tt.probe(0xdead_beef_1234_5678).is_none());
    }

    #[test]
    fn mates_and_table_results_beyond_the_fifty_move_rule_are_downgraded() {
        // Mate in 11 plies from the stored node, seen 3 plies from the root.
        let mate = MATE - 11;
        assert_eq!(score_from_tt(mate, 3, 0), mate - 3);
        assert_eq!(score_from_tt(mate, 3, 89), mate - 3);
        assert_eq!(score_from_tt(mate, 3, 90), TB_BOUND - 1);
        assert_eq!(score_from_tt(-mate, 3, 90), -TB_BOUND + 1);
        assert_eq!(score_from_tt(-mate, 3, 20), -mate + 3);
        // A table win 30 plies away.
        let win = TB_WIN - 30;
        assert_eq!(score_from_tt(win, 2, 70), win - 2);
        assert_eq!(score_from_tt(win, 2, 71), TB_BOUND - 1);
        assert_eq!(score_from_tt(-win, 2, 71), -TB_BOUND + 1);
        // Evaluations are as stored.
        assert_eq!(score_from_tt(250, 7, 99), 250);
        assert_eq!(score_to_tt(score_from_tt(mate, 3, 0), 3), mate);
    }

    #[test]
    fn buckets_start_on_a_cache_line_and_fill_the_size_exactly() {
        for megabytes in [1, 3, 16] {
            let tt = TranspositionTable::new(megabytes).unwrap();
            assert_eq!(tt.buckets.as_ptr() as usize % 64, 0);
            assert_eq!(tt.bytes(), megabytes << 20);
            // The last bucket lies inside the block and is usable.
            let last = &tt.buckets()[tt.len - 1];
            last.slots[3].data.store(1, Ordering::Relaxed);
            assert_eq!(last.slots[3].data.load(Ordering::Relaxed), 1);
        }
    }

    #[test]
    fn hashfull_counts_current_entries() {
        let tt = TranspositionTable::new(1).unwrap();
        assert_eq!(tt.hashfull(), 0);
        for key in 0..200_000u64 {
            let key = key.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            tt.store(key, Move::NONE, 0, 0, 1, Bound::Exact, false);
        }
        assert!(tt.hashfull() > 900);
        tt.new_search();
        assert_eq!(tt.hashfull(), 0);
    }
}
