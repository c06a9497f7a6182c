//! The evaluation weights in use. Hand-set starting values built from simple shapes
//! (centralisation, advancement); `zwischen tune` rewrites this file with fitted values.

use super::score::{S, s};
use super::weights::Weights;

/// 5 at the four centre squares down to -1 in the corners.
const fn centrality(sq: usize) -> i32 {
    let f = (sq % 8) as i32;
    let r = (sq / 8) as i32;
    6 - ((2 * f - 7).abs() + (2 * r - 7).abs()) / 2
}

const fn table(mg: [i32; 64], eg: [i32; 64]) -> [S; 64] {
    let mut t = [s(0, 0); 64];
    let mut i = 0;
    while i < 64 {
        t[i] = s(mg[i], eg[i]);
        i += 1;
    }
    t
}

const fn pawn_pst() -> [S; 64] {
    let mut mg = [0; 64];
    let mut eg = [0; 64];
    let mut sq = 8;
    while sq < 56 {
        let rank = (sq / 8) as i32;
        let file = (sq % 8) as i32;
        let centre = if file == 3 || file == 4 { 8 } else { 0 };
        mg[sq] = (rank - 1) * 4 + if rank >= 2 && rank <= 4 { centre } else { 0 };
        eg[sq] = (rank - 1) * 8;
        sq += 1;
    }
    table(mg, eg)
}

const fn scaled_centrality(mg_k: i32, mg_c: i32, eg_k: i32, eg_c: i32) -> [S; 64] {
    let mut t = [s(0, 0); 64];
    let mut sq = 0;
    while sq < 64 {
        t[sq] = s(mg_k * centrality(sq) + mg_c, eg_k * centrality(sq) + eg_c);
        sq += 1;
    }
    t
}

const fn rook_pst() -> [S; 64] {
    let mut t = [s(0, 0); 64];
    let mut sq = 0;
    while sq < 64 {
        let file = sq % 8;
        let mg = if sq / 8 == 6 { 15 } else { 0 } + if file == 3 || file == 4 { 5 } else { 0 };
        t[sq] = s(mg, 0);
        sq += 1;
    }
    t
}

const fn king_pst() -> [S; 64] {
    let mut t = [s(0, 0); 64];
    let mut sq = 0;
    while sq < 64 {
        let file = sq % 8;
        let rank = (sq / 8) as i32;
        let mg = match rank {
            0 => {
                if file <= 2 || file >= 6 {
                    20
                } else {
                    0
                }
            }
            1 => -10,
            _ => -30 * rank,
        };
        t[sq] = s(mg, 8 * centrality(sq) - 20);
        sq += 1;
    }
    t
}

const fn mobility<const N: usize>(mid: i32, mg_k: i32, eg_k: i32) -> [S; N] {
    let mut t = [s(0, 0); N];
    let mut i = 0;
    while i < N {
        let d = i as i32 - mid;
        t[i] = s(mg_k * d, eg_k * d);
        i += 1;
    }
    t
}

pub const WEIGHTS: Weights = Weights {
    material: [s(80, 100), s(320, 300), s(330, 320), s(460, 520), s(950, 950), s(0, 0)],
    pst: [
        pawn_pst(),
        scaled_centrality(8, -10, 6, -10),
        scaled_centrality(4, 0, 3, 0),
        rook_pst(),
        scaled_centrality(2, 0, 4, 0),
        king_pst(),
    ],
    knight_mobility: mobility(4, 6, 6),
    bishop_mobility: mobility(6, 5, 5),
    rook_mobility: mobility(7, 3, 5),
    queen_mobility: mobility(13, 2, 3),
    passed_pawn: [
        s(0, 0),
        s(5, 10),
        s(10, 20),
        s(20, 40),
        s(35, 70),
        s(60, 110),
        s(90, 160),
        s(0, 0),
    ],
    passed_own_king_distance: s(0, -8),
    passed_enemy_king_distance: s(0, 10),
    isolated_pawn: s(-10, -15),
    doubled_pawn: s(-10, -20),
    backward_pawn: s(-8, -10),
    supported_pawn: s(8, 6),
    phalanx_pawn: s(6, 4),
    bishop_pair: s(30, 50),
    rook_open_file: s(25, 10),
    rook_semi_open_file: s(12, 6),
    king_shelter: [s(15, 0), s(8, 0), s(0, 0), s(-15, 0)],
    king_attack: [s(0, 0), s(8, 0), s(6, 0), s(10, 0), s(14, 0), s(0, 0)],
    threat_by_pawn: s(40, 30),
    tempo: s(15, 5),
};
