//! Syzygy tablebases: the prober against python-chess's values, and the engine with tables
//! over its UCI pipes (loading and its problems, root moves, table scores, the options).
//!
//! The tables in tests/data/syzygy are all 3- and 4-piece tables (see the README there).

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{Engine, SOON, best_move};
use zwischen::chess::Position;
use zwischen::tablebase::{Tablebases, Wdl};

fn tables_dir() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy").to_string()
}

fn tables() -> Tablebases {
    let (tables, report) = Tablebases::load(&tables_dir());
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    tables
}

/// An engine with the test tables loaded; returns the loading report line.
fn engine_with_tables() -> (Engine, String) {
    let mut e = Engine::start();
    e.send(&format!("setoption name SyzygyPath value {}", tables_dir()));
    let lines = e.sync();
    let report = lines.iter().find(|l| l.contains("Syzygy")).cloned().unwrap_or_default();
    (e, report)
}

/// The last `info depth` line before `bestmove`, and the bestmove line.
fn search(e: &mut Engine, fen: &str, go: &str) -> (String, String) {
    e.send(&format!("position fen {fen}"));
    let (best, infos) = e.go(go);
    let last = infos.iter().rev().find(|l| l.starts_with("info depth")).cloned();
    (last.unwrap_or_default(), best)
}

fn field(info: &str, name: &str) -> Option<i64> {
    let words: Vec<&str> = info.split_whitespace().collect();
    let at = words.iter().position(|w| *w == name)?;
    words.get(at + 1)?.parse().ok()
}

/// A temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!("{name} {}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    fn copy(&self, table: &str) {
        let from = Path::new(&tables_dir()).join(table);
        std::fs::copy(from, self.0.join(table)).unwrap();
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn probes_agree_with_python_chess() {
    // 3000 random positions over every 3-4 piece material (36 with an en-passant capture),
    // labelled by python-chess (scripts/syzygy_vs_python_chess.py --write-reference).
    let tables = tables();
    let reference = include_str!("data/syzygy_reference.txt");
    let mut count = 0;
    for line in reference.lines() {
        let parts: Vec<&str> = line.split(';').collect();
        let pos = Position::from_fen(parts[0]).unwrap();
        let wdl: i32 = parts[1].parse().unwrap();
        let dtz: i32 = parts[2].parse().unwrap();
        assert_eq!(tables.probe_wdl(&pos).map(Wdl::as_number), Some(wdl), "WDL of {}", parts[0]);
        assert_eq!(tables.probe_dtz(&pos), Some(dtz), "DTZ of {}", parts[0]);
        count += 1;
    }
    assert_eq!(count, 3000);
}

#[test]
fn loading_reports_what_it_found() {
    let (mut e, report) = engine_with_tables();
    assert!(report.contains("found 35 WDL and 35 DTZ tables, up to 4 pieces"), "{report}");
    // Off again.
    e.send("setoption name SyzygyPath value <empty>");
    let lines = e.sync();
    assert!(lines.iter().any(|l| l.contains("no tables")), "{lines:?}");
    e.send("setoption name SyzygyPath value");
    let lines = e.sync();
    assert!(lines.iter().any(|l| l.contains("no tables")), "{lines:?}");
}

