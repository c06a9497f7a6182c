//! Syzygy endgame tablebases: loading the table files a `SyzygyPath` names, and probing them
//! for the positions of the engine.
//!
//! The prober is the `shakmaty-syzygy` crate (see the README for why); this module turns a
//! [`Position`] into the crate's position straight from the bitboards (no FEN), keeps the
//! crate's errors and panics away from the search (a failed probe is "not in the tables"), and
//! ranks the root moves of a table position by WDL and DTZ.
//!
//! Layer: it only needs the rules of chess (`chess`); the search uses it.

mod load;

use std::panic::{AssertUnwindSafe, catch_unwind};

use shakmaty::{ByColor, ByRole, CastlingMode, Chess, FromSetup, Setup};
use shakmaty_syzygy::{Dtz, MaybeRounded, Tablebase, Wdl as CrateWdl};

use crate::chess::{Color, Move, PieceType, Position};
pub use load::{LoadError, LoadReport, split_paths};

/// A table result from the side to move's point of view, ordered from worst to best.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Wdl {
    Loss,
    /// Lost, but the winner cannot mate or zero the move counter within the 50-move rule.
    BlessedLoss,
    Draw,
    /// Won, but not within the 50-move rule.
    CursedWin,
    Win,
}

impl Wdl {
    /// The same result from the opponent's point of view.
    pub fn flip(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::BlessedLoss => Wdl::CursedWin,
            Wdl::Draw => Wdl::Draw,
            Wdl::CursedWin => Wdl::BlessedLoss,
            Wdl::Win => Wdl::Loss,
        }
    }

    /// -2 (loss) to 2 (win), as python-chess and the table files number them.
    pub fn as_number(self) -> i32 {
        self as i32 - 2
    }

    /// The game result this stands for: +1 won, 0 drawn, -1 lost. With the 50-move rule,
    /// cursed wins and blessed losses are draws; without it they are wins and losses.
    pub fn outcome(self, fifty_move_rule: bool) -> i32 {
        match self {
            Wdl::Win => 1,
            Wdl::Loss => -1,
            Wdl::Draw => 0,
            Wdl::CursedWin => (!fifty_move_rule) as i32,
            Wdl::BlessedLoss => -((!fifty_move_rule) as i32),
        }
    }
}

impl From<CrateWdl> for Wdl {
    fn from(wdl: CrateWdl) -> Wdl {
        match wdl {
            CrateWdl::Loss => Wdl::Loss,
            CrateWdl::BlessedLoss => Wdl::BlessedLoss,
            CrateWdl::Draw => Wdl::Draw,
            CrateWdl::CursedWin => Wdl::CursedWin,
            CrateWdl::Win => Wdl::Win,
        }
    }
}

/// A set of loaded tables; shared by all search threads (probing only reads).
pub struct Tablebases {
    prober: Tablebase<Chess>,
    /// The most pieces of any WDL table (0 without tables).
    max_pieces: usize,
    wdl_tables: usize,
    dtz_tables: usize,
}

impl std::fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablebases")
            .field("max_pieces", &self.max_pieces)
            .field("wdl_tables", &self.wdl_tables)
            .field("dtz_tables", &self.dtz_tables)
            .finish()
    }
}

/// A root move kept by [`Tablebases::rank_root_moves`], with its table result.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RankedMove {
    pub mv: Move,
    /// The result after this move, for the side to move at the root.
    pub wdl: Wdl,
    /// Plies until the counter is zeroed (or the game ends) with best play, this move
    /// included; 0 when only WDL tables could be read.
    pub plies: u32,
}

impl Tablebases {
    /// No tables: every probe misses.
    pub fn empty() -> Tablebases {
        Tablebases { prober: new_prober(), max_pieces: 0, wdl_tables: 0, dtz_tables: 0 }
    }

    /// The most pieces (kings included) of any loaded WDL table; 0 when none is loaded.
    #[inline(always)]
    pub fn max_pieces(&self) -> usize {
        self.max_pieces
    }

    pub fn wdl_tables(&self) -> usize {
        self.wdl_tables
    }

    pub fn dtz_tables(&self) -> usize {
        self.dtz_tables
    }

    /// Whether `pos` can be looked up at all: few enough pieces and no castling rights.
    #[inline]
    pub fn covers(&self, pos: &Position) -> bool {
        pos.occupied().count() as usize <= self.max_pieces && pos.castling_rights().is_empty()
    }

    /// The WDL value of `pos` as if it had just been reached by a capture or pawn move (the
    /// halfmove clock is taken as 0). `None` when the position is not in the loaded tables.
    pub fn probe_wdl(&self, pos: &Position) -> Option<Wdl> {
        if !self.covers(pos) {
            return None;
        }
        let chess = to_shakmaty(pos)?;
        guarded(|| self.prober.probe_wdl_after_zeroing(&chess).ok()).map(Wdl::from)
    }

