//! Upcoming repetitions: whether the side to move has a move that brings back an earlier
//! position, seen from the keys of the positions before (the cuckoo tables in
//! `chess::cuckoo`). A side that can repeat can hold at least a draw, so a search whose alpha
//! is below a draw may raise it to one a ply before the repetition is on the board.

use crate::chess::{Position, cuckoo, side_key};

/// `keys` are the keys of the game's positions up to and including `pos` (the last), `ply`
/// is `pos`'s distance from the root and `plies_from_null` the number of moves since the last
/// null move on the search path. True if one move of the side to move reaches a position
/// that would then be a draw by repetition: an earlier one inside the search, or one before
/// the root that has already occurred twice.
pub(super) fn upcoming_repetition(
    keys: &[u64],
    pos: &Position,
    ply: usize,
    plies_from_null: usize,
) -> bool {
    let n = keys.len();
    let limit = (pos.halfmove_clock() as usize).min(plies_from_null).min(n.saturating_sub(1));
    if limit < 3 {
        return false;
    }
    let side = side_key();
    let key = keys[n - 1];
    // The key change made by the opponent's moves since then: zero when every piece of theirs
    // is back where it was, so that only our pieces differ.
    let mut their_change = key ^ keys[n - 2] ^ side;
    let mut distance = 3;
    while distance <= limit {
        their_change ^= keys[n - distance] ^ keys[n - 1 - distance] ^ side;
        if their_change == 0
            && let Some(squares) = cuckoo::reversible_move(key ^ keys[n - 1 - distance])
            && cuckoo::path_is_clear(squares, pos.occupied())
        {
            if ply > distance {
                return true;
            }
            // Before the root one repetition is not a draw: that position must have occurred
            // before too, and the move must be ours (both directions share one entry).
            let (a, b) = squares;
            let from = if pos.piece_on(a).is_some() { a } else { b };
            let ours = pos.piece_on(from).is_some_and(|p| p.color() == pos.side_to_move());
            if ours && occurred_before(keys, n - 1 - distance, limit - distance) {
                return true;
            }
        }
        distance += 2;
    }
    false
}

/// Whether `keys[index]` occurred earlier, within `window` plies of reversible moves.
fn occurred_before(keys: &[u64], index: usize, window: usize) -> bool {
    (4..=window.min(index)).step_by(2).any(|back| keys[index - back] == keys[index])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::START_FEN;

    /// The keys of `fen` and of every position after `moves`, and the last position.
    fn play(fen: &str, moves: &str) -> (Vec<u64>, Position) {
        let mut pos = Position::from_fen(fen).unwrap();
        let mut keys = vec![pos.key()];
        for text in moves.split_whitespace() {
            let mv = pos.parse_uci_move(text, false).unwrap();
            pos.make_move(mv);
            keys.push(pos.key());
        }
        (keys, pos)
    }

    #[test]
    fn a_knight_that_can_go_back_is_found_inside_the_search() {
        // After Nf3 Nf6 Ng1 Black can play Ng8 and repeat the start position.
        let (keys, pos) = play(START_FEN, "g1f3 g8f6 f3g1");
        assert!(upcoming_repetition(&keys, &pos, 4, 3));
        // Not if those positions were before the root (the start occurred only once) ...
        assert!(!upcoming_repetition(&keys, &pos, 3, 3));
        // ... nor across a null move, nor after two plies.
        assert!(!upcoming_repetition(&keys, &pos, 4, 2));
        let (keys, pos) = play(START_FEN, "g1f3 g8f6");
        assert!(!upcoming_repetition(&keys, &pos, 4, 2));
        // Nor when the opponent's pieces are not back: Nc6 is not undone.
        let (keys, pos) = play(START_FEN, "g1f3 b8c6 f3g1 g8f6");
        assert!(!upcoming_repetition(&keys, &pos, 5, 4));
    }

    #[test]
    fn before_the_root_the_position_must_have_occurred_twice() {
        // The start position has occurred twice; Ng8 would make it three times.
        let (keys, pos) = play(START_FEN, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1");
        assert!(upcoming_repetition(&keys, &pos, 1, 7));
        assert!(!upcoming_repetition(&keys[2..], &pos, 1, 7));
    }

    #[test]
    fn a_slider_needs_a_clear_path_back() {
        // The rook went a3-b3-b1-a1 while the black king walked round a square: Ra3 would
        // repeat the position after the first move, unless something stands on a2.
        let moves = "e8d8 a3b3 d8d7 b3b1 d7e7 b1a1 e7e8";
        let (keys, pos) = play("4k3/8/8/8/8/R7/7p/4K3 b - - 0 1", moves);
        assert!(upcoming_repetition(&keys, &pos, 8, 7));
        let (keys, pos) = play("4k3/8/8/8/8/R7/p7/4K3 b - - 0 1", moves);
        assert!(!upcoming_repetition(&keys, &pos, 8, 7));
    }
}
