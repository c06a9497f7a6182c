//! The per-ply accumulator stack: each ply's accumulators follow from its parent's by the few
//! features the move changed, computed only when a position is evaluated (lazily: a node cut
//! before its evaluation never pays for its update). A king move into another king bucket (or
//! across the mirror line) rebuilds that side's accumulator from a per-bucket cache instead.

use super::network::{Network, Row};
use super::{HIDDEN, simd};
use crate::chess::{
    Bitboard, CastleSide, Color, Move, MoveKind, Piece, PieceType, Position, Square,
};

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
    /// Per perspective: whether `accumulators` is up to date.
    computed: [bool; 2],
    /// Per perspective: whether the move into this ply took that side's king to another king
    /// slot, so that its accumulator must be rebuilt rather than updated.
    needs_refresh: [bool; 2],
}

/// The last accumulator built for one king slot, and the board it was built for: a refresh
/// only adds and removes the pieces that differ (a "Finny table").
#[derive(Clone)]
struct CachedSlot {
    accumulator: Row,
    pieces: [Bitboard; 12],
}

/// One entry per ply of the search path, and the refresh cache of each perspective.
pub struct AccumulatorStack {
    entries: Vec<Entry>,
    /// `[perspective][slot]`, see `KingSlot::cache_index`.
    cache: [Vec<CachedSlot>; 2],
}

impl AccumulatorStack {
    pub fn new(plies: usize) -> AccumulatorStack {
        let empty = Entry {
            accumulators: [Row([0; HIDDEN]); 2],
            delta: Delta::default(),
            computed: [false; 2],
            needs_refresh: [false; 2],
        };
        AccumulatorStack { entries: vec![empty; plies], cache: [Vec::new(), Vec::new()] }
    }

    /// Starts a search at `root` (ply 0) with `net`.
    pub fn reset(&mut self, net: &Network, root: &Position) {
        let empty = CachedSlot { accumulator: net.feature_bias, pieces: [Bitboard::EMPTY; 12] };
        for cache in &mut self.cache {
            cache.clear();
            cache.resize(net.slot_count(), empty.clone());
        }
        self.entries[0].accumulators = net.refresh(root);
        self.entries[0].computed = [true; 2];
    }

    /// Enters ply `ply + 1` by `mv` from `parent` (a null move when `mv` is `None`).
    #[inline(always)]
    pub fn push(&mut self, net: &Network, ply: usize, parent: &Position, mv: Option<Move>) {
        let entry = &mut self.entries[ply + 1];
        entry.computed = [false; 2];
        entry.needs_refresh = [false; 2];
        let Some(mv) = mv else {
            entry.delta = Delta::default();
            return;
        };
        entry.delta = Delta::of_move(parent, mv);
        let us = parent.side_to_move();
        if parent.king_square(us) == mv.from() {
            let to = match mv.kind() {
                MoveKind::Castling => CastleSide::of_rook(mv.from(), mv.to()).king_destination(us),
                _ => mv.to(),
            };
            entry.needs_refresh[us.index()] = net.king_slot(us, mv.from()) != net.king_slot(us, to);
        }
    }

    /// Evaluation of `pos`, the position at `ply`: centipawns, side to move's view.
    #[inline]
    pub fn evaluate(&mut self, net: &Network, ply: usize, pos: &Position) -> i32 {
        self.update(net, ply, pos);
        net.output(&self.entries[ply].accumulators, pos.side_to_move(), net.output_bucket(pos))
    }

    /// Brings both accumulators of `ply` (whose position is `pos`) up to date.
    fn update(&mut self, net: &Network, ply: usize, pos: &Position) {
        let mut first = [ply; 2];
        for view in Color::BOTH {
            let v = view.index();
            while !self.entries[first[v]].computed[v] && !self.entries[first[v]].needs_refresh[v] {
                first[v] -= 1;
            }
            if !self.entries[first[v]].computed[v] {
                // The king changed slot on the way: build from the cache at `ply` itself.
                self.refresh_from_cache(net, ply, pos, view);
                first[v] = ply;
            }
        }
        // Between `first` and `ply` each king stayed in the slot it has at `ply`.
        let slots = Color::BOTH.map(|view| net.king_slot(view, pos.king_square(view)));
        for at in first[0].min(first[1]) + 1..=ply {
            let (before, after) = self.entries.split_at_mut(at);
            let (parent, entry) = (&before[at - 1], &mut after[0]);
            let delta = entry.delta;
            for view in Color::BOTH {
                let v = view.index();
                if at <= first[v] {
                    continue;
                }
                let slot = slots[v];
                let row = |&(piece, square): &(u8, u8)| {
                    let feature =
                        slot.feature(view, Piece::ALL[piece as usize], Square::new(square));
                    &net.feature_weights[feature].0
                };
                let added: [&[i16; HIDDEN]; 2] = [row(&delta.added[0]), row(&delta.added[1])];
                let removed: [&[i16; HIDDEN]; 2] = [row(&delta.removed[0]), row(&delta.removed[1])];
                simd::apply(
                    &mut entry.accumulators[v].0,
                    &parent.accumulators[v].0,
                    &added[..delta.added_count as usize],
                    &removed[..delta.removed_count as usize],
                );
                entry.computed[v] = true;
            }
        }
    }

    /// Sets `view`'s accumulator at `ply` from the cached one of its king slot, adding and
    /// removing the pieces that moved since that one was built.
    fn refresh_from_cache(&mut self, net: &Network, ply: usize, pos: &Position, view: Color) {
        let slot = net.king_slot(view, pos.king_square(view));
        let cached = &mut self.cache[view.index()][slot.cache_index()];
        for piece in Piece::ALL {
            let now = pos.pieces(piece.color(), piece.piece_type());
            let then = cached.pieces[piece.index()];
            for square in now & !then {
                let row = &net.feature_weights[slot.feature(view, piece, square)];
                simd::add_in_place(&mut cached.accumulator.0, &row.0);
            }
            for square in then & !now {
                let row = &net.feature_weights[slot.feature(view, piece, square)];
                simd::sub_in_place(&mut cached.accumulator.0, &row.0);
            }
            cached.pieces[piece.index()] = now;
        }
        let entry = &mut self.entries[ply];
        entry.accumulators[view.index()] = cached.accumulator;
        entry.computed[view.index()] = true;
    }

    /// The accumulators of `ply`, whose position is `pos`, brought up to date (for tests).
    pub fn accumulators(&mut self, net: &Network, ply: usize, pos: &Position) -> [Row; 2] {
        self.update(net, ply, pos);
        self.entries[ply].accumulators
    }
}
