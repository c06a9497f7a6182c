//! Perft speed: move generation plus make-move, bulk-counted at the last ply.
//! Run with `cargo bench --bench perft`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use zwischen::chess::{Position, perft};

const CASES: &[(&str, &str, u32)] = &[
    ("startpos", zwischen::chess::START_FEN, 5),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4),
    // Many promotions and under-promotions on both sides (chessprogramming wiki position 4).
    ("promotions", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 4),
];

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(20);
    for &(name, fen, depth) in CASES {
        let pos = Position::from_fen(fen).unwrap();
        group.throughput(Throughput::Elements(perft(&pos, depth)));
        group.bench_function(format!("{name}_d{depth}"), |b| {
            b.iter(|| perft(black_box(&pos), depth))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_perft);
criterion_main!(benches);