    /// The DTZ value of `pos` (ignoring its halfmove clock): plies to the next capture or
    /// pawn move (or mate) with best play, positive when the side to move wins, negative when
    /// it loses, 0 for a draw. `None` when the WDL or DTZ table is missing.
    pub fn probe_dtz(&self, pos: &Position) -> Option<i32> {
        self.probe_dtz_rounded(pos).map(|(dtz, _)| dtz)
    }

    /// The DTZ value, and whether the table stores it rounded: then the true distance may
    /// be one ply longer (tables round where a fresh counter never makes it matter).
    fn probe_dtz_rounded(&self, pos: &Position) -> Option<(i32, bool)> {
        if !self.covers(pos) {
            return None;
        }
        let chess = to_shakmaty(pos)?;
        guarded(|| self.prober.probe_dtz(&chess).ok()).map(|dtz| match dtz {
            MaybeRounded::Precise(Dtz(n)) => (n, false),
            MaybeRounded::Rounded(Dtz(n)) => (n, true),
        })
    }

    /// The root moves (among `moves`) that keep the best result the tables promise, or
    /// `None` when the root is not in the tables or a needed table is missing (then search
    /// all moves normally).
    ///
    /// With DTZ tables, a win counts only where the counter can still be zeroed in time
    /// (unless `fifty_move_rule` is off), so keeping a win keeps it convertible. Among wins all
    /// are kept (the search chooses) unless the game has already repeated a position since
    /// the last capture or pawn move (`repeated`): then only the moves nearest to zeroing
    /// stay, so that shuffling cannot end in a repetition. Among losses only the longest
    /// resistance stays, among draws the best kind (a cursed win over a plain draw over a
    /// blessed loss). With WDL tables alone, moves keep the best WDL.
    pub fn rank_root_moves(
        &self,
        root: &Position,
        moves: &[Move],
        repeated: bool,
        fifty_move_rule: bool,
    ) -> Option<Vec<RankedMove>> {
        if !self.covers(root) || moves.is_empty() {
            return None;
        }
        let ranked = self.rank_by_dtz(root, moves).or_else(|| self.rank_by_wdl(root, moves))?;
        let rank = |m: &RankedMove| -> i64 {
            let plies = m.plies as i64;
            match m.wdl.outcome(fifty_move_rule) {
                1 if repeated => 1_000_000 - plies,
                1 => 1_000_000,
                -1 => -1_000_000 + plies,
                _ if fifty_move_rule => m.wdl.as_number() as i64,
                _ => 0,
            }
        };
        let best = ranked.iter().map(rank).max()?;
        Some(ranked.into_iter().filter(|m| rank(m) == best).collect())
    }

    fn rank_by_dtz(&self, root: &Position, moves: &[Move]) -> Option<Vec<RankedMove>> {
        rank_each(root, moves, |mv, child| {
            if child.halfmove_clock() == 0 {
                let wdl = self.probe_wdl(child)?.flip();
                return Some(RankedMove { mv, wdl, plies: 1 });
            }
            // The child's DTZ is from the opponent's point of view: negative when we win.
            // A rounded value may be a ply short: our win must be in time even then, the
            // opponent's counts as in time already without it (the cautious reading).
            let (dtz, rounded) = self.probe_dtz_rounded(child)?;
            let plies = dtz.unsigned_abs() + 1;
            let clock = child.halfmove_clock() as u32;
            let wdl = match dtz.signum() {
                0 => Wdl::Draw,
                -1 if clock + dtz.unsigned_abs() + rounded as u32 <= 100 => Wdl::Win,
                -1 => Wdl::CursedWin,
                _ if clock + dtz.unsigned_abs() <= 100 => Wdl::Loss,
                _ => Wdl::BlessedLoss,
            };
            Some(RankedMove { mv, wdl, plies })
        })
    }

    fn rank_by_wdl(&self, root: &Position, moves: &[Move]) -> Option<Vec<RankedMove>> {
        rank_each(root, moves, |mv, child| {
            Some(RankedMove { mv, wdl: self.probe_wdl(child)?.flip(), plies: 0 })
        })
    }
}

/// Ranks each root move with `rank` (given the move and the position after it); a move that
/// mates or stalemates is ranked by that result. `None` when any ranking fails.
fn rank_each(
    root: &Position,
    moves: &[Move],
    rank: impl Fn(Move, &Position) -> Option<RankedMove>,
) -> Option<Vec<RankedMove>> {
    moves
        .iter()
        .map(|&mv| {
            let mut child = *root;
            child.make_move(mv);
            if child.has_legal_move() {
                rank(mv, &child)
            } else {
                let wdl = if child.in_check() { Wdl::Win } else { Wdl::Draw };
                Some(RankedMove { mv, wdl, plies: 1 })
            }
        })
        .collect()
}

