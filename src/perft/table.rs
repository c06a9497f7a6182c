//! The perft table: node counts of subtrees already counted, shared by all perft threads.
//!
//! One 16-byte entry a slot, indexed by the position's key. An entry holds the full 64-bit key,
//! the depth and the count, so a wrong hit needs two positions whose 64-bit keys are equal.
//! Each entry is two atomic words, the data (count and depth) and the key xor-ed with that
//! data: an entry torn by two threads writing at once fails its key check and reads as a miss
//! (lockless hashing), so Relaxed ordering is enough.

use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes per entry.
pub const ENTRY_BYTES: usize = 16;

/// Counts from 2^56 up are not stored (the top 8 bits of the data word hold the depth).
const COUNT_BITS: u32 = 56;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("cannot allocate a {0} MiB perft table")]
pub struct TableAllocError(pub usize);

#[derive(Default)]
struct Entry {
    key_xor_data: AtomicU64,
    data: AtomicU64,
}

pub struct PerftTable {
    entries: Vec<Entry>,
}

impl PerftTable {
    /// A table of `megabytes` MiB (at least one entry), all entries empty.
    pub fn new(megabytes: usize) -> Result<PerftTable, TableAllocError> {
        let len = (megabytes.saturating_mul(1 << 20) / ENTRY_BYTES).max(1);
        let mut entries = Vec::new();
        entries.try_reserve_exact(len).map_err(|_| TableAllocError(megabytes))?;
        entries.resize_with(len, Entry::default);
        Ok(PerftTable { entries })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    #[inline]
    fn slot(&self, key: u64) -> &Entry {
        // Multiply-shift maps the key onto any table length, not only powers of two.
        let index = ((key as u128 * self.entries.len() as u128) >> 64) as usize;
        &self.entries[index]
    }

    /// The count stored for `key` at `depth`, if any. Only depths from 2 up are stored (an
    /// empty entry reads as key 0 at depth 0).
    #[inline]
    pub fn probe(&self, key: u64, depth: u32) -> Option<u64> {
        let entry = self.slot(key);
        let data = entry.data.load(Ordering::Relaxed);
        let key_xor_data = entry.key_xor_data.load(Ordering::Relaxed);
        (key_xor_data ^ data == key && data >> COUNT_BITS == depth as u64)
            .then_some(data & ((1 << COUNT_BITS) - 1))
    }

    /// Stores `count` for `key` at `depth`, replacing what the slot held. Depths 0 and 1 are
    /// not worth a slot (they are counted without making moves) and are ignored, as are
    /// depths from 256 up and counts from 2^56 up, which do not fit an entry.
    #[inline]
    pub fn store(&self, key: u64, depth: u32, count: u64) {
        if !(2..=255).contains(&depth) || count >> COUNT_BITS != 0 {
            return;
        }
        let data = (depth as u64) << COUNT_BITS | count;
        let entry = self.slot(key);
        entry.data.store(data, Ordering::Relaxed);
        entry.key_xor_data.store(key ^ data, Ordering::Relaxed);
    }

    /// Empties every entry.
    pub fn clear(&self) {
        for entry in &self.entries {
            entry.data.store(0, Ordering::Relaxed);
            entry.key_xor_data.store(0, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_count_is_found_at_its_key_and_depth_only() {
        let table = PerftTable::new(1).unwrap();
        assert_eq!(table.len(), (1 << 20) / ENTRY_BYTES);
        let key = 0x1234_5678_9abc_def0;
        assert_eq!(table.probe(key, 4), None);
        table.store(key, 4, 197_281);
        assert_eq!(table.probe(key, 4), Some(197_281));
        assert_eq!(table.probe(key, 3), None, "another depth");
        assert_eq!(table.probe(key, 5), None, "another depth");
        assert_eq!(table.probe(key ^ 1, 4), None, "another key");
        table.store(key, 4, 0);
        assert_eq!(table.probe(key, 4), Some(0), "a count of zero (mate or stalemate)");
        table.clear();
        assert_eq!(table.probe(key, 4), None);
    }

    #[test]
    fn two_keys_in_one_slot_replace_each_other() {
        // In a one-entry table every key shares the slot.
        let table = PerftTable::new(0).unwrap();
        assert_eq!(table.len(), 1);
        let (a, b) = (0xaaaa_0000_0000_0001, 0x5555_0000_0000_0002);
        table.store(a, 3, 8902);
        assert_eq!(table.probe(b, 3), None, "the slot holds another key");
        table.store(b, 3, 400);
        assert_eq!(table.probe(b, 3), Some(400));
        assert_eq!(table.probe(a, 3), None, "replaced");
    }

    #[test]
    fn what_does_not_fit_is_not_stored() {
        let table = PerftTable::new(0).unwrap();
        let key = 42;
        for depth in [0, 1, 256] {
            table.store(key, depth, 20);
            assert_eq!(table.probe(key, depth), None, "depth {depth}");
        }
        table.store(key, 9, 1 << COUNT_BITS);
        assert_eq!(table.probe(key, 9), None);
        table.store(key, 9, (1 << COUNT_BITS) - 1);
        assert_eq!(table.probe(key, 9), Some((1 << COUNT_BITS) - 1));
    }

    #[test]
    fn the_empty_entry_does_not_match_key_zero() {
        let table = PerftTable::new(0).unwrap();
        for depth in 2..8 {
            assert_eq!(table.probe(0, depth), None);
        }
    }

    #[test]
    fn a_torn_entry_reads_as_a_miss() {
        let table = PerftTable::new(0).unwrap();
        let key = 0x0123_4567_89ab_cdef;
        table.store(key, 5, 4_865_609);
        // The data word of another store lands without its key word.
        table.entries[0].data.store(5 << COUNT_BITS | 1234, Ordering::Relaxed);
        assert_eq!(table.probe(key, 5), None);
    }
}
