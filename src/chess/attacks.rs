//! Attack sets: leapers and the between/line tables precomputed at compile time, sliders
//! through the magic tables.

use super::magic;
use super::{Bitboard, Color, Square};

const fn leaper_table(deltas: &[(i8, i8)]) -> [Bitboard; 64] {
    let mut table = [Bitboard(0); 64];
    let mut square = 0;
    while square < 64 {
        let mut i = 0;
        while i < deltas.len() {
            let file = (square % 8) as i8 + deltas[i].0;
            let rank = (square / 8) as i8 + deltas[i].1;
            if file >= 0 && file < 8 && rank >= 0 && rank < 8 {
                table[square].0 |= 1u64 << (rank * 8 + file);
            }
            i += 1;
        }
        square += 1;
    }
    table
}

static KNIGHT: [Bitboard; 64] =
    leaper_table(&[(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]);
static KING: [Bitboard; 64] =
    leaper_table(&[(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]);
static PAWN: [[Bitboard; 64]; 2] =
    [leaper_table(&[(-1, 1), (1, 1)]), leaper_table(&[(-1, -1), (1, -1)])];

/// For each pair of squares on a common rank, file or diagonal: the squares strictly between
/// them (`BETWEEN`) and the whole line through both, edge to edge (`LINE`).
struct LineTables {
    between: [[Bitboard; 64]; 64],
    line: [[Bitboard; 64]; 64],
}

/// Squares from `square` (exclusive) to the board edge in direction (`df`, `dr`).
const fn ray(square: usize, df: i8, dr: i8) -> u64 {
    let mut bits = 0;
    let mut file = (square % 8) as i8 + df;
    let mut rank = (square / 8) as i8 + dr;
    while file >= 0 && file < 8 && rank >= 0 && rank < 8 {
        bits |= 1u64 << (rank * 8 + file);
        file += df;
        rank += dr;
    }
    bits
}

const fn build_line_tables() -> LineTables {
    const DIRECTIONS: [(i8, i8); 8] =
        [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)];
    let mut tables = LineTables { between: [[Bitboard(0); 64]; 64], line: [[Bitboard(0); 64]; 64] };
    let mut a = 0;
    while a < 64 {
        let mut d = 0;
        while d < 8 {
            let (df, dr) = DIRECTIONS[d];
            let forward = ray(a, df, dr);
            let full_line = forward | ray(a, -df, -dr) | (1u64 << a);
            let mut rest = forward;
            while rest != 0 {
                let b = rest.trailing_zeros() as usize;
                tables.between[a][b].0 = forward & ray(b, -df, -dr);
                tables.line[a][b].0 = full_line;
                rest &= rest - 1;
            }
            d += 1;
        }
        a += 1;
    }
    tables
}

static LINES: LineTables = build_line_tables();

#[inline(always)]
pub fn knight_attacks(square: Square) -> Bitboard {
    KNIGHT[square.index()]
}

#[inline(always)]
pub fn king_attacks(square: Square) -> Bitboard {
    KING[square.index()]
}

/// Squares a pawn of `color` on `square` attacks.
#[inline(always)]
pub fn pawn_attacks(color: Color, square: Square) -> Bitboard {
    PAWN[color.index()][square.index()]
}

#[inline(always)]
pub fn rook_attacks(square: Square, occupied: Bitboard) -> Bitboard {
    magic::rook_attacks(square.index(), occupied)
}

#[inline(always)]
pub fn bishop_attacks(square: Square, occupied: Bitboard) -> Bitboard {
    magic::bishop_attacks(square.index(), occupied)
}

#[inline(always)]
pub fn queen_attacks(square: Square, occupied: Bitboard) -> Bitboard {
    rook_attacks(square, occupied) | bishop_attacks(square, occupied)
}

/// Squares strictly between `a` and `b` if they share a line, else empty.
#[inline(always)]
pub fn between(a: Square, b: Square) -> Bitboard {
    LINES.between[a.index()][b.index()]
}

/// The full line through `a` and `b` if they share one, else empty.
#[inline(always)]
pub fn line(a: Square, b: Square) -> Bitboard {
    LINES.line[a.index()][b.index()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaper_counts() {
        assert_eq!(knight_attacks(Square::A1).count(), 2);
        assert_eq!(knight_attacks(Square::D4).count(), 8);
        assert_eq!(king_attacks(Square::H8).count(), 3);
        assert_eq!(king_attacks(Square::E4).count(), 8);
        assert_eq!(pawn_attacks(Color::White, Square::E2), Square::D3.bb() | Square::F3.bb());
        assert_eq!(pawn_attacks(Color::Black, Square::A7), Square::B6.bb());
        assert_eq!(pawn_attacks(Color::White, Square::E8), Bitboard::EMPTY);
    }

    #[test]
    fn between_and_line() {
        assert_eq!(between(Square::A1, Square::D4), Square::B2.bb() | Square::C3.bb());
        assert_eq!(between(Square::E1, Square::E2), Bitboard::EMPTY);
        assert_eq!(between(Square::A1, Square::B3), Bitboard::EMPTY);
        assert_eq!(line(Square::B2, Square::C3).count(), 8);
        assert!(line(Square::B2, Square::C3).contains(Square::H8));
        assert_eq!(line(Square::A1, Square::B3), Bitboard::EMPTY);
        assert_eq!(line(Square::C2, Square::F2), Bitboard::rank(1));
    }
}
