//! Static evaluation: a hand-written, tapered (middlegame/endgame) sum of weighted terms, and
//! (in [`nnue`]) the neural network, which evaluates unless `Use NNUE` is off or the strength
//! is limited (`UCI_Elo` was calibrated with the hand-written evaluation).
//!
//! The terms are computed once, generically over an [`Accumulator`]: the engine sums them to a
//! score, `eval` breaks them down for the user, and the tuner records them as coefficients.

mod masks;
mod score;
#[rustfmt::skip]
mod tuned;
pub mod nnue;
mod weights;

use std::fmt::Write;

use crate::chess::{
    Bitboard, Color, PieceType, Position, bishop_attacks, king_attacks, knight_attacks,
    pawn_attacks, queen_attacks, rook_attacks,
};
use masks::{adjacent_files, distance, forward_file, passed_mask};
pub use score::S;
pub use weights::{FIELDS, WEIGHT_COUNT, WEIGHTS, Weights};

/// The game phase when all pieces are on the board; 0 is a bare pawn endgame.
pub const MAX_PHASE: i32 = 24;

/// Receives each evaluation term: `count` times `weight` for `color`.
pub trait Accumulator {
    fn add(&mut self, weights: &Weights, weight: &S, color: Color, count: i32);
}

/// Sums the terms, White positive.
struct Total(S);

impl Accumulator for Total {
    #[inline(always)]
    fn add(&mut self, _weights: &Weights, weight: &S, color: Color, count: i32) {
        self.0 += *weight * (count * color.sign());
    }
}

/// Per-weight counts, White minus Black, for tuning.
pub struct Trace {
    pub coefficients: Vec<i32>,
    pub phase: i32,
    /// Endgame scale factor applied, out of `SCALE_NORMAL`.
    pub scale: i32,
}

impl Accumulator for Trace {
    fn add(&mut self, weights: &Weights, weight: &S, color: Color, count: i32) {
        self.coefficients[weights.index_of(weight)] += count * color.sign();
    }
}

pub const SCALE_NORMAL: i32 = 64;

/// Evaluation of `pos` in centipawns from the side to move's point of view.
pub fn evaluate(pos: &Position) -> i32 {
    evaluate_with(pos, &WEIGHTS)
}

/// Like [`evaluate`] with other weights (the tuner's).
pub fn evaluate_with(pos: &Position, weights: &Weights) -> i32 {
    if pos.is_insufficient_material() {
        return 0;
    }
    let mut total = Total(S::default());
    let phase = evaluate_terms(pos, weights, &mut total);
    let white = blend(total.0, phase, endgame_scale(pos, total.0.eg));
    white * pos.side_to_move().sign()
}

/// The terms of `pos` as coefficients of the weights.
pub fn trace(pos: &Position, weights: &Weights) -> Trace {
    let mut trace = Trace { coefficients: vec![0; WEIGHT_COUNT], phase: 0, scale: SCALE_NORMAL };
    trace.phase = evaluate_terms(pos, weights, &mut trace);
    let total = weights
        .as_slice()
        .iter()
        .zip(&trace.coefficients)
        .fold(S::default(), |acc, (w, &c)| acc + *w * c);
    trace.scale = endgame_scale(pos, total.eg);
    trace
}

/// Middlegame and endgame parts mixed by phase; White's view.
#[inline(always)]
pub fn blend(score: S, phase: i32, scale: i32) -> i32 {
    let phase = phase.min(MAX_PHASE);
    let eg = score.eg * scale / SCALE_NORMAL;
    (score.mg * phase + eg * (MAX_PHASE - phase)) / MAX_PHASE
}

/// Endgames where the side ahead has no pawns and at most a minor piece more are hard to win:
/// their endgame score is cut down.
fn endgame_scale(pos: &Position, eg: i32) -> i32 {
    let strong = if eg >= 0 { Color::White } else { Color::Black };
    if pos.pieces(strong, PieceType::Pawn).non_empty() {
        return SCALE_NORMAL;
    }
    let material = |color| {
        3 * (pos.pieces(color, PieceType::Knight) | pos.pieces(color, PieceType::Bishop)).count()
            as i32
            + 5 * pos.pieces(color, PieceType::Rook).count() as i32
            + 9 * pos.pieces(color, PieceType::Queen).count() as i32
    };
    if material(strong) - material(!strong) <= 3 { SCALE_NORMAL / 8 } else { SCALE_NORMAL }
}

