//! The game pack (src/tools/records/pack.rs) on real self-play: round trips against the
//! older game format, its size, and what a corrupt or cut file gives. `zwischen data add` and
//! `verify` on a folder of chunks.

use std::path::{Path, PathBuf};

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use zwischen::tools::data;
use zwischen::tools::records::{Game, games, pack, read_positions};

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// The games of the sample game file (`ZWGAMES1`, 60 games of gen7 self-play at 2500 nodes).
fn old_format_games() -> Vec<Game> {
    let bytes = std::fs::read(sample("selfplay-sample.zg")).unwrap();
    assert_eq!(bytes[..8], games::GAMES_MAGIC);
    let mut reader = &bytes[8..];
    let mut found = Vec::new();
    while let Some(game) = games::read_game(&mut reader).unwrap() {
        found.push(game);
    }
    assert_eq!(found.len(), 60);
    found
}

/// The games of the sample pack (one block of 100 games as datagen wrote it).
fn pack_games() -> (Vec<Game>, usize) {
    let bytes = std::fs::read(sample("selfplay-sample.zwp")).unwrap();
    let mut found = Vec::new();
    let summary = pack::read_pack_bytes(&bytes, "sample", |game| found.push(game.clone()));
    assert!(summary.errors.is_empty(), "{:?}", summary.errors);
    assert_eq!((summary.blocks, summary.games), (1, 100));
    (found, bytes.len())
}

fn pack_file(blocks: &[&[Game]]) -> Vec<u8> {
    let mut bytes = pack::PACK_MAGIC.to_vec();
    for games in blocks {
        bytes.extend_from_slice(&pack::encode_block(games));
    }
    bytes
}

fn read_all(bytes: &[u8]) -> (Vec<Game>, pack::PackSummary) {
    let mut found = Vec::new();
    let summary = pack::read_pack_bytes(bytes, "test.zwp", |game| found.push(game.clone()));
    (found, summary)
}

#[test]
fn real_games_of_the_old_format_survive_the_pack() {
    let games = old_format_games();
    let bytes = pack_file(&[&games]);
    let (decoded, summary) = read_all(&bytes);
    assert!(summary.errors.is_empty(), "{:?}", summary.errors);
    assert_eq!(decoded, games);
    // The training positions (what the trainer reads) are the same, record for record.
    let records =
        |games: &[Game]| games.iter().flat_map(|g| g.training_records()).collect::<Vec<_>>();
    assert_eq!(records(&decoded), records(&games));
    // And back to the old format byte for byte.
    for (game, again) in games.iter().zip(&decoded) {
        assert_eq!(again.to_bytes(), game.to_bytes());
    }
    // These games keep their start as a whole position (32 bytes: the old format has no
    // opening moves), and still take far less than the old format's 4 bytes a ply.
    let plies: usize = games.iter().map(|g| g.plies.len()).sum();
    assert!((bytes.len() as f64) < 2.2 * plies as f64, "{} bytes for {plies} plies", bytes.len());
}

#[test]
fn datagen_packs_take_under_two_and_a_half_bytes_a_training_position() {
    let (games, bytes) = pack_games();
    let positions: usize = games.iter().map(|g| g.training_records().len()).sum();
    let per_position = bytes as f64 / positions as f64;
    assert!(per_position < 2.5, "{per_position:.3} bytes a position");
    // Each game starts from the standard position with datagen's eight random plies, and
    // converts to the old format and back with the same positions, moves and scores.
    for game in &games {
        assert_eq!(game.start, zwischen::chess::Position::startpos());
        assert_eq!(game.opening.len(), 8);
        let old = game.to_bytes();
        let again = games::read_game(&mut &old[..]).unwrap().unwrap();
        assert_eq!(again.start, game.searched_start());
        assert_eq!(again.plies, game.plies);
        assert_eq!(again.training_records(), game.training_records());
    }
    // Encoding is deterministic: the same games give the same block.
    let again = pack_file(&[&games]);
    assert_eq!(again, std::fs::read(sample("selfplay-sample.zwp")).unwrap());
}