#[test]
fn bad_paths_are_reported_and_the_engine_keeps_working() {
    let spaced = TempDir::new("zwischen syzygy  spaced");
    spaced.copy("KRvK.rtbw");
    spaced.copy("KRvK.rtbz");
    let broken = TempDir::new("zwischen-syzygy-broken");
    broken.copy("KQvK.rtbw");
    broken.copy("KQvK.rtbz");
    // A truncated download, a file that is no table, a name that is no material.
    let whole = std::fs::read(Path::new(&tables_dir()).join("KQvKR.rtbw")).unwrap();
    std::fs::write(broken.0.join("KQvKR.rtbw"), &whole[..whole.len() / 2]).unwrap();
    std::fs::write(broken.0.join("KQvKR.rtbz"), b"not a table at all").unwrap();
    std::fs::write(broken.0.join("README.rtbw"), &whole).unwrap();
    std::fs::write(broken.0.join("notes.txt"), b"ignored").unwrap();

    let mut e = Engine::start();
    let sep = if cfg!(windows) { ';' } else { ':' };
    e.send(&format!(
        "setoption name SyzygyPath value /no/such/dir{sep}{}{sep}{}",
        spaced.0.display(),
        broken.0.display()
    ));
    let lines = e.sync();
    let text = lines.join("\n");
    assert!(text.contains("error: SyzygyPath: cannot read the directory '/no/such/dir'"), "{text}");
    assert!(text.contains("KQvKR.rtbw' is not a valid table (the size"), "{text}");
    assert!(text.contains("KQvKR.rtbz' is not a valid table (wrong magic"), "{text}");
    assert!(text.contains("README.rtbw' is not a valid table (the name"), "{text}");
    assert!(!text.contains("notes.txt"), "{text}");
    assert!(
        text.contains("found 2 WDL and 2 DTZ tables, up to 3 pieces, in 2 directories"),
        "{text}"
    );

    // The tables that loaded are used (the root of KR v K is probed), the rest is searched.
    let (info, best) = search(&mut e, "8/8/8/2k5/8/8/3RK3/8 w - - 0 1", "depth 4");
    assert!(field(&info, "tbhits").unwrap() > 0, "{info}");
    assert!(field(&info, "cp").unwrap() > 19_000, "{info}");
    assert_ne!(best_move(&best), "(none)");
    // KQ v KR did not load: its root is searched like any other.
    let (info, best) = search(&mut e, "4rk2/8/K7/8/8/7Q/8/8 w - - 0 1", "depth 1");
    assert_eq!(field(&info, "tbhits"), Some(0), "{info}");
    assert!(field(&info, "cp").unwrap() < 5_000, "{info}");
    assert_ne!(best_move(&best), "(none)");
}

/// Positions of the reference sample where most moves would spoil the result.
fn tricky_positions(tables: &Tablebases, count: usize) -> Vec<(Position, Wdl)> {
    let mut found = Vec::new();
    for line in include_str!("data/syzygy_reference.txt").lines() {
        let pos = Position::from_fen(line.split(';').next().unwrap()).unwrap();
        let Some(wdl) = tables.probe_wdl(&pos) else { continue };
        if wdl < Wdl::Draw {
            continue;
        }
        let moves = pos.legal_moves();
        let keeping = moves.iter().filter(|&&mv| keeps(tables, &pos, mv, wdl)).count();
        if moves.len() >= 4 && keeping * 2 <= moves.len() {
            found.push((pos, wdl));
        }
        if found.len() == count {
            break;
        }
    }
    found
}

fn keeps(tables: &Tablebases, pos: &Position, mv: zwischen::chess::Move, wdl: Wdl) -> bool {
    let mut child = *pos;
    child.make_move(mv);
    if !child.has_legal_move() {
        return child.in_check() || wdl == Wdl::Draw;
    }
    tables.probe_wdl(&child).map(Wdl::flip) == Some(wdl)
}

#[test]
fn root_moves_keep_the_result() {
    let tables = tables();
    let positions = tricky_positions(&tables, 30);
    assert_eq!(positions.len(), 30);
    let spoiled = |e: &mut Engine| {
        let mut spoiled = 0;
        for (pos, wdl) in &positions {
            let (_, best) = search(e, &pos.to_fen(), "depth 1");
            let mv = pos.parse_uci_move(best_move(&best), false).unwrap();
            spoiled += !keeps(&tables, pos, mv, *wdl) as usize;
        }
        spoiled
    };
    let (mut with, _) = engine_with_tables();
    assert_eq!(spoiled(&mut with), 0);
    // The same shallow searches without tables do spoil some (the test can fail).
    let mut without = Engine::start();
    assert!(spoiled(&mut without) > 0);
}

#[test]
fn root_ranking_after_a_repetition_and_in_a_loss() {
    let tables = tables();
    let kept = |fen: &str, repeated: bool| {
        let pos = Position::from_fen(fen).unwrap();
        let moves: Vec<_> = pos.legal_moves().iter().copied().collect();
        tables.rank_root_moves(&pos, &moves, repeated, true).unwrap()
    };
    // KR v K: every winning move is kept, until a repetition: then the fastest only.
    let fen = "8/8/8/2k5/8/8/3RK3/8 w - - 0 1";
    let all = kept(fen, false);
    let fastest = kept(fen, true);
    assert!(all.iter().all(|m| m.wdl == Wdl::Win));
    let least = all.iter().map(|m| m.plies).min().unwrap();
    assert!(fastest.iter().all(|m| m.plies == least && all.contains(m)));
    assert!(fastest.len() < all.len());
    // The losing side keeps the longest resistance.
    let losing = kept("8/8/8/2k5/8/8/3RK3/8 b - - 0 1", false);
    let pos = Position::from_fen("8/8/8/2k5/8/8/3RK3/8 b - - 0 1").unwrap();
    assert!(losing.iter().all(|m| m.wdl == Wdl::Loss));
    assert!(losing.len() < pos.legal_moves().len());
    let longest = losing[0].plies;
    assert!(losing.iter().all(|m| m.plies == longest));
}

