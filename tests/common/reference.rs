//! A slow move generator written straight from the rules, for checking the real one:
//! pseudo-legal moves on a plain array board, filtered by "own king not attacked", and
//! castling by its conditions.

use zwischen::chess::{CastleSide, Color, Move, MoveKind, Piece, PieceType, Position, Square};

const DIAGONALS: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
const ORTHOGONALS: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const KNIGHT: [(i8, i8); 8] =
    [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];
const KING: [(i8, i8); 8] = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)];

/// A plain 8x8 array board for the reference code.
type Board = [Option<Piece>; 64];

fn board_of(pos: &Position) -> Board {
    let mut board = [None; 64];
    for sq in Square::all() {
        board[sq.index()] = pos.piece_on(sq);
    }
    board
}

fn step(sq: Square, (df, dr): (i8, i8)) -> Option<Square> {
    let file = sq.file() as i8 + df;
    let rank = sq.rank() as i8 + dr;
    ((0..8).contains(&file) && (0..8).contains(&rank))
        .then(|| Square::from_file_rank(file as u8, rank as u8))
}

/// Whether `by` attacks `target` on `board`, by walking the board.
fn attacked(board: &Board, target: Square, by: Color) -> bool {
    let is = |sq: Square, types: &[PieceType]| {
        board[sq.index()].is_some_and(|p| p.color() == by && types.contains(&p.piece_type()))
    };
    for (deltas, types) in [
        (&DIAGONALS, [PieceType::Bishop, PieceType::Queen]),
        (&ORTHOGONALS, [PieceType::Rook, PieceType::Queen]),
    ] {
        for &d in deltas {
            let mut sq = target;
            while let Some(next) = step(sq, d) {
                if board[next.index()].is_some() {
                    if is(next, &types) {
                        return true;
                    }
                    break;
                }
                sq = next;
            }
        }
    }
    let pawn_dir = if by == Color::White { -1 } else { 1 };
    KNIGHT.iter().any(|&d| step(target, d).is_some_and(|s| is(s, &[PieceType::Knight])))
        || KING.iter().any(|&d| step(target, d).is_some_and(|s| is(s, &[PieceType::King])))
        || [(-1, pawn_dir), (1, pawn_dir)]
            .iter()
            .any(|&d| step(target, d).is_some_and(|s| is(s, &[PieceType::Pawn])))
}

fn king_of(board: &Board, color: Color) -> Square {
    Square::all().find(|s| board[s.index()] == Some(Piece::new(color, PieceType::King))).unwrap()
}

/// Legal moves from the rules. `en_passant` is the square a double step just crossed, if any.
pub fn reference_moves(pos: &Position, en_passant: Option<Square>) -> Vec<Move> {
    let board = board_of(pos);
    let us = pos.side_to_move();
    let mut pseudo = Vec::new();
    for from in Square::all() {
        let Some(piece) = board[from.index()].filter(|p| p.color() == us) else {
            continue;
        };
        let free_or_enemy = |sq: Square| board[sq.index()].is_none_or(|p| p.color() != us);
        match piece.piece_type() {
            PieceType::Pawn => {
                let forward = if us == Color::White { 1 } else { -1 };
                let last_rank = if us == Color::White { 7 } else { 0 };
                let mut add = |to: Square, kind: MoveKind| {
                    if to.rank() == last_rank {
                        for pt in [
                            PieceType::Knight,
                            PieceType::Bishop,
                            PieceType::Rook,
                            PieceType::Queen,
                        ] {
                            pseudo.push(Move::promotion(from, to, pt));
                        }
                    } else {
                        pseudo.push(Move::new(from, to, kind));
                    }
                };
                if let Some(one) = step(from, (0, forward)).filter(|s| board[s.index()].is_none()) {
                    add(one, MoveKind::Normal);
                    let start_rank = if us == Color::White { 1 } else { 6 };
                    if from.rank() == start_rank
                        && let Some(two) =
                            step(one, (0, forward)).filter(|s| board[s.index()].is_none())
                    {
                        add(two, MoveKind::Normal);
                    }
                }
                for df in [-1, 1] {
                    if let Some(to) = step(from, (df, forward)) {
                        if board[to.index()].is_some_and(|p| p.color() != us) {
                            add(to, MoveKind::Normal);
                        } else if Some(to) == en_passant {
                            add(to, MoveKind::EnPassant);
                        }
                    }
                }
            }
            PieceType::Knight | PieceType::King => {
                let deltas: &[(i8, i8)] =
                    if piece.piece_type() == PieceType::Knight { &KNIGHT } else { &KING };
                for &d in deltas {
                    if let Some(to) = step(from, d).filter(|&s| free_or_enemy(s)) {
                        pseudo.push(Move::new(from, to, MoveKind::Normal));
                    }
                }
            }
            slider => {
                let mut deltas = Vec::new();
                if slider != PieceType::Rook {
                    deltas.extend(DIAGONALS);
                }
                if slider != PieceType::Bishop {
                    deltas.extend(ORTHOGONALS);
                }
                for d in deltas {
                    let mut sq = from;
                    while let Some(to) = step(sq, d) {
                        if !free_or_enemy(to) {
                            break;
                        }
                        pseudo.push(Move::new(from, to, MoveKind::Normal));
                        if board[to.index()].is_some() {
                            break;
                        }
                        sq = to;
                    }
                }
            }
        }
    }
    // Keep the moves after which our king is not attacked.
    let mut legal: Vec<Move> = pseudo
        .into_iter()
        .filter(|&mv| {
            let mut after = *pos;
            after.make_move(mv);
            let board = board_of(&after);
            !attacked(&board, king_of(&board, us), !us)
        })
        .collect();
    // Castling, from the rules: king and rook unmoved (the rights), nothing between their
    // start and end squares, king not in check and not passing or landing on an attacked square.
    let king = king_of(&board, us);
    for side in CastleSide::BOTH {
        let Some(rook) = pos.castling_rook(us, side) else {
            continue;
        };
        let king_to = side.king_destination(us);
        let rook_to = side.rook_destination(us);
        let span = |a: Square, b: Square| {
            (a.file().min(b.file())..=a.file().max(b.file()))
                .map(move |f| Square::from_file_rank(f, a.rank()))
        };
        let blocked = span(king, king_to)
            .chain(span(rook, rook_to))
            .any(|s| s != king && s != rook && board[s.index()].is_some());
        let mut without = board;
        without[king.index()] = None;
        without[rook.index()] = None;
        let unsafe_path =
            attacked(&board, king, !us) || span(king, king_to).any(|s| attacked(&without, s, !us));
        if !blocked && !unsafe_path {
            legal.push(Move::new(king, rook, MoveKind::Castling));
        }
    }
    legal
}
