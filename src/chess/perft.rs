//! Perft: the number of leaf nodes of the legal move tree to a fixed depth. Moves at the last
//! ply are counted, not made (bulk counting).

use super::{Move, Position};

pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal_moves(),
        _ => {
            let mut nodes = 0;
            for &mv in pos.legal_moves().iter() {
                let mut child = *pos;
                child.make_move(mv);
                nodes += perft(&child, depth - 1);
            }
            nodes
        }
    }
}

/// Perft split by root move, in generation order.
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves()
        .iter()
        .map(|&mv| {
            let mut child = *pos;
            child.make_move(mv);
            (mv, perft(&child, depth - 1))
        })
        .collect()
}