fn new_prober() -> Tablebase<Chess> {
    // SAFETY: the files are memory-mapped. The crate bounds-checks every read against the
    // mapping, so a short or corrupt file gives errors, not bad reads; what remains is that a
    // table file must not shrink while the engine has it mapped (as with every engine that
    // maps its tables).
    unsafe { Tablebase::with_mmap_filesystem() }
}

/// Runs a probe; a panic inside the crate (a corrupt table) counts as a failed probe.
fn guarded<T>(probe: impl FnOnce() -> Option<T>) -> Option<T> {
    catch_unwind(AssertUnwindSafe(probe)).ok().flatten()
}

/// The crate's position for `pos`, built from the bitboards; `None` with castling rights
/// (tables do not cover them) or if the crate rejects the position.
fn to_shakmaty(pos: &Position) -> Option<Chess> {
    if !pos.castling_rights().is_empty() {
        return None;
    }
    let bits = |pt: PieceType| shakmaty::Bitboard(pos.type_bb(pt).0);
    let by_role = ByRole {
        pawn: bits(PieceType::Pawn),
        knight: bits(PieceType::Knight),
        bishop: bits(PieceType::Bishop),
        rook: bits(PieceType::Rook),
        queen: bits(PieceType::Queen),
        king: bits(PieceType::King),
    };
    let by_color = ByColor {
        white: shakmaty::Bitboard(pos.color_bb(Color::White).0),
        black: shakmaty::Bitboard(pos.color_bb(Color::Black).0),
    };
    let mut setup = Setup::empty();
    setup.board = shakmaty::Board::try_from_bitboards(by_role, by_color).ok()?;
    setup.turn = match pos.side_to_move() {
        Color::White => shakmaty::Color::White,
        Color::Black => shakmaty::Color::Black,
    };
    setup.ep_square = pos.en_passant().map(|sq| shakmaty::Square::new(sq.index() as u32));
    setup.halfmoves = pos.halfmove_clock() as u32;
    // A check no legal move can give (two knights) is still a position our FEN accepts.
    match Chess::from_setup(setup, CastlingMode::Standard) {
        Ok(chess) => Some(chess),
        Err(error) => error.ignore_impossible_check().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversion_keeps_the_position() {
        for fen in [
            "8/8/8/3k4/8/8/2QK4/8 w - - 0 1",
            "8/8/8/3k4/3pP3/8/3K4/8 b - e3 0 1",
            "4k3/8/8/8/8/8/8/R3K2R w - - 12 40",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let chess = to_shakmaty(&pos).unwrap();
            let theirs = shakmaty::fen::Fen::from_position(&chess, shakmaty::EnPassantMode::Legal);
            let ours = pos.to_fen();
            // The fullmove number is not carried over (the tables do not need it).
            let cut = |f: &str| f.rsplit_once(' ').unwrap().0.to_string();
            assert_eq!(cut(&theirs.to_string()), cut(&ours), "{fen}");
        }
        // Double check by two knights cannot arise in a game, but such a position still probes.
        let impossible = Position::from_fen("8/8/8/8/N1N5/3K4/1k6/8 b - - 0 1").unwrap();
        assert!(to_shakmaty(&impossible).is_some());
        let castling = Position::from_fen("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1").unwrap();
        assert!(to_shakmaty(&castling).is_none());
    }

    #[test]
    fn empty_tables_miss_everything() {
        let tables = Tablebases::empty();
        let pos = Position::from_fen("8/8/8/3k4/8/8/2QK4/8 w - - 0 1").unwrap();
        assert_eq!(tables.max_pieces(), 0);
        assert!(!tables.covers(&pos));
        assert_eq!(tables.probe_wdl(&pos), None);
        assert_eq!(tables.probe_dtz(&pos), None);
        let moves: Vec<Move> = pos.legal_moves().iter().copied().collect();
        assert_eq!(tables.rank_root_moves(&pos, &moves, false, true), None);
    }

    #[test]
    fn wdl_order_and_flip() {
        assert!(Wdl::Loss < Wdl::BlessedLoss && Wdl::CursedWin < Wdl::Win);
        for wdl in [Wdl::Loss, Wdl::BlessedLoss, Wdl::Draw, Wdl::CursedWin, Wdl::Win] {
            assert_eq!(wdl.flip().flip(), wdl);
            assert_eq!(wdl.flip().as_number(), -wdl.as_number());
        }
        assert_eq!(Wdl::CursedWin.outcome(true), 0);
        assert_eq!(Wdl::CursedWin.outcome(false), 1);
        assert_eq!(Wdl::BlessedLoss.outcome(false), -1);
    }
}
