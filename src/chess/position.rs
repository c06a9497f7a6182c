//! The board: piece placement, side to move, castling and en-passant rights, clocks, hash
//! keys, and the check information that legal move generation needs.
//!
//! Moves are applied by copy-make: `make_move` changes the position in place and callers
//! that need the old one keep a copy (the struct is a few cache lines and `Copy`).

use super::attacks::{
    between, bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks,
};
use super::{
    Bitboard, CastleSide, CastlingRights, Checks, Color, Move, MoveKind, Piece, PieceType, Square,
    zobrist,
};

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Position {
    pub(super) pieces: [Bitboard; 6],
    pub(super) colors: [Bitboard; 2],
    pub(super) board: [Option<Piece>; 64],
    pub(super) key: u64,
    pub(super) pawn_key: u64,
    /// Zobrist key of each colour's pieces other than pawns (king included).
    pub(super) non_pawn_keys: [u64; 2],
    /// Enemy pieces giving check to the side to move.
    pub(super) checkers: Bitboard,
    /// Pieces of the side to move that are the only blocker between their king and an enemy slider.
    pub(super) pinned: Bitboard,
    /// Kings and rooks whose move or capture loses a castling right still held.
    pub(super) castling_squares: Bitboard,
    /// The castling rook of each right (indexed by `CastlingRights::index`), valid while held.
    pub(super) castling_rooks: [Square; 4],
    pub(super) side: Color,
    pub(super) castling: CastlingRights,
    /// Set only when a legal en-passant capture exists, so that it takes part in the key and in
    /// repetition exactly as the FIDE laws define "the same position".
    pub(super) en_passant: Option<Square>,
    pub(super) halfmove_clock: u16,
    pub(super) fullmove_number: u16,
}

/// Index step of a pawn push for `color`.
#[inline(always)]
pub(super) const fn pawn_push(color: Color) -> i8 {
    match color {
        Color::White => 8,
        Color::Black => -8,
    }
}

impl Position {
    /// An empty board, White to move: the starting point for the FEN parser.
    pub(super) fn empty() -> Position {
        Position {
            pieces: [Bitboard::EMPTY; 6],
            colors: [Bitboard::EMPTY; 2],
            board: [None; 64],
            key: 0,
            pawn_key: 0,
            non_pawn_keys: [0; 2],
            checkers: Bitboard::EMPTY,
            pinned: Bitboard::EMPTY,
            castling_squares: Bitboard::EMPTY,
            castling_rooks: [Square::H1, Square::A1, Square::H8, Square::A8],
            side: Color::White,
            castling: CastlingRights::NONE,
            en_passant: None,
            halfmove_clock: 0,
            fullmove_number: 1,
        }
    }

