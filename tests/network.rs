//! The network's inference: incremental accumulators equal fresh ones, colour symmetry, and
//! the SIMD output layer equal to the portable one.

mod common;

use common::starts::STARTS;
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use zwischen::chess::Position;
use zwischen::eval::{self, AccumulatorStack, HIDDEN, simd};

/// A random net with 8 mirrored king buckets and 8 output buckets (the shape of the nets to
/// come), as the engine loads it.
fn bucketed_net() -> eval::Network {
    use zwischen::tools::train::{Architecture, Network as FloatNet, king_layout};
    let buckets = eval::file::Buckets { output: 8, ..king_layout(8).unwrap() };
    let architecture = Architecture { hidden: HIDDEN, buckets, factoriser: true };
    let float = FloatNet::with_architecture(architecture, 21);
    eval::Network::from_quantised(&float.quantise(), 0)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Along random games (castling, en passant, promotions, Chess960 and null moves among
    /// them) the lazily updated accumulators always equal ones computed from scratch, however
    /// many plies an update spans, for the embedded net and for a net with king buckets
    /// (whose king moves rebuild from the refresh cache).
    #[test]
    fn incremental_accumulators_equal_a_refresh(start in 0usize..STARTS.len(), choices in prop::collection::vec(any::<u16>(), 0..120), bucketed in any::<bool>()) {
        let net = if bucketed { std::sync::Arc::new(bucketed_net()) } else { eval::current() };
        let mut pos = Position::from_fen(STARTS[start]).unwrap();
        let mut stack = AccumulatorStack::new(choices.len() + 2);
        stack.reset(&net, &pos);
        for (ply, &choice) in choices.iter().enumerate() {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let parent = pos;
            if choice % 17 == 0 && !pos.in_check() {
                stack.push(&net, ply, &parent, None);
                pos.make_null_move();
            } else {
                let mv = moves.as_slice()[choice as usize % moves.len()];
                stack.push(&net, ply, &parent, Some(mv));
                pos.make_move(mv);
            }
            if choice % 3 == 0 {
                prop_assert_eq!(stack.accumulators(&net, ply + 1, &pos), net.refresh(&pos), "{}", pos.to_fen());
                prop_assert_eq!(stack.evaluate(&net, ply + 1, &pos), net.evaluate(&pos));
            }
        }
    }
}

/// King moves across the mirror line and between buckets, back and forth, so that the
/// refresh cache is both filled and reused: every ply equals a refresh.
#[test]
fn king_moves_between_buckets_rebuild_from_the_cache() {
    let net = bucketed_net();
    let start = "4k3/pp3rpp/8/8/8/8/PPR3PP/4K3 w - - 0 1";
    let line = [
        "e1d1", "e8d8", "d1e1", "d8e8", "e1e2", "e8e7", "e2d3", "e7d6", "d3e2", "d6e7", "e2e1",
        "e7e8", "e1d1", "e8e7",
    ];
    let mut pos = Position::from_fen(start).unwrap();
    let mut stack = AccumulatorStack::new(line.len() + 1);
    stack.reset(&net, &pos);
    for (ply, text) in line.iter().enumerate() {
        let mv = pos.parse_uci_move(text, false).unwrap();
        stack.push(&net, ply, &pos, Some(mv));
        pos.make_move(mv);
        assert_eq!(stack.accumulators(&net, ply + 1, &pos), net.refresh(&pos), "after {text}");
        assert_eq!(stack.evaluate(&net, ply + 1, &pos), net.evaluate(&pos));
    }
}

/// A net file's output scale is how the engine reads the output: the embedded net at scale
/// 200 evaluates every position to half of what it does at the trainer's 400 (up to the
/// rounding of the division), and the engine names it by its hash and the scale where that is
/// not 400. Scales past 4 x 400 are refused. (The embedded net has a scale of its own.)
#[test]
fn the_output_scale_of_the_file_scales_the_evaluation() {
    let embedded = include_bytes!("../src/eval/zwischen.nnue");
    let full = eval::Network::from_bytes(&with_scale(embedded, 400)).unwrap();
    let half = eval::Network::from_bytes(&with_scale(embedded, 200)).unwrap();
    assert_eq!(half.hash, full.hash);
    assert_eq!(half.identity(), format!("{:016x}, output scale 200", full.hash));
    assert_eq!(full.identity(), format!("{:016x}", full.hash));
    for fen in STARTS {
        let pos = Position::from_fen(fen).unwrap();
        let (a, b) = (full.evaluate(&pos), half.evaluate(&pos));
        assert!((2 * b - a).abs() <= 2, "{fen}: {a} and {b}");
    }
    assert!(eval::Network::from_bytes(&with_scale(embedded, 1601)).is_err());
}

/// A copy of the net file `bytes` with the output scale `scale` in its header.
fn with_scale(bytes: &[u8], scale: u32) -> Vec<u8> {
    let mut copy = bytes.to_vec();
    let at = eval::file::SCALE_OFFSET;
    copy[at..at + 4].copy_from_slice(&scale.to_le_bytes());
    copy
}

/// The same position with colours swapped: board flipped top to bottom, piece colours and the
/// side to move exchanged, castling and en-passant fields mirrored.
fn colour_flipped(fen: &str) -> String {
    let fields: Vec<&str> = fen.split_whitespace().collect();
    let swap_case = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() }
            })
            .collect()
    };
    let board: Vec<String> = fields[0].split('/').rev().map(swap_case).collect();
    let side = if fields[1] == "w" { "b" } else { "w" };
    let castling = if fields[2] == "-" { "-".to_string() } else { swap_case(fields[2]) };
    let en_passant = match fields[3] {
        "-" => "-".to_string(),
        sq => format!("{}{}", &sq[..1], if &sq[1..] == "3" { "6" } else { "3" }),
    };
    format!("{} {side} {castling} {en_passant} {} {}", board.join("/"), fields[4], fields[5])
}

