//! Counting one subtree: the plain recursion of `chess::perft`, or the same through the perft
//! table.

use crate::chess::{self, CastleSide, Color, Position};

use super::table::PerftTable;

/// The leaf count of `pos` to `depth`, through `table` when there is one. `salt` is xor-ed
/// into every key (see [`castling_salt`]).
#[inline]
pub fn count(pos: &Position, depth: u32, table: Option<&PerftTable>, salt: u64) -> u64 {
    match table {
        // The hot path without a table stays the plain function.
        None => chess::perft(pos, depth),
        Some(table) => count_hashed(pos, depth, table, salt),
    }
}

fn count_hashed(pos: &Position, depth: u32, table: &PerftTable, salt: u64) -> u64 {
    match depth {
        0 => 1,
        // Bulk counting: cheaper than any table probe.
        1 => pos.count_legal_moves(),
        _ => {
            let key = pos.key() ^ salt;
            if let Some(nodes) = table.probe(key, depth) {
                return nodes;
            }
            let mut nodes = 0;
            for &mv in pos.legal_moves().iter() {
                let mut child = *pos;
                child.make_move(mv);
                nodes += count_hashed(&child, depth - 1, table, salt);
            }
            table.store(key, depth, nodes);
            nodes
        }
    }
}

/// A value to xor into the keys of a tree: it tells apart the castling rooks of its root.
///
/// The Zobrist key has the castling rights as four bits (which sides may castle), not which
/// rook castles. In a Chess960 position with two rooks on one side of the king the same bits
/// can mean either rook, so positions of two different suite lines could share a key yet
/// differ in their castling moves. Within one tree the castling rooks never change, so one
/// value per root keeps the table shared across roots without that clash.
pub fn castling_salt(root: &Position) -> u64 {
    let mut salt = 0;
    for (i, color) in [Color::White, Color::Black].into_iter().enumerate() {
        for (j, side) in CastleSide::BOTH.into_iter().enumerate() {
            if let Some(rook) = root.castling_rook(color, side) {
                salt ^= mix(((i * 2 + j) * 64 + rook.index() + 1) as u64);
            }
        }
    }
    salt
}

/// SplitMix64's finaliser: spreads a small number over all 64 bits.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_gives_the_plain_counts() {
        let table = PerftTable::new(1).unwrap();
        for (fen, depth) in [
            (chess::START_FEN, 4),
            ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3),
            // En passant on the board at once, and a pinned en-passant capturer.
            ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5),
            ("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", 3),
            // Chess960, Shredder-FEN rights.
            ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", 3),
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let salt = castling_salt(&pos);
            let plain = chess::perft(&pos, depth);
            // Twice: the second time from a table that holds the first run's counts.
            assert_eq!(count(&pos, depth, Some(&table), salt), plain, "{fen}");
            assert_eq!(count(&pos, depth, Some(&table), salt), plain, "{fen} (warm)");
            assert_eq!(count(&pos, depth, None, salt), plain, "{fen}");
        }
    }

    #[test]
    fn the_salt_tells_apart_castling_rooks_the_key_does_not() {
        // The same placement and rights bits (White may castle queen side), but the castling
        // rook is the a1 rook in one and the b1 rook in the other.
        let outer = Position::from_fen("4k3/8/8/8/8/8/8/RR2K3 w A - 0 1").unwrap();
        let inner = Position::from_fen("4k3/8/8/8/8/8/8/RR2K3 w B - 0 1").unwrap();
        assert_eq!(outer.key(), inner.key());
        assert_ne!(castling_salt(&outer), castling_salt(&inner));
        assert_eq!(castling_salt(&Position::from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1").unwrap()), 0);
        // One table for both trees still gives each its own counts.
        let table = PerftTable::new(1).unwrap();
        for pos in [outer, inner, outer] {
            let plain = chess::perft(&pos, 4);
            assert_eq!(count(&pos, 4, Some(&table), castling_salt(&pos)), plain);
        }
        assert_ne!(chess::perft(&outer, 4), chess::perft(&inner, 4));
    }
}