#[test]
fn a_corrupt_block_is_named_and_skipped_and_the_rest_is_read() {
    let games = old_format_games();
    let (first, second, third) = (&games[..20], &games[20..40], &games[40..]);
    let bytes = pack_file(&[first, second, third]);
    let second_start = 8 + pack::encode_block(first).len();

    // A byte of the second block's payload flipped: its checksum fails.
    let mut flipped = bytes.clone();
    flipped[second_start + pack::BLOCK_HEADER_BYTES + 100] ^= 0x20;
    let (read, summary) = read_all(&flipped);
    assert_eq!(summary.errors.len(), 1, "{:?}", summary.errors);
    let error = &summary.errors[0];
    assert!(error.contains("test.zwp") && error.contains("block 2 (games 21-40)"), "{error}");
    assert!(error.contains("checksum"), "{error}");
    assert_eq!(read, [first, third].concat());

    // Its length field broken: the reader finds the third block by its mark.
    let mut broken = bytes.clone();
    broken[second_start + 5] ^= 0x7f;
    let (read, summary) = read_all(&broken);
    assert!(!summary.errors.is_empty());
    assert_eq!(read.first(), Some(&first[0]));
    assert_eq!(read.last(), games.last());

    // Garbage between blocks is skipped.
    let mut padded = bytes[..second_start].to_vec();
    padded.extend_from_slice(b"not a block at all");
    padded.extend_from_slice(&bytes[second_start..]);
    let (read, summary) = read_all(&padded);
    assert_eq!(summary.errors.len(), 1, "{:?}", summary.errors);
    assert!(summary.errors[0].contains("18 bytes skipped"), "{}", summary.errors[0]);
    assert_eq!(read, games);

    // The file cut inside the third block: the first two are read, the cut is reported.
    let (read, summary) = read_all(&bytes[..bytes.len() - 10]);
    assert_eq!(read, [first, second].concat());
    assert_eq!(summary.errors.len(), 1);
    assert!(
        summary.errors[0].contains("block 3 (games 41-60): cut short"),
        "{}",
        summary.errors[0]
    );

    // Not a pack at all.
    let (read, summary) = read_all(b"ZWGAMES1 and more");
    assert!(read.is_empty() && summary.errors[0].contains("not a game pack"));
}

#[test]
fn random_damage_never_panics_and_spares_the_untouched_blocks() {
    let games = old_format_games();
    let blocks: Vec<&[Game]> = games.chunks(12).collect();
    let bytes = pack_file(&blocks);
    let mut rng = StdRng::seed_from_u64(46);
    for round in 0..300 {
        let mut damaged = bytes.clone();
        let at = rng.random_range(8..damaged.len());
        match round % 3 {
            0 => damaged[at] = rng.random(),
            1 => damaged.truncate(at),
            _ => damaged
                .splice(at..at, (0..rng.random_range(1..40)).map(|_| rng.random::<u8>()))
                .for_each(drop),
        }
        let (read, summary) = read_all(&damaged);
        // Whatever is read is real games, in order; a change reported or harmless.
        let mut expected = games.iter();
        for game in &read {
            assert!(expected.any(|g| g == game), "round {round}: a game not in the input");
        }
        if read.len() < games.len() {
            assert!(!summary.errors.is_empty(), "round {round}: games lost without an error");
        }
    }
}

#[test]
fn data_add_and_verify_keep_chunks_honest() {
    let dir = std::env::temp_dir().join(format!("zwischen-data-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("generator.zwp");
    std::fs::write(&source, pack_file(&[&old_format_games()])).unwrap();
    let origin =
        data::Origin { build: "abc1234".into(), nodes: 2500, seed: 9, date: "2026-12-05".into() };
    let chunks_dir = dir.join("data");
    let added = data::add(&chunks_dir, &source, &origin).unwrap();
    assert_eq!(added.len(), 1);
    assert_eq!(added[0].file, "2026-12-05-abc1234-n2500-s9.zwp");
    assert_eq!(added[0].games, 60);
    let positions: usize = old_format_games().iter().map(|g| g.training_records().len()).sum();
    assert_eq!(added[0].positions, positions);
    assert_eq!(data::read_manifest(&chunks_dir).unwrap(), added);
    assert!(data::verify(&chunks_dir, |_| {}).unwrap().is_empty());
    // A chunk is never rewritten.
    assert!(data::add(&chunks_dir, &source, &origin).is_err());
    // A damaged chunk and a pack missing from the manifest are both found.
    let chunk = chunks_dir.join(&added[0].file);
    let mut bytes = std::fs::read(&chunk).unwrap();
    bytes[200] ^= 1;
    std::fs::write(&chunk, &bytes).unwrap();
    std::fs::copy(&source, chunks_dir.join("stray.zwp")).unwrap();
    let problems = data::verify(&chunks_dir, |_| {}).unwrap();
    assert!(problems.iter().any(|p| p.contains("sha256")), "{problems:?}");
    assert!(problems.iter().any(|p| p.contains("checksum mismatch")), "{problems:?}");
    assert!(problems.iter().any(|p| p.contains("stray.zwp: not in the manifest")), "{problems:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_trainer_reads_packs_like_any_data_file() {
    let path = sample("selfplay-sample.zwp");
    let mut scores = Vec::new();
    let summary = read_positions(&path, |record| scores.push(record.score)).unwrap();
    let (games, _) = pack_games();
    let expected: Vec<i16> =
        games.iter().flat_map(|g| g.training_records()).map(|r| r.score).collect();
    assert_eq!(scores, expected);
    assert_eq!((summary.games, summary.positions, summary.invalid), (100, expected.len(), 0));
}