/// Squares on ranks strictly ahead of `rank` for `color`.
#[inline(always)]
fn ranks_ahead(color: Color, rank: u8) -> Bitboard {
    match color {
        Color::White if rank < 7 => Bitboard(!0u64 << (8 * (rank + 1))),
        Color::Black if rank > 0 => Bitboard(!0u64 >> (8 * (8 - rank))),
        _ => Bitboard::EMPTY,
    }
}

/// Feeds every term to `acc`; returns the game phase.
fn evaluate_terms<A: Accumulator>(pos: &Position, w: &Weights, acc: &mut A) -> i32 {
    let occupied = pos.occupied();
    let pawn_attack_sets = [
        pos.pieces(Color::White, PieceType::Pawn).pawn_attacks(Color::White),
        pos.pieces(Color::Black, PieceType::Pawn).pawn_attacks(Color::Black),
    ];

    for us in Color::BOTH {
        let them = !us;
        let own_pawns = pos.pieces(us, PieceType::Pawn);
        let enemy_pawns = pos.pieces(them, PieceType::Pawn);
        let mobility_area =
            !(own_pawns | pos.pieces(us, PieceType::King)) & !pawn_attack_sets[them.index()];
        let enemy_king = pos.king_square(them);
        let king_zone = king_attacks(enemy_king) | enemy_king.bb();
        let mut zone_attackers = 0;
        let mut zone_hits = [0; 6];
        let mut minor_attacks = Bitboard::EMPTY;
        let mut rook_attack_set = Bitboard::EMPTY;
        let outpost_ranks = Bitboard::relative_rank(us, 3)
            | Bitboard::relative_rank(us, 4)
            | Bitboard::relative_rank(us, 5);

        for piece_type in [PieceType::Knight, PieceType::Bishop, PieceType::Rook, PieceType::Queen]
        {
            let pt = piece_type.index();
            let pieces = pos.pieces(us, piece_type);
            acc.add(w, &w.material[pt], us, pieces.count() as i32);
            for sq in pieces {
                acc.add(w, &w.pst[pt][sq.relative(us).index()], us, 1);
                let attacks = match piece_type {
                    PieceType::Knight => knight_attacks(sq),
                    PieceType::Bishop => bishop_attacks(sq, occupied),
                    PieceType::Rook => rook_attacks(sq, occupied),
                    _ => queen_attacks(sq, occupied),
                };
                match piece_type {
                    PieceType::Knight | PieceType::Bishop => {
                        minor_attacks |= attacks;
                        // An outpost: defended by a pawn, out of reach of enemy pawns.
                        let safe_from_pawns =
                            (passed_mask(us, sq) & !Bitboard::file(sq.file()) & enemy_pawns)
                                .is_empty();
                        if outpost_ranks.contains(sq)
                            && pawn_attack_sets[us.index()].contains(sq)
                            && safe_from_pawns
                        {
                            let weight = if piece_type == PieceType::Knight {
                                &w.knight_outpost
                            } else {
                                &w.bishop_outpost
                            };
                            acc.add(w, weight, us, 1);
                        }
                    }
                    PieceType::Rook => rook_attack_set |= attacks,
                    _ => {}
                }
                let mobility = (attacks & mobility_area).count() as usize;
                let weight = match piece_type {
                    PieceType::Knight => &w.knight_mobility[mobility],
                    PieceType::Bishop => &w.bishop_mobility[mobility],
                    PieceType::Rook => &w.rook_mobility[mobility],
                    _ => &w.queen_mobility[mobility],
                };
                acc.add(w, weight, us, 1);
                let hits = (attacks & king_zone).count() as i32;
                if hits > 0 {
                    zone_attackers += 1;
                    zone_hits[pt] += hits;
                }
                if piece_type == PieceType::Rook {
                    let file = Bitboard::file(sq.file());
                    if (file & own_pawns).is_empty() {
                        if (file & enemy_pawns).is_empty() {
                            acc.add(w, &w.rook_open_file, us, 1);
                        } else {
                            acc.add(w, &w.rook_semi_open_file, us, 1);
                        }
                    }
                }
            }
        }
        if zone_attackers >= 2 {
            for (weight, &hits) in w.king_attack.iter().zip(&zone_hits).take(5).skip(1) {
                acc.add(w, weight, us, hits);
            }
        }
        if pos.pieces(us, PieceType::Bishop).more_than_one() {
            acc.add(w, &w.bishop_pair, us, 1);
        }

        evaluate_pawns(pos, w, acc, us);

        let king = pos.king_square(us);
        acc.add(w, &w.pst[PieceType::King.index()][king.relative(us).index()], us, 1);
        evaluate_shelter(pos, w, acc, us);

        let targets =
            pos.color_bb(them) & !pos.type_bb(PieceType::Pawn) & !pos.type_bb(PieceType::King);
        let threatened = (pawn_attack_sets[us.index()] & targets).count() as i32;
        acc.add(w, &w.threat_by_pawn, us, threatened);
        for victim in [
            PieceType::Pawn,
            PieceType::Knight,
            PieceType::Bishop,
            PieceType::Rook,
            PieceType::Queen,
        ] {
            let enemies = pos.pieces(them, victim);
            let by_minor = (minor_attacks & enemies).count() as i32;
            let by_rook = (rook_attack_set & enemies).count() as i32;
            acc.add(w, &w.threat_by_minor[victim.index()], us, by_minor);
            acc.add(w, &w.threat_by_rook[victim.index()], us, by_rook);
        }
    }
    acc.add(w, &w.tempo, pos.side_to_move(), 1);

    (pos.type_bb(PieceType::Knight) | pos.type_bb(PieceType::Bishop)).count() as i32
        + 2 * pos.type_bb(PieceType::Rook).count() as i32
        + 4 * pos.type_bb(PieceType::Queen).count() as i32
}