#[test]
fn table_wins_in_the_search_score_in_the_table_band() {
    let (mut e, _) = engine_with_tables();
    // 5 pieces, not in the tables; taking the pawn reaches a won KQ v KR.
    let fen = "5r2/8/8/4K3/8/8/k2p3Q/8 w - - 0 1";
    let (info, best) = search(&mut e, fen, "depth 6");
    assert_eq!(best_move(&best), "h2d2");
    let cp = field(&info, "cp").expect("a table win is shown in centipawns, not as a mate");
    assert!((19_872..20_000).contains(&cp), "{info}");
    assert!(field(&info, "tbhits").unwrap() > 0, "{info}");
    // Without tables the same search only evaluates.
    let mut plain = Engine::start();
    let (info, _) = search(&mut plain, fen, "depth 6");
    assert!(field(&info, "cp").unwrap() < 5_000, "{info}");
    assert_eq!(field(&info, "tbhits"), Some(0), "{info}");
}

#[test]
fn a_table_win_survives_a_pv_node_whose_moves_are_all_pruned() {
    // Five pieces, so the root is not in the tables. After bxa6 White's K+R v K+P is won,
    // and no White move there captures or gives check: at a shallow PV node the table's win
    // opens the pruning gate and futility prunes every move. That node once counted no move
    // searched as no legal move and called the table win a draw.
    let (mut e, _) = engine_with_tables();
    let fen = "k7/1p6/N7/8/8/3K4/3R4/8 b - - 0 1";
    for depth in [2, 3, 8] {
        e.send("ucinewgame");
        let (info, best) = search(&mut e, fen, &format!("depth {depth} searchmoves b7a6"));
        assert_eq!(best_move(&best), "b7a6");
        let cp = field(&info, "cp").unwrap_or(0);
        assert!((-20_000..-19_872).contains(&cp), "depth {depth}: {info}");
    }
}

#[test]
fn a_mate_found_by_the_search_is_played_and_shown_as_a_mate() {
    let (mut e, _) = engine_with_tables();
    let (info, best) = search(&mut e, "7k/8/6K1/8/8/8/8/1Q6 w - - 0 1", "depth 6");
    assert_eq!(best_move(&best), "b1b8");
    assert!(info.contains("score mate 1 "), "{info}");
    let (info, _) = search(&mut e, "7k/1Q6/6K1/8/8/8/8/8 b - - 0 1", "depth 6");
    assert!(info.contains("score mate -1 "), "{info}");
    // Too far from mate for this search: the table's loss.
    let (info, _) = search(&mut e, "8/8/3k4/8/8/8/8/KQ6 b - - 0 1", "depth 6");
    assert!(info.contains("score cp -19"), "{info}");
}

#[test]
fn the_fifty_move_rule_option_decides_cursed_wins() {
    // KQ v KR, won but 35 plies from zeroing; with the counter at 90 the 50-move rule comes
    // first.
    let fen = "4rk2/8/K7/8/8/7Q/8/8 w - - 90 100";
    let tables = tables();
    let pos = Position::from_fen(fen).unwrap();
    assert_eq!(tables.probe_wdl(&pos), Some(Wdl::Win));
    assert!(tables.probe_dtz(&pos).unwrap() + 90 > 100);
    let (mut e, _) = engine_with_tables();
    let (info, _) = search(&mut e, fen, "depth 4");
    assert!(info.contains("score cp 0 "), "{info}");
    e.send("setoption name Syzygy50MoveRule value false");
    let (info, _) = search(&mut e, fen, "depth 4");
    assert!(field(&info, "cp").unwrap() > 19_000, "{info}");
    // The same position with a fresh counter is a plain win.
    e.send("setoption name Syzygy50MoveRule value true");
    let (info, _) = search(&mut e, "4rk2/8/K7/8/8/7Q/8/8 w - - 0 1", "depth 4");
    assert!(field(&info, "cp").unwrap() > 19_000, "{info}");
}

