//! Set up any accepted position and search it briefly, with the 3-4 piece Syzygy test tables:
//! no panic, and the move played is legal (or there is none only when the position has no
//! legal move).
#![no_main]

use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use zwischen::chess::Position;
use zwischen::search::{
    self, Limits, SearchJob, Shared, Silent, TablebaseUse, ThreadPool, TranspositionTable,
};
use zwischen::tablebase::Tablebases;

fn tablebases() -> TablebaseUse {
    static TABLES: OnceLock<Arc<Tablebases>> = OnceLock::new();
    let tables = TABLES.get_or_init(|| {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/syzygy");
        Arc::new(Tablebases::load(dir).0)
    });
    TablebaseUse {
        tables: Arc::clone(tables),
        probe_depth: 1,
        probe_limit: 7,
        fifty_move_rule: true,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(root) = Position::from_fen(text) else { return };
    let tt = std::sync::Arc::new(TranspositionTable::new(1).unwrap());
    let mut pool = ThreadPool::new(1);
    let job = SearchJob {
        root,
        history: Vec::new(),
        limits: Limits { nodes: Some(300), ..Limits::default() },
        search_moves: Vec::new(),
        multipv: 1,
        move_overhead_ms: 0,
        strength: None,
        // The 3-4 piece test tables: odd positions with few pieces get probed too.
        tablebases: Some(tablebases()),
    };
    let shared = std::sync::Arc::new(Shared::new());
    let result = search::run(&job, &tt, &shared, &mut pool, &Silent);
    match result.best {
        Some(mv) => assert!(root.legal_moves().contains(mv)),
        None => assert!(root.legal_moves().is_empty()),
    }
});
