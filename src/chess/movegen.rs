//! Legal move generation.
//!
//! Moves are generated legal directly: the king never steps onto an attacked square, a
//! checked side only captures the checker or blocks, pinned pieces stay on their pin line,
//! and the rare en-passant capture is tried on the board. Moves go to a [`MoveSink`], which
//! either collects them or merely counts them (bulk counting for perft).

use super::attacks::{
    between, bishop_attacks, king_attacks, knight_attacks, line, pawn_attacks, rook_attacks,
};
use super::position::pawn_push;
use super::{Bitboard, CastleSide, Move, MoveKind, MoveList, PieceType, Position, Square};

/// Which moves to generate, as bit flags.
pub type GenKinds = u8;
/// Captures and promotions (the moves quiescence search looks at).
pub const NOISY: GenKinds = 1;
/// Everything else: non-capturing, non-promoting moves, castling included.
pub const QUIET: GenKinds = 2;
pub const ALL: GenKinds = NOISY | QUIET;

/// Receives generated moves, set-wise where possible.
pub trait MoveSink {
    /// Non-promoting moves of the piece on `from` to every square of `targets`.
    fn piece_moves(&mut self, from: Square, targets: Bitboard);
    /// Non-promoting pawn moves to every square of `targets`, each from `delta` index steps back.
    fn pawn_moves(&mut self, targets: Bitboard, delta: i8);
    /// The four promotions to every square of `targets`, each from `delta` index steps back.
    fn pawn_promotions(&mut self, targets: Bitboard, delta: i8);
    /// One move (en passant, castling).
    fn single(&mut self, mv: Move);
}

impl MoveSink for MoveList {
    #[inline(always)]
    fn piece_moves(&mut self, from: Square, targets: Bitboard) {
        for to in targets {
            self.push(Move::new(from, to, MoveKind::Normal));
        }
    }

    #[inline(always)]
    fn pawn_moves(&mut self, targets: Bitboard, delta: i8) {
        for to in targets {
            self.push(Move::new(to.offset(-delta), to, MoveKind::Normal));
        }
    }

    #[inline(always)]
    fn pawn_promotions(&mut self, targets: Bitboard, delta: i8) {
        for to in targets {
            let from = to.offset(-delta);
            for piece in [PieceType::Queen, PieceType::Knight, PieceType::Rook, PieceType::Bishop] {
                self.push(Move::promotion(from, to, piece));
            }
        }
    }

    #[inline(always)]
    fn single(&mut self, mv: Move) {
        self.push(mv);
    }
}

/// Counts moves without listing them.
#[derive(Default)]
pub struct MoveCounter(pub u64);

impl MoveSink for MoveCounter {
    #[inline(always)]
    fn piece_moves(&mut self, _from: Square, targets: Bitboard) {
        self.0 += targets.count() as u64;
    }

    #[inline(always)]
    fn pawn_moves(&mut self, targets: Bitboard, _delta: i8) {
        self.0 += targets.count() as u64;
    }

    #[inline(always)]
    fn pawn_promotions(&mut self, targets: Bitboard, _delta: i8) {
        self.0 += 4 * targets.count() as u64;
    }

    #[inline(always)]
    fn single(&mut self, _mv: Move) {
        self.0 += 1;
    }
}