#[test]
fn colour_flipped_positions_evaluate_the_same() {
    let mut rng = StdRng::seed_from_u64(7);
    let mut checked = 0;
    for (index, start) in STARTS.iter().enumerate() {
        let net =
            if index % 2 == 0 { eval::current() } else { std::sync::Arc::new(bucketed_net()) };
        let mut pos = Position::from_fen(start).unwrap();
        for _ in 0..60 {
            let flipped = Position::from_fen(&colour_flipped(&pos.to_fen())).unwrap();
            assert_eq!(net.evaluate(&pos), net.evaluate(&flipped), "{}", pos.to_fen());
            checked += 1;
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.make_move(moves.as_slice()[rng.random_range(0..moves.len())]);
        }
    }
    assert!(checked > 200);
}

#[test]
fn simd_output_equals_the_portable_loop() {
    let mut rng = StdRng::seed_from_u64(11);
    let net = eval::current();
    for round in 0..2000 {
        let mut us = [0i16; HIDDEN];
        let mut them = [0i16; HIDDEN];
        let mut weights = vec![0i16; 2 * HIDDEN];
        // Mostly values of the size real accumulators and weights have, sometimes any i16.
        let wide = round % 4 == 0;
        for v in us.iter_mut().chain(them.iter_mut()) {
            *v = if wide { rng.random() } else { rng.random_range(-600..600) };
        }
        for w in weights.iter_mut() {
            *w = if wide { rng.random() } else { rng.random_range(-127..=127) };
        }
        let portable = simd::scalar::screlu_output(&us, &them, &weights);
        assert_eq!(simd::screlu_output(&us, &them, &weights), portable);
        // Each kernel the build has, also those the dispatch above passes over.
        #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
        // SAFETY: the build targets a CPU with AVX2.
        assert_eq!(unsafe { simd::avx2::screlu_output(&us, &them, &weights) }, portable);
        #[cfg(all(target_arch = "x86_64", target_feature = "avx512bw"))]
        // SAFETY: the build targets a CPU with AVX-512 BW.
        assert_eq!(unsafe { simd::avx512::screlu_output(&us, &them, &weights) }, portable);
    }
    // And on real accumulators with the real output weights.
    let pos = Position::from_fen(STARTS[1]).unwrap();
    let [white, black] = net.refresh(&pos);
    let weights = net.output_weights(0);
    assert_eq!(
        simd::screlu_output(&white.0, &black.0, weights),
        simd::scalar::screlu_output(&white.0, &black.0, weights)
    );
}

/// Positions from random play, each labelled with a material count from White's view.
fn material_dataset(count: usize, seed: u64) -> (zwischen::tools::train::Dataset, Vec<Position>) {
    use zwischen::chess::{Color, PieceType};
    let mut rng = StdRng::seed_from_u64(seed);
    let mut data = zwischen::tools::train::Dataset::default();
    let mut positions = Vec::new();
    while positions.len() < count {
        let mut pos = Position::startpos();
        for _ in 0..rng.random_range(4..120) {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.make_move(moves.as_slice()[rng.random_range(0..moves.len())]);
        }
        let values = [100, 300, 320, 500, 900, 0];
        let material = |color| -> i32 {
            PieceType::ALL
                .iter()
                .map(|&t| values[t.index()] * pos.pieces(color, t).count() as i32)
                .sum()
        };
        let score = (material(Color::White) - material(Color::Black)).clamp(-3000, 3000) as i16;
        let pieces = pos.occupied().map(|sq| (pos.piece_on(sq).unwrap(), sq));
        data.push(pieces, pos.side_to_move(), score, 1);
        positions.push(pos);
    }
    (data, positions)
}

/// The engine's integer network, made from a trained float network, evaluates sampled
/// positions within 3 cp of the float network on average and 12 cp at worst.
#[test]
fn quantised_network_is_close_to_the_float_one() {
    use zwischen::tools::train::{AdamW, Network as FloatNet, Target, Trainer};
    let scores_only = Target { wdl: 0.0, score_scale: eval::SCALE as f32 };
    let (data, _) = material_dataset(4000, 3);
    let (_, positions) = material_dataset(400, 4);
    let network = FloatNet::new(HIDDEN, 1);
    let adam = AdamW::new(network.params().len(), 0.01);
    let mut trainer = Trainer::new(network, adam, 2);
    for epoch in 0..30 {
        let mut order: Vec<u32> = (0..data.len() as u32).collect();
        zwischen::tools::train::data::shuffle(&mut order, &mut StdRng::seed_from_u64(epoch));
        trainer.pass(&data, &order, 128, scores_only, 0.005);
    }
    let float = &trainer.network;
    let engine = eval::Network::from_quantised(&float.quantise(), 0);
    let (mut total, mut worst, mut spread) = (0.0f64, 0.0f64, 0.0f64);
    for pos in &positions {
        let exact = f64::from(float.evaluate(pos));
        let diff = (f64::from(engine.evaluate(pos)) - exact).abs();
        total += diff;
        worst = worst.max(diff);
        spread += exact.abs();
    }
    let mean = total / positions.len() as f64;
    println!(
        "mean |eval| {:.1} cp, mean error {mean:.2} cp, worst {worst:.1} cp",
        spread / positions.len() as f64
    );
    assert!(spread / positions.len() as f64 > 100.0, "the net should have learnt something");
    assert!(mean <= 3.0 && worst <= 12.0, "mean {mean:.2} cp, worst {worst:.1} cp");
}
