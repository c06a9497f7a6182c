//! Pawn-structure masks, built at compile time.

use crate::chess::{Bitboard, Color, Square};

const fn build_forward_file() -> [[Bitboard; 64]; 2] {
    let mut t = [[Bitboard(0); 64]; 2];
    let mut sq = 0;
    while sq < 64 {
        let file_bits = 0x0101_0101_0101_0101u64 << (sq % 8);
        let rank = sq / 8;
        let above = if rank == 7 { 0 } else { !0u64 << ((rank + 1) * 8) };
        let below = if rank == 0 { 0 } else { !0u64 >> ((8 - rank) * 8) };
        t[0][sq] = Bitboard(file_bits & above);
        t[1][sq] = Bitboard(file_bits & below);
        sq += 1;
    }
    t
}

const fn build_adjacent_files() -> [Bitboard; 8] {
    let mut t = [Bitboard(0); 8];
    let mut f = 0;
    while f < 8 {
        let file = 0x0101_0101_0101_0101u64 << f;
        let west = if f > 0 { file >> 1 } else { 0 };
        let east = if f < 7 { file << 1 } else { 0 };
        t[f] = Bitboard(west | east);
        f += 1;
    }
    t
}

const fn build_passed() -> [[Bitboard; 64]; 2] {
    let forward = build_forward_file();
    let mut t = [[Bitboard(0); 64]; 2];
    let mut color = 0;
    while color < 2 {
        let mut sq = 0;
        while sq < 64 {
            let mut bits = forward[color][sq].0;
            if sq % 8 > 0 {
                bits |= forward[color][sq - 1].0;
            }
            if sq % 8 < 7 {
                bits |= forward[color][sq + 1].0;
            }
            t[color][sq] = Bitboard(bits);
            sq += 1;
        }
        color += 1;
    }
    t
}

static FORWARD_FILE: [[Bitboard; 64]; 2] = build_forward_file();
static ADJACENT_FILES: [Bitboard; 8] = build_adjacent_files();
static PASSED: [[Bitboard; 64]; 2] = build_passed();

/// Squares ahead of `sq` on its file, as seen by `color`.
#[inline(always)]
pub fn forward_file(color: Color, sq: Square) -> Bitboard {
    FORWARD_FILE[color.index()][sq.index()]
}

/// The files beside `file`.
#[inline(always)]
pub fn adjacent_files(file: u8) -> Bitboard {
    ADJACENT_FILES[file as usize & 7]
}

/// Squares where an enemy pawn would stop a `color` pawn on `sq` from being passed.
#[inline(always)]
pub fn passed_mask(color: Color, sq: Square) -> Bitboard {
    PASSED[color.index()][sq.index()]
}

/// King-move distance.
#[inline(always)]
pub fn distance(a: Square, b: Square) -> i32 {
    (a.file() as i32 - b.file() as i32).abs().max((a.rank() as i32 - b.rank() as i32).abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks() {
        assert_eq!(forward_file(Color::White, Square::E6), Square::E7.bb() | Square::E8.bb());
        assert_eq!(forward_file(Color::Black, Square::E2), Square::E1.bb());
        assert_eq!(adjacent_files(0), Bitboard::file(1));
        assert_eq!(passed_mask(Color::White, Square::A7), Square::A8.bb() | Square::B8.bb());
        assert_eq!(passed_mask(Color::Black, Square::D3).count(), 6);
        assert_eq!(distance(Square::A1, Square::H8), 7);
    }
}