    // ----- Queries -----

    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    #[inline(always)]
    pub fn piece_on(&self, square: Square) -> Option<Piece> {
        self.board[square.index()]
    }

    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.colors[0] | self.colors[1]
    }

    #[inline(always)]
    pub fn color_bb(&self, color: Color) -> Bitboard {
        self.colors[color.index()]
    }

    #[inline(always)]
    pub fn type_bb(&self, piece_type: PieceType) -> Bitboard {
        self.pieces[piece_type.index()]
    }

    #[inline(always)]
    pub fn pieces(&self, color: Color, piece_type: PieceType) -> Bitboard {
        self.colors[color.index()] & self.pieces[piece_type.index()]
    }

    /// Bishops and queens of both colours.
    #[inline(always)]
    pub fn diagonal_sliders(&self) -> Bitboard {
        self.pieces[PieceType::Bishop.index()] | self.pieces[PieceType::Queen.index()]
    }

    /// Rooks and queens of both colours.
    #[inline(always)]
    pub fn orthogonal_sliders(&self) -> Bitboard {
        self.pieces[PieceType::Rook.index()] | self.pieces[PieceType::Queen.index()]
    }

    #[inline(always)]
    pub fn king_square(&self, color: Color) -> Square {
        self.pieces(color, PieceType::King).lsb()
    }

    #[inline(always)]
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }

    #[inline(always)]
    pub fn in_check(&self) -> bool {
        self.checkers.non_empty()
    }

    #[inline(always)]
    pub fn pinned(&self) -> Bitboard {
        self.pinned
    }

    #[inline(always)]
    pub fn castling_rights(&self) -> CastlingRights {
        self.castling
    }

    /// The rook that castles on `side` for `color`, while that right is held.
    #[inline]
    pub fn castling_rook(&self, color: Color, side: CastleSide) -> Option<Square> {
        self.castling
            .has(color, side)
            .then(|| self.castling_rooks[CastlingRights::index(color, side)])
    }

    #[inline(always)]
    pub fn en_passant(&self) -> Option<Square> {
        self.en_passant
    }

    #[inline(always)]
    pub fn halfmove_clock(&self) -> u16 {
        self.halfmove_clock
    }

    #[inline(always)]
    pub fn fullmove_number(&self) -> u16 {
        self.fullmove_number
    }

    /// Zobrist key of placement, side to move, castling rights and capturable en-passant square.
    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// Zobrist key of the pawns alone.
    #[inline(always)]
    pub fn pawn_key(&self) -> u64 {
        self.pawn_key
    }

    /// Zobrist key of `color`'s pieces other than pawns (king included).
    #[inline(always)]
    pub fn non_pawn_key(&self, color: Color) -> u64 {
        self.non_pawn_keys[color.index()]
    }

    /// Pieces of both colours attacking `square`, with `occupied` as the blockers.
    #[inline]
    pub fn attackers_to(&self, square: Square, occupied: Bitboard) -> Bitboard {
        (pawn_attacks(Color::White, square) & self.pieces(Color::Black, PieceType::Pawn))
            | (pawn_attacks(Color::Black, square) & self.pieces(Color::White, PieceType::Pawn))
            | (knight_attacks(square) & self.pieces[PieceType::Knight.index()])
            | (king_attacks(square) & self.pieces[PieceType::King.index()])
            | (bishop_attacks(square, occupied) & self.diagonal_sliders())
            | (rook_attacks(square, occupied) & self.orthogonal_sliders())
    }

    /// Whether `by` attacks `square`, with `occupied` as the blockers.
    #[inline]
    pub fn is_attacked_by(&self, square: Square, by: Color, occupied: Bitboard) -> bool {
        let theirs = self.colors[by.index()];
        (knight_attacks(square) & theirs & self.pieces[PieceType::Knight.index()]).non_empty()
            || (pawn_attacks(!by, square) & theirs & self.pieces[PieceType::Pawn.index()])
                .non_empty()
            || (king_attacks(square) & theirs & self.pieces[PieceType::King.index()]).non_empty()
            || (bishop_attacks(square, occupied) & theirs & self.diagonal_sliders()).non_empty()
            || (rook_attacks(square, occupied) & theirs & self.orthogonal_sliders()).non_empty()
    }

    /// Whether the side to move may capture en passant from `from` onto `target` without
    /// leaving its king attacked (the captured pawn may have been screening a slider, also
    /// along the rank).
    #[inline]
    pub(super) fn en_passant_is_legal(&self, from: Square, target: Square) -> bool {
        let us = self.side;
        let captured = target.offset(-pawn_push(us));
        let occupied = (self.occupied() ^ from.bb() ^ captured.bb()) | target.bb();
        let attackers = self.attackers_to(self.king_square(us), occupied)
            & self.colors[(!us).index()]
            & !captured.bb();
        attackers.is_empty()
    }

    /// Whether the side to move has no mating material at all and neither has its opponent:
    /// K v K, K v K+B, K v K+N, and K+B v K+B with bishops on same-coloured squares.
    pub fn is_insufficient_material(&self) -> bool {
        let heavy = self.pieces[PieceType::Pawn.index()]
            | self.pieces[PieceType::Rook.index()]
            | self.pieces[PieceType::Queen.index()];
        if heavy.non_empty() {
            return false;
        }
        let knights = self.pieces[PieceType::Knight.index()];
        let bishops = self.pieces[PieceType::Bishop.index()];
        let minors = (knights | bishops).count();
        if minors <= 1 {
            return true;
        }
        // K+B v K+B, one bishop each, on squares of the same colour.
        minors == 2
            && knights.is_empty()
            && self.pieces(Color::White, PieceType::Bishop).count() == 1
            && ((bishops & Bitboard::LIGHT_SQUARES).is_empty()
                || (bishops & !Bitboard::LIGHT_SQUARES).is_empty())
    }

    /// The piece type `mv` captures, if any (castling "captures" its own rook: not a capture).
    #[inline(always)]
    pub fn captured_type(&self, mv: Move) -> Option<PieceType> {
        match mv.kind() {
            MoveKind::Castling => None,
            MoveKind::EnPassant => Some(PieceType::Pawn),
            _ => self.board[mv.to().index()].map(|p| p.piece_type()),
        }
    }

    /// Captures and promotions.
    #[inline(always)]
    pub fn is_noisy(&self, mv: Move) -> bool {
        mv.kind() == MoveKind::Promotion || self.captured_type(mv).is_some()
    }

    /// Whether `mv` (legal here) checks the opponent, directly or by discovery. To ask
    /// about many moves of one position, make its [`Checks`] once.
    pub fn gives_check(&self, mv: Move) -> bool {
        Checks::new(self).gives_check(self, mv)
    }

    /// Whether `color` has any piece besides its king and pawns.
    pub fn has_non_pawn_material(&self, color: Color) -> bool {
        (self.colors[color.index()]
            & !(self.pieces[PieceType::Pawn.index()] | self.pieces[PieceType::King.index()]))
        .non_empty()
    }

    // ----- Changing the position -----

    #[inline(always)]
    pub(super) fn put_piece(&mut self, piece: Piece, square: Square) {
        let bit = square.bb();
        self.pieces[piece.piece_type().index()] |= bit;
        self.colors[piece.color().index()] |= bit;
        self.board[square.index()] = Some(piece);
        self.toggle_keys(piece, zobrist::piece_square(piece, square));
    }

    #[inline(always)]
    fn remove_piece(&mut self, square: Square) -> Option<Piece> {
        let piece = self.board[square.index()].take()?;
        let bit = square.bb();
        self.pieces[piece.piece_type().index()] ^= bit;
        self.colors[piece.color().index()] ^= bit;
        self.toggle_keys(piece, zobrist::piece_square(piece, square));
        Some(piece)
    }

    #[inline(always)]
    fn move_piece(&mut self, piece: Piece, from: Square, to: Square) {
        let bits = from.bb() | to.bb();
        self.pieces[piece.piece_type().index()] ^= bits;
        self.colors[piece.color().index()] ^= bits;
        self.board[from.index()] = None;
        self.board[to.index()] = Some(piece);
        self.toggle_keys(
            piece,
            zobrist::piece_square(piece, from) ^ zobrist::piece_square(piece, to),
        );
    }

    /// Xors `key` (of squares of `piece`) into the position's key and into the pawn key or
    /// its side's non-pawn key.
    #[inline(always)]
    fn toggle_keys(&mut self, piece: Piece, key: u64) {
        self.key ^= key;
        if piece.piece_type() == PieceType::Pawn {
            self.pawn_key ^= key;
        } else {
            self.non_pawn_keys[piece.color().index()] ^= key;
        }
    }

    #[inline(always)]
    fn set_castling(&mut self, rights: CastlingRights) {
        self.key ^= zobrist::castling(self.castling) ^ zobrist::castling(rights);
        self.castling = rights;
        self.castling_squares = self.compute_castling_squares();
    }

    pub(super) fn compute_castling_squares(&self) -> Bitboard {
        let mut squares = Bitboard::EMPTY;
        for color in Color::BOTH {
            for side in CastleSide::BOTH {
                if let Some(rook) = self.castling_rook(color, side) {
                    squares |= rook.bb() | self.pieces(color, PieceType::King);
                }
            }
        }
        squares
    }

    /// Drops the rights that a move touching `from` and `to` loses.
    #[inline]
    fn update_castling_rights(&mut self, from: Square, to: Square) {
        let touched = from.bb() | to.bb();
        if (touched & self.castling_squares).is_empty() {
            return;
        }
        let mut rights = self.castling;
        for color in Color::BOTH {
            let king_touched = (touched & self.pieces(color, PieceType::King)).non_empty();
            for side in CastleSide::BOTH {
                if let Some(rook) = self.castling_rook(color, side)
                    && (king_touched || touched.contains(rook))
                {
                    rights.remove(color, side);
                }
            }
        }
        self.set_castling(rights);
    }

    /// Plays `mv`, which must be legal in this position.
    pub fn make_move(&mut self, mv: Move) {
        let us = self.side;
        let from = mv.from();
        let to = mv.to();
        let Some(moved) = self.board[from.index()] else {
            debug_assert!(false, "make_move {mv:?} from an empty square");
            return;
        };

        self.halfmove_clock = self.halfmove_clock.saturating_add(1);
        if us == Color::Black {
            self.fullmove_number = self.fullmove_number.saturating_add(1);
        }
        if let Some(square) = self.en_passant.take() {
            self.key ^= zobrist::en_passant(square);
        }
        self.update_castling_rights(from, to);

        let mut double_push_target = None;
        match mv.kind() {
            MoveKind::Castling => {
                let side = CastleSide::of_rook(from, to);
                let rook = self.remove_piece(to);
                self.remove_piece(from);
                self.put_piece(moved, side.king_destination(us));
                if let Some(rook) = rook {
                    self.put_piece(rook, side.rook_destination(us));
                }
            }
            kind => {
                let captured_square =
                    if kind == MoveKind::EnPassant { to.offset(-pawn_push(us)) } else { to };
                if self.remove_piece(captured_square).is_some() {
                    self.halfmove_clock = 0;
                }
                if let Some(promoted) = mv.promotion_type() {
                    self.remove_piece(from);
                    self.put_piece(Piece::new(us, promoted), to);
                } else {
                    self.move_piece(moved, from, to);
                }
                if moved.piece_type() == PieceType::Pawn {
                    self.halfmove_clock = 0;
                    if from.index().abs_diff(to.index()) == 16 {
                        double_push_target = Some(from.offset(pawn_push(us)));
                    }
                }
            }
        }

        self.side = !us;
        self.key ^= zobrist::side();
        self.update_check_info();

        // The en-passant square counts only if the opponent can really capture there.
        if let Some(target) = double_push_target {
            let capturers = pawn_attacks(us, target) & self.pieces(!us, PieceType::Pawn);
            if capturers.into_iter().any(|from| self.en_passant_is_legal(from, target)) {
                self.en_passant = Some(target);
                self.key ^= zobrist::en_passant(target);
            }
        }
    }

    /// Passes the move to the opponent (for null-move pruning); not legal when in check.
    pub fn make_null_move(&mut self) {
        if let Some(square) = self.en_passant.take() {
            self.key ^= zobrist::en_passant(square);
        }
        self.halfmove_clock = self.halfmove_clock.saturating_add(1);
        self.side = !self.side;
        self.key ^= zobrist::side();
        self.update_check_info();
    }

    /// Recomputes `checkers` and `pinned` for the side to move.
    pub(super) fn update_check_info(&mut self) {
        let us = self.side;
        let them = self.colors[(!us).index()];
        let king = self.king_square(us);
        let occupied = self.occupied();
        self.checkers = self.attackers_to(king, occupied) & them;
        self.pinned = self.lone_blockers(king, !us) & self.colors[us.index()];
    }

    /// Pieces of either colour that alone stand between `king` and a slider of `snipers`
    /// aiming at it: the pins of the king's side, or the discovered-check candidates of
    /// `snipers`.
    #[inline(always)]
    pub(super) fn lone_blockers(&self, king: Square, snipers: Color) -> Bitboard {
        let occupied = self.occupied();
        let aiming = ((rook_attacks(king, Bitboard::EMPTY) & self.orthogonal_sliders())
            | (bishop_attacks(king, Bitboard::EMPTY) & self.diagonal_sliders()))
            & self.colors[snipers.index()];
        let mut blockers = Bitboard::EMPTY;
        for sniper in aiming {
            let in_between = between(king, sniper) & occupied;
            if !in_between.more_than_one() {
                blockers |= in_between;
            }
        }
        blockers
    }

    /// The non-pawn keys computed from scratch, for setting up and for checking the incremental
    /// ones.
    pub fn compute_non_pawn_keys(&self) -> [u64; 2] {
        let mut keys = [0; 2];
        for square in self.occupied() {
            if let Some(piece) = self.piece_on(square)
                && piece.piece_type() != PieceType::Pawn
            {
                keys[piece.color().index()] ^= zobrist::piece_square(piece, square);
            }
        }
        keys
    }

    /// The keys computed from scratch, for setting up and for checking the incremental ones.
    pub fn compute_keys(&self) -> (u64, u64) {
        let mut key = 0;
        let mut pawn_key = 0;
        for square in self.occupied() {
            if let Some(piece) = self.piece_on(square) {
                key ^= zobrist::piece_square(piece, square);
                if piece.piece_type() == PieceType::Pawn {
                    pawn_key ^= zobrist::piece_square(piece, square);
                }
            }
        }
        key ^= zobrist::castling(self.castling);
        if let Some(square) = self.en_passant {
            key ^= zobrist::en_passant(square);
        }
        if self.side == Color::Black {
            key ^= zobrist::side();
        }
        (key, pawn_key)
    }
}