fn evaluate_pawns<A: Accumulator>(pos: &Position, w: &Weights, acc: &mut A, us: Color) {
    let them = !us;
    let own_pawns = pos.pieces(us, PieceType::Pawn);
    let enemy_pawns = pos.pieces(them, PieceType::Pawn);
    let own_king = pos.king_square(us);
    let enemy_king = pos.king_square(them);
    let pawn = PieceType::Pawn.index();
    acc.add(w, &w.material[pawn], us, own_pawns.count() as i32);

    for sq in own_pawns {
        let relative = sq.relative(us);
        acc.add(w, &w.pst[pawn][relative.index()], us, 1);
        let adjacent = adjacent_files(sq.file());
        let stop = sq.offset(if us == Color::White { 8 } else { -8 });

        let isolated = (own_pawns & adjacent).is_empty();
        if isolated {
            acc.add(w, &w.isolated_pawn, us, 1);
        }
        if (forward_file(us, sq) & own_pawns).non_empty() {
            acc.add(w, &w.doubled_pawn, us, 1);
        }
        let supported = (pawn_attacks(them, sq) & own_pawns).non_empty();
        if supported {
            acc.add(w, &w.supported_pawn, us, 1);
        }
        if (own_pawns & adjacent & Bitboard::rank(sq.rank())).non_empty() {
            acc.add(w, &w.phalanx_pawn, us, 1);
        }
        // Backward: no own pawn level with or behind it on the neighbouring files, and the
        // square in front is held by an enemy pawn.
        let helpers = own_pawns & adjacent & !passed_mask(us, sq);
        if !isolated && helpers.is_empty() && (pawn_attacks(us, stop) & enemy_pawns).non_empty() {
            acc.add(w, &w.backward_pawn, us, 1);
        }
        if (passed_mask(us, sq) & enemy_pawns).is_empty() {
            acc.add(w, &w.passed_pawn[relative.rank() as usize], us, 1);
            if pos.piece_on(stop).is_none() {
                acc.add(w, &w.passed_unblocked[relative.rank() as usize], us, 1);
            }
            acc.add(w, &w.passed_own_king_distance, us, distance(own_king, stop));
            acc.add(w, &w.passed_enemy_king_distance, us, distance(enemy_king, stop));
        }
    }
}

fn evaluate_shelter<A: Accumulator>(pos: &Position, w: &Weights, acc: &mut A, us: Color) {
    let king = pos.king_square(us);
    let own_pawns = pos.pieces(us, PieceType::Pawn) & ranks_ahead(us, king.rank());
    let king_rank = king.relative(us).rank();
    let first = king.file().saturating_sub(1);
    let last = (king.file() + 1).min(7);
    for file in first..=last {
        let on_file = own_pawns & Bitboard::file(file);
        let slot = if on_file.is_empty() {
            3
        } else {
            let nearest = if us == Color::White { on_file.lsb() } else { on_file.msb() };
            match nearest.relative(us).rank() - king_rank {
                1 => 0,
                2 => 1,
                _ => 2,
            }
        };
        acc.add(w, &w.king_shelter[slot], us, 1);
    }
}