impl Position {
    /// All legal moves.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate::<ALL, _>(&mut list);
        list
    }

    /// Legal captures and promotions.
    pub fn noisy_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate::<NOISY, _>(&mut list);
        list
    }

    /// Legal moves that neither capture nor promote.
    pub fn quiet_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate::<QUIET, _>(&mut list);
        list
    }

    /// The number of legal moves, counted without listing them.
    pub fn count_legal_moves(&self) -> u64 {
        let mut counter = MoveCounter(0);
        self.generate::<ALL, _>(&mut counter);
        counter.0
    }

    /// Whether the side to move has any legal move.
    pub fn has_legal_move(&self) -> bool {
        // Counting is cheap enough; a dedicated early-exit sink would gain little.
        self.count_legal_moves() > 0
    }

    /// Whether `mv` is a legal move here. Meant for moves from elsewhere (hash table,
    /// killers), so any 16-bit value may come in.
    pub fn is_legal(&self, mv: Move) -> bool {
        let us = self.side;
        let from = mv.from();
        let to = mv.to();
        let Some(piece) = self.piece_on(from).filter(|p| p.color() == us) else {
            return false;
        };
        // Only promotions use the promotion bits: other encodings are not moves we make.
        if mv.kind() != MoveKind::Promotion && mv.raw() & 0x3000 != 0 {
            return false;
        }
        let occupied = self.occupied();
        let own = self.colors[us.index()];
        let enemy = self.colors[(!us).index()];
        let last_rank = Bitboard::relative_rank(us, 7);
        let king = self.king_square(us);

        match mv.kind() {
            MoveKind::Castling => {
                let mut castles = MoveList::new();
                if self.checkers.is_empty() && self.castling.has_any(us) {
                    self.generate_castling(&mut castles);
                }
                return castles.contains(mv);
            }
            MoveKind::EnPassant => {
                return piece.piece_type() == PieceType::Pawn
                    && self.en_passant == Some(to)
                    && pawn_attacks(us, from).contains(to)
                    && self.en_passant_is_legal(from, to);
            }
            _ => {}
        }
        // The piece can make this move, ignoring checks and pins.
        let promotes = mv.kind() == MoveKind::Promotion;
        let reachable = match piece.piece_type() {
            PieceType::Pawn => {
                if promotes != last_rank.contains(to) {
                    return false;
                }
                let one = from.bb().forward(us) & !occupied;
                let two = (one & Bitboard::relative_rank(us, 2)).forward(us) & !occupied;
                one | two | (pawn_attacks(us, from) & enemy)
            }
            _ if promotes => return false,
            PieceType::Knight => knight_attacks(from),
            PieceType::Bishop => bishop_attacks(from, occupied),
            PieceType::Rook => rook_attacks(from, occupied),
            PieceType::Queen => bishop_attacks(from, occupied) | rook_attacks(from, occupied),
            PieceType::King => {
                return (king_attacks(from) & !own).contains(to)
                    && !self.is_attacked_by(to, !us, occupied ^ from.bb());
            }
        };
        if !(reachable & !own).contains(to) {
            return false;
        }
        // It resolves any check and keeps to its pin line.
        if self.checkers.more_than_one() {
            return false;
        }
        if self.checkers.non_empty()
            && !(between(king, self.checkers.lsb()) | self.checkers).contains(to)
        {
            return false;
        }
        !self.pinned.contains(from) || line(king, from).contains(to)
    }

    /// Generates the legal moves of the kinds in `KINDS` into `sink`.
    #[inline]
    pub fn generate<const KINDS: GenKinds, S: MoveSink>(&self, sink: &mut S) {
        let us = self.side;
        let them = !us;
        let occupied = self.occupied();
        let own = self.colors[us.index()];
        let enemy = self.colors[them.index()];
        let king = self.king_square(us);

        let mut destinations = Bitboard::EMPTY;
        if KINDS & NOISY != 0 {
            destinations |= enemy;
        }
        if KINDS & QUIET != 0 {
            destinations |= !occupied;
        }

        // The king, onto squares not attacked once it has left its own square.
        let without_king = occupied ^ king.bb();
        let mut king_targets = Bitboard::EMPTY;
        for to in king_attacks(king) & destinations {
            if !self.is_attacked_by(to, them, without_king) {
                king_targets |= to.bb();
            }
        }
        sink.piece_moves(king, king_targets);

        // In double check only the king moves.
        if self.checkers.more_than_one() {
            return;
        }
        // In single check the others must capture the checker or block.
        let check_mask = if self.checkers.non_empty() {
            between(king, self.checkers.lsb()) | self.checkers
        } else {
            Bitboard::ALL
        };
        let targets = destinations & check_mask;
        // A pinned piece can never end a check, so in check it has no moves at all.
        let pinned = self.pinned;
        let movable = if self.checkers.non_empty() { own & !pinned } else { own };

        for from in self.pieces[PieceType::Knight.index()] & movable & !pinned {
            sink.piece_moves(from, knight_attacks(from) & targets);
        }
        for from in self.diagonal_sliders() & movable {
            let mut to = bishop_attacks(from, occupied) & targets;
            if pinned.contains(from) {
                to &= line(king, from);
            }
            sink.piece_moves(from, to);
        }
        for from in self.orthogonal_sliders() & movable {
            let mut to = rook_attacks(from, occupied) & targets;
            if pinned.contains(from) {
                to &= line(king, from);
            }
            sink.piece_moves(from, to);
        }

        self.generate_pawn_moves::<KINDS, S>(sink, check_mask);

        if KINDS & QUIET != 0 && self.checkers.is_empty() && self.castling.has_any(us) {
            self.generate_castling(sink);
        }
    }

    #[inline(always)]
    fn generate_pawn_moves<const KINDS: GenKinds, S: MoveSink>(
        &self,
        sink: &mut S,
        check_mask: Bitboard,
    ) {
        let us = self.side;
        let push = pawn_push(us);
        let empty = !self.occupied();
        let enemy = self.colors[(!us).index()];
        let pawns = self.pieces(us, PieceType::Pawn);
        let last_rank = Bitboard::relative_rank(us, 7);
        let third_rank = Bitboard::relative_rank(us, 2);
        let king = self.king_square(us);

        let free = pawns & !self.pinned;
        let single = free.forward(us) & empty;
        let double = (single & third_rank).forward(us) & empty & check_mask;
        let single = single & check_mask;
        let west = free.forward_west(us) & enemy & check_mask;
        let east = free.forward_east(us) & enemy & check_mask;

        if KINDS & QUIET != 0 {
            sink.pawn_moves(single & !last_rank, push);
            sink.pawn_moves(double, 2 * push);
        }
        if KINDS & NOISY != 0 {
            sink.pawn_promotions(single & last_rank, push);
            sink.pawn_moves(west & !last_rank, push - 1);
            sink.pawn_promotions(west & last_rank, push - 1);
            sink.pawn_moves(east & !last_rank, push + 1);
            sink.pawn_promotions(east & last_rank, push + 1);
            if let Some(target) = self.en_passant {
                for from in pawn_attacks(!us, target) & pawns {
                    if self.en_passant_is_legal(from, target) {
                        sink.single(Move::new(from, target, MoveKind::EnPassant));
                    }
                }
            }
        }

        // Pinned pawns move only along the pin line, and never while in check.
        if self.checkers.is_empty() {
            for from in pawns & self.pinned {
                let pin_line = line(king, from);
                let one = from.bb().forward(us) & empty & pin_line;
                let two = (one & third_rank).forward(us) & empty;
                let captures = pawn_attacks(us, from) & enemy & pin_line;
                if KINDS & QUIET != 0 {
                    sink.pawn_moves(one & !last_rank, push);
                    sink.pawn_moves(two, 2 * push);
                }
                if KINDS & NOISY != 0 {
                    sink.pawn_promotions(one & last_rank, push);
                    for to in captures {
                        let delta = to.index() as i8 - from.index() as i8;
                        if last_rank.contains(to) {
                            sink.pawn_promotions(to.bb(), delta);
                        } else {
                            sink.pawn_moves(to.bb(), delta);
                        }
                    }
                }
            }
        }
    }

    /// Castling (standard and Chess960): the squares both pieces cross and land on are empty
    /// but for the two of them, and no square the king stands on, crosses or lands on is
    /// attacked once king and rook have left their squares.
    pub(super) fn generate_castling<S: MoveSink>(&self, sink: &mut S) {
        let us = self.side;
        let king = self.king_square(us);
        let occupied = self.occupied();
        for side in CastleSide::BOTH {
            let Some(rook) = self.castling_rook(us, side) else {
                continue;
            };
            let king_to = side.king_destination(us);
            let rook_to = side.rook_destination(us);
            let movers = king.bb() | rook.bb();
            let king_path = between(king, king_to) | king_to.bb();
            let must_be_empty = (king_path | between(rook, rook_to) | rook_to.bb()) & !movers;
            if (occupied & must_be_empty).non_empty() {
                continue;
            }
            let without_movers = occupied ^ movers;
            if king_path.into_iter().any(|sq| self.is_attacked_by(sq, !us, without_movers)) {
                continue;
            }
            sink.single(Move::new(king, rook, MoveKind::Castling));
        }
    }
}
