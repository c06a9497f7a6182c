//! Slider attacks by "fancy" magic bitboards.
//!
//! For a rook or bishop on a square, the occupied squares that can block it (the relevant
//! mask) are multiplied by a magic number; the top bits of the product index a table of
//! precomputed attack sets. The magic numbers come from `generated.rs` (found with `rand` by
//! `zwischen generate-tables`); the tables are built at compile time here, and a magic that
//! maps two different attack sets to one slot stops the build.

use super::Bitboard;
use super::generated::{BISHOP_MAGICS, ROOK_MAGICS};

pub const ROOK_DIRECTIONS: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
pub const BISHOP_DIRECTIONS: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

const ROOK_TABLE_SIZE: usize = 102_400;
const BISHOP_TABLE_SIZE: usize = 5_248;

/// Attacks of a slider on `square` moving in `directions`, stopping at the first occupied
/// square of each ray (which is included). Slow; used to build tables and as a reference.
pub const fn sliding_attacks(square: usize, occupied: u64, directions: &[(i8, i8); 4]) -> u64 {
    let mut attacks = 0;
    let mut d = 0;
    while d < 4 {
        let (df, dr) = directions[d];
        let mut file = (square % 8) as i8 + df;
        let mut rank = (square / 8) as i8 + dr;
        while on_board(file, rank) {
            let bit = 1u64 << (rank * 8 + file);
            attacks |= bit;
            if occupied & bit != 0 {
                break;
            }
            file += df;
            rank += dr;
        }
        d += 1;
    }
    attacks
}

const fn on_board(file: i8, rank: i8) -> bool {
    file >= 0 && file < 8 && rank >= 0 && rank < 8
}

/// The squares whose occupancy matters for a slider on `square`: every ray square but the
/// last one before the edge (a piece on the edge square blocks nothing beyond it).
pub const fn relevant_mask(square: usize, directions: &[(i8, i8); 4]) -> u64 {
    let mut mask = 0;
    let mut d = 0;
    while d < 4 {
        let (df, dr) = directions[d];
        let mut file = (square % 8) as i8 + df;
        let mut rank = (square / 8) as i8 + dr;
        while on_board(file, rank) && on_board(file + df, rank + dr) {
            mask |= 1u64 << (rank * 8 + file);
            file += df;
            rank += dr;
        }
        d += 1;
    }
    mask
}

#[derive(Copy, Clone)]
struct Magic {
    mask: u64,
    factor: u64,
    offset: u32,
    shift: u32,
}

struct SliderTable<const N: usize> {
    magics: [Magic; 64],
    attacks: [Bitboard; N],
}

const fn build_table<const N: usize>(
    directions: &[(i8, i8); 4],
    factors: &[u64; 64],
) -> SliderTable<N> {
    let empty = Magic { mask: 0, factor: 0, offset: 0, shift: 0 };
    let mut magics = [empty; 64];
    let mut attacks = [Bitboard(0); N];
    let mut offset = 0;
    let mut square = 0;
    while square < 64 {
        let mask = relevant_mask(square, directions);
        let bits = mask.count_ones();
        let factor = factors[square];
        magics[square] = Magic { mask, factor, offset: offset as u32, shift: 64 - bits };
        // Visit every subset of the mask (Carry-Rippler enumeration).
        let mut subset = 0u64;
        loop {
            let index = offset + (subset.wrapping_mul(factor) >> (64 - bits)) as usize;
            let expected = sliding_attacks(square, subset, directions);
            // A slider always attacks some square, so zero marks an unused slot.
            if attacks[index].0 == 0 {
                attacks[index] = Bitboard(expected);
            } else if attacks[index].0 != expected {
                panic!("a magic number maps two attack sets to one slot");
            }
            subset = subset.wrapping_sub(mask) & mask;
            if subset == 0 {
                break;
            }
        }
        offset += 1 << bits;
        square += 1;
    }
    assert!(offset == N, "slider table size does not match its masks");
    SliderTable { magics, attacks }
}

static ROOK_TABLE: SliderTable<ROOK_TABLE_SIZE> = build_table(&ROOK_DIRECTIONS, &ROOK_MAGICS);
static BISHOP_TABLE: SliderTable<BISHOP_TABLE_SIZE> =
    build_table(&BISHOP_DIRECTIONS, &BISHOP_MAGICS);

#[inline(always)]
fn lookup<const N: usize>(table: &SliderTable<N>, square: usize, occupied: Bitboard) -> Bitboard {
    let magic = &table.magics[square & 63];
    let slot = ((occupied.0 & magic.mask).wrapping_mul(magic.factor) >> magic.shift) as usize;
    let index = magic.offset as usize + slot;
    // SAFETY: `slot < 2^(64 - shift)`, and `build_table` checked that every square's block
    // `offset .. offset + 2^(64 - shift)` lies inside the table.
    unsafe { *table.attacks.get_unchecked(index) }
}

#[inline(always)]
pub fn rook_attacks(square: usize, occupied: Bitboard) -> Bitboard {
    lookup(&ROOK_TABLE, square, occupied)
}

#[inline(always)]
pub fn bishop_attacks(square: usize, occupied: Bitboard) -> Bitboard {
    lookup(&BISHOP_TABLE, square, occupied)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    #[test]
    fn magic_lookups_equal_slow_attacks() {
        let mut rng = StdRng::seed_from_u64(7);
        for square in 0..64 {
            for _ in 0..2000 {
                let occupied = rng.random::<u64>() & rng.random::<u64>();
                assert_eq!(
                    rook_attacks(square, Bitboard(occupied)).0,
                    sliding_attacks(square, occupied, &ROOK_DIRECTIONS)
                );
                assert_eq!(
                    bishop_attacks(square, Bitboard(occupied)).0,
                    sliding_attacks(square, occupied, &BISHOP_DIRECTIONS)
                );
            }
        }
    }

    #[test]
    fn masks_have_the_classic_sizes() {
        let rook_total: usize =
            (0..64).map(|sq| 1usize << relevant_mask(sq, &ROOK_DIRECTIONS).count_ones()).sum();
        let bishop_total: usize =
            (0..64).map(|sq| 1usize << relevant_mask(sq, &BISHOP_DIRECTIONS).count_ones()).sum();
        assert_eq!((rook_total, bishop_total), (ROOK_TABLE_SIZE, BISHOP_TABLE_SIZE));
    }
}