#[test]
fn a_rounded_dtz_is_read_cautiously_at_the_edge_of_the_fifty_move_rule() {
    // KBN v K: Nf8+ Kh8 Bf6# mates in 3 plies; the table stores the DTZ after Nf8+ rounded
    // (1 for 2). With the counter at 97 the mate comes in time, at 98 the 50-move rule is
    // first: taking the rounded value at its word would call that a win and lose the game.
    let tables = tables();
    let pos = Position::from_fen("8/5K1k/4N3/6B1/8/8/8/8 w - - 0 1").unwrap();
    assert_eq!(tables.probe_dtz(&pos), Some(2));
    let (mut e, _) = engine_with_tables();
    let (info, best) = search(&mut e, "8/5K1k/4N3/6B1/8/8/8/8 w - - 97 50", "depth 8");
    assert!(info.contains("score mate 2 "), "{info}");
    assert_eq!(best_move(&best), "e6f8");
    let (info, _) = search(&mut e, "8/5K1k/4N3/6B1/8/8/8/8 w - - 98 50", "depth 8");
    assert!(info.contains("score cp 0 "), "{info}");
}

#[test]
fn probing_is_off_with_castling_rights_or_probe_limit_0() {
    let (mut e, _) = engine_with_tables();
    let (info, _) = search(&mut e, "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "depth 5");
    assert_eq!(field(&info, "tbhits"), Some(0), "{info}");
    let (info, _) = search(&mut e, "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "depth 5");
    assert!(field(&info, "tbhits").unwrap() > 0, "{info}");
    e.send("setoption name SyzygyProbeLimit value 0");
    let (info, _) = search(&mut e, "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "depth 5");
    assert_eq!(field(&info, "tbhits"), Some(0), "{info}");
}

#[test]
fn threads_multipv_and_ponder_with_tables() {
    let tables = tables();
    let (pos, wdl) = tricky_positions(&tables, 1).remove(0);
    let (mut e, _) = engine_with_tables();
    e.send("setoption name Threads value 2");
    e.send("setoption name MultiPV value 3");
    e.send(&format!("position fen {}", pos.to_fen()));
    let (best, infos) = e.go("depth 6");
    let mv = pos.parse_uci_move(best_move(&best), false).unwrap();
    assert!(keeps(&tables, &pos, mv, wdl));
    // Only the moves that keep the result are searched: every line starts with one.
    for info in infos.iter().filter(|l| l.starts_with("info depth 6 ")) {
        let first = info.split(" pv ").nth(1).unwrap().split_whitespace().next().unwrap();
        let mv = pos.parse_uci_move(first, false).unwrap();
        assert!(keeps(&tables, &pos, mv, wdl), "{info}");
    }
    // Ponder, then ponderhit: one bestmove.
    e.send("go ponder wtime 1000 btime 1000");
    std::thread::sleep(Duration::from_millis(50));
    e.send("ponderhit");
    e.expect_prefix("bestmove", SOON);
    e.expect_silence(Duration::from_millis(200), |l| l.starts_with("bestmove"));
}

/// Tables with KRP v KR (30 MiB, not committed), in the directory `ZWISCHEN_SYZYGY_PATH` names.
fn krpkr_tables() -> Option<String> {
    let dir = std::env::var("ZWISCHEN_SYZYGY_PATH").ok()?;
    Path::new(&dir).join("KRPvKR.rtbw").exists().then_some(dir)
}

/// Run with `cargo test --release -- --ignored` where the KRP v KR tables are.
#[test]
#[ignore = "needs the KRPvKR tables (30 MiB, not committed) in ZWISCHEN_SYZYGY_PATH"]
fn holds_drawn_krp_v_kr_starts() {
    let dir = krpkr_tables().expect("KRPvKR.rtbw in the directory ZWISCHEN_SYZYGY_PATH names");
    let (tables, _) = Tablebases::load(&dir);
    let mut e = Engine::start();
    e.send(&format!("setoption name SyzygyPath value {dir}"));
    e.sync();
    // The drawn starts of tests/data/syzygy_endgames.txt: the rook side to move, where at least
    // three moves lose.
    let starts = include_str!("data/syzygy_endgames.txt");
    let mut checked = 0;
    for fen in starts.lines().filter_map(|l| l.strip_prefix("KRPvKR;")) {
        let pos = Position::from_fen(fen).unwrap();
        assert_eq!(tables.probe_wdl(&pos), Some(Wdl::Draw), "{fen}");
        let (info, best) = search(&mut e, fen, "depth 2");
        let mv = pos.parse_uci_move(best_move(&best), false).unwrap();
        assert!(keeps(&tables, &pos, mv, Wdl::Draw), "{fen}: {best}");
        assert!(info.contains("score cp 0 "), "{info}");
        checked += 1;
    }
    assert_eq!(checked, 10);
}
