//! The per-ply accumulator stack: each ply's accumulators follow from its parent's by the few
//! features the move changed, computed only when a position is evaluated (lazily: a node cut
//! before its evaluation never pays for its update).

use super::network::{Network, Row};
use super::{HIDDEN, feature_index, simd};
use crate::chess::{CastleSide, Color, Move, MoveKind, Piece, PieceType, Position, Square};

/// Features a move turns on and off: at most two of each (castling moves king and rook).
#[derive(Clone, Copy, Default)]
struct Delta {
    added: [(u8, u8); 2],
    removed: [(u8, u8); 2],
    added_count: u8,
    removed_count: u8,
}

impl Delta {
    fn add(&mut self, piece: Piece, square: Square) {
        self.added[self.added_count as usize] = (piece.index() as u8, square.index() as u8);
        self.added_count += 1;
    }

    fn remove(&mut self, piece: Piece, square: Square) {
        self.removed[self.removed_count as usize] = (piece.index() as u8, square.index() as u8);
        self.removed_count += 1;
    }

    /// What `mv` changes on the board of `pos` (the position before the move).
    fn of_move(pos: &Position, mv: Move) -> Delta {
        let mut delta = Delta::default();
        let us = pos.side_to_move();
        let (from, to) = (mv.from(), mv.to());
        let Some(moving) = pos.piece_on(from) else { return delta };
        match mv.kind() {
            MoveKind::Castling => {
                // Encoded as king takes own rook; the destinations follow the FIDE rules.
                let side = CastleSide::of_rook(from, to);
                let rook = Piece::new(us, PieceType::Rook);
                delta.remove(moving, from);
                delta.remove(rook, to);
                delta.add(moving, side.king_destination(us));
                delta.add(rook, side.rook_destination(us));
            }
            MoveKind::EnPassant => {
                let captured = Square::from_file_rank(to.file(), from.rank());
                delta.remove(moving, from);
                delta.remove(Piece::new(!us, PieceType::Pawn), captured);
                delta.add(moving, to);
            }
            MoveKind::Normal | MoveKind::Promotion => {
                delta.remove(moving, from);
                if let Some(captured) = pos.piece_on(to) {
                    delta.remove(captured, to);
                }
                let placed = match mv.promotion_type() {
                    Some(piece_type) => Piece::new(us, piece_type),
                    None => moving,
                };
                delta.add(placed, to);
            }
        }
        delta
    }
}

#[derive(Clone, Copy)]
struct Entry {
    accumulators: [Row; 2],
    delta: Delta,
    computed: bool,
}

/// One entry per ply of the search path.
pub struct AccumulatorStack {
    entries: Vec<Entry>,
}

impl AccumulatorStack {
    pub fn new(plies: usize) -> AccumulatorStack {
        let empty =
            Entry { accumulators: [Row([0; HIDDEN]); 2], delta: Delta::default(), computed: false };
        AccumulatorStack { entries: vec![empty; plies] }
    }

    /// Starts a search at `root` (ply 0).
    pub fn reset(&mut self, net: &Network, root: &Position) {
        self.entries[0].accumulators = net.refresh(root);
        self.entries[0].computed = true;
    }

    /// Enters ply `ply + 1` by `mv` from `parent` (a null move when `mv` is `None`).
    #[inline(always)]
    pub fn push(&mut self, ply: usize, parent: &Position, mv: Option<Move>) {
        let entry = &mut self.entries[ply + 1];
        entry.delta = mv.map_or_else(Delta::default, |mv| Delta::of_move(parent, mv));
        entry.computed = false;
    }

    /// Evaluation of `pos`, the position at `ply`: centipawns, side to move's view.
    #[inline]
    pub fn evaluate(&mut self, net: &Network, ply: usize, pos: &Position) -> i32 {
        self.update(net, ply);
        net.output(&self.entries[ply].accumulators, pos.side_to_move())
    }

    /// Brings the accumulators of `ply` up to date from the nearest computed ancestor.
    fn update(&mut self, net: &Network, ply: usize) {
        let mut first = ply;
        while !self.entries[first].computed {
            first -= 1;
        }
        for at in first + 1..=ply {
            let (before, after) = self.entries.split_at_mut(at);
            let (parent, entry) = (&before[at - 1], &mut after[0]);
            let delta = entry.delta;
            for view in Color::BOTH {
                let row = |&(piece, square): &(u8, u8)| {
                    let feature =
                        feature_index(view, Piece::ALL[piece as usize], Square::new(square));
                    &net.feature_weights[feature].0
                };
                let added: [&[i16; HIDDEN]; 2] = [row(&delta.added[0]), row(&delta.added[1])];
                let removed: [&[i16; HIDDEN]; 2] = [row(&delta.removed[0]), row(&delta.removed[1])];
                simd::apply(
                    &mut entry.accumulators[view.index()].0,
                    &parent.accumulators[view.index()].0,
                    &added[..delta.added_count as usize],
                    &removed[..delta.removed_count as usize],
                );
            }
            entry.computed = true;
        }
    }

    /// The accumulators of `ply` brought up to date (for tests).
    pub fn accumulators(&mut self, net: &Network, ply: usize) -> [Row; 2] {
        self.update(net, ply);
        self.entries[ply].accumulators
    }
}
