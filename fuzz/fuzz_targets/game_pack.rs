//! Any bytes read as a game pack: the reader never panics, every game it hands on is legal
//! chess (its moves replay), and the games it reads from whole blocks encode back to them.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zwischen::tools::records::pack;

fuzz_target!(|data: &[u8]| {
    let mut bytes = pack::PACK_MAGIC.to_vec();
    bytes.extend_from_slice(data);
    let mut games = Vec::new();
    let summary = pack::read_pack_bytes(&bytes, "fuzz", |game| games.push(game.clone()));
    assert_eq!(summary.games, games.len());
    for game in &games {
        let mut pos = game.searched_start();
        for &(mv, _) in &game.plies {
            assert!(pos.is_legal(mv));
            pos.make_move(mv);
        }
        let again = pack::encode_block(std::slice::from_ref(game));
        let decoded = pack::decode_payload(&again[pack::BLOCK_HEADER_BYTES..], 1);
        assert_eq!(decoded.ok().as_deref(), Some(std::slice::from_ref(game)));
    }
});