/// Collects the terms per weight field and colour, for the `eval` command.
struct Breakdown(Vec<[S; 2]>);

impl Accumulator for Breakdown {
    fn add(&mut self, weights: &Weights, weight: &S, color: Color, count: i32) {
        let (name, _) = Weights::name_of(weights.index_of(weight));
        if let Some(field) = FIELDS.iter().position(|f| f.0 == name) {
            self.0[field][color.index()] += *weight * count;
        }
    }
}

/// A table of the evaluation terms of `pos`, for people.
pub fn describe(pos: &Position) -> String {
    let mut out = String::new();
    let mut breakdown = Breakdown(vec![[S::default(); 2]; FIELDS.len()]);
    let phase = evaluate_terms(pos, &WEIGHTS, &mut breakdown);
    let _ = writeln!(
        out,
        "{:>27} | {:>11} | {:>11} | {:>11}",
        "term", "white mg eg", "black mg eg", "total mg eg"
    );
    let mut total = S::default();
    for (i, &(name, _, _)) in FIELDS.iter().enumerate() {
        let [white, black] = breakdown.0[i];
        let net = white - black;
        total += net;
        let _ = writeln!(
            out,
            "{name:>27} | {:>5} {:>5} | {:>5} {:>5} | {:>5} {:>5}",
            white.mg, white.eg, black.mg, black.eg, net.mg, net.eg
        );
    }
    let scale = endgame_scale(pos, total.eg);
    let _ = writeln!(out, "phase {phase}/{MAX_PHASE}, endgame scale {scale}/{SCALE_NORMAL}");
    if pos.is_insufficient_material() {
        let _ = writeln!(out, "insufficient material: dead draw, evaluation 0");
    }
    let white = if pos.is_insufficient_material() { 0 } else { blend(total, phase, scale) };
    let _ = writeln!(
        out,
        "final evaluation: {white} cp (White's view), {} cp (side to move)",
        evaluate(pos)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(fen: &str) -> i32 {
        evaluate(&Position::from_fen(fen).unwrap())
    }

    #[test]
    fn symmetric_positions_differ_only_by_tempo() {
        let tempo = blend(WEIGHTS.tempo, MAX_PHASE, SCALE_NORMAL);
        assert_eq!(eval(crate::chess::START_FEN), tempo);
        // Mirrored colours give the same score for the side to move.
        let a = eval("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
        let b = eval("rnbqkb1r/pppp1ppp/5n2/4p3/4P3/2N5/PPPP1PPP/R1BQKBNR b KQkq - 2 3");
        assert_eq!(a, b);
    }

    #[test]
    fn dead_positions_are_zero() {
        for fen in [
            "8/8/4k3/8/8/3K4/8/8 w - - 0 1",
            "8/8/4k3/8/8/3K4/5B2/8 b - - 0 1",
            "8/3n4/4k3/8/8/3K4/8/8 w - - 0 1",
            "8/2b5/4k3/8/8/3K4/3B4/8 w - - 0 1",
        ] {
            assert_eq!(eval(fen), 0, "{fen}");
        }
        // Bishops on opposite colours are not a dead position.
        assert!(
            !Position::from_fen("8/3b4/4k3/8/8/3K4/3B4/8 w - - 0 1")
                .unwrap()
                .is_insufficient_material()
        );
    }

    #[test]
    fn material_matters() {
        assert!(eval("4k3/8/8/8/8/8/8/3QK3 w - - 0 1") > 700);
        assert!(eval("4k3/8/8/8/8/8/8/3QK3 b - - 0 1") < -700);
    }

    #[test]
    fn trace_reproduces_evaluation() {
        for fen in [
            crate::chess::START_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/5k2/8/3P4/8/8/8/3NK3 b - - 0 1",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let t = trace(&pos, &WEIGHTS);
            let sum = WEIGHTS
                .as_slice()
                .iter()
                .zip(&t.coefficients)
                .fold(S::default(), |a, (w, &c)| a + *w * c);
            assert_eq!(blend(sum, t.phase, t.scale) * pos.side_to_move().sign(), evaluate(&pos));
        }
    }
}
