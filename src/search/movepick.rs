//! Move ordering, in stages so that a cutoff by an early move saves generating the rest.
//!
//! Order: hash move; captures and queen promotions that do not lose material (most valuable
//! victim first, then capture history); the two killers; the counter-move; quiet moves by
//! history and by the attacks of cheaper enemy pieces they escape or step into; losing
//! captures and under-promotions. In check every evasion is generated and scored at once.
//! Moves from outside the position (hash move, killers, counter-move) are checked with
//! `Position::is_legal` before use.
//!
//! When the search prunes the remaining quiet moves (`skip_quiets`), it may ask for the quiet
//! moves that give check all the same (`keep_quiet_checks`): a quiet check may mate, and no
//! margin on the static evaluation foresees that. For the same reason the quiescence search
//! may ask for the quiet checks that do not lose material after its captures (`quiet_checks`).

use std::mem::MaybeUninit;

use crate::chess::{
    Bitboard, Checks, MAX_MOVES, Move, MoveList, Piece, PieceType, Position, SEE_VALUES, Square,
    bishop_attacks, knight_attacks, rook_attacks,
};

use super::history::History;

const HASH_MOVE: i32 = 1 << 30;
const GOOD_NOISY: i32 = 1 << 26;
const KILLER: i32 = 1 << 24;
const COUNTER: i32 = KILLER - 2;
const BAD_NOISY: i32 = -(1 << 26);
const UNDER_PROMOTION: i32 = -(1 << 28);

/// Ordering scores from here up are hash moves, good captures, killers and counter-moves.
pub const KILLER_FLOOR: i32 = COUNTER;

/// Squares the opponent attacks with pieces worth less than a queen, a rook and a minor piece:
/// a quiet move that takes a piece out of such an attack is ordered earlier, one that puts it
/// there later. Only the order sees this: the score handed to the search (which reduces and
/// prunes quiet moves by it) is the history alone.
#[derive(Copy, Clone, Default)]
struct Threats {
    by_pawn: Bitboard,
    by_minor: Bitboard,
    by_rook: Bitboard,
}

impl Threats {
    fn of(pos: &Position) -> Threats {
        let them = !pos.side_to_move();
        let occupied = pos.occupied();
        let by_pawn = pos.pieces(them, PieceType::Pawn).pawn_attacks(them);
        let mut by_minor = by_pawn;
        for square in pos.pieces(them, PieceType::Knight) {
            by_minor |= knight_attacks(square);
        }
        for square in pos.pieces(them, PieceType::Bishop) {
            by_minor |= bishop_attacks(square, occupied);
        }
        let mut by_rook = by_minor;
        for square in pos.pieces(them, PieceType::Rook) {
            by_rook |= rook_attacks(square, occupied);
        }
        Threats { by_pawn, by_minor, by_rook }
    }

    /// The ordering bonus for moving `piece_type` from `from` to `to`: positive for an escape
    /// from a cheaper attacker, negative for a step into one.
    fn bonus(&self, piece_type: PieceType, from: Square, to: Square) -> i32 {
        let (attacked, value) = match piece_type {
            PieceType::Queen => (self.by_rook, THREAT_QUEEN),
            PieceType::Rook => (self.by_minor, THREAT_ROOK),
            PieceType::Knight | PieceType::Bishop => (self.by_pawn, THREAT_MINOR),
            _ => return 0,
        };
        value * (attacked.contains(from) as i32 - attacked.contains(to) as i32)
    }
}

/// The threat bonuses, on the scale of the histories (each at most `HISTORY_MAX`, 16384).
const THREAT_QUEEN: i32 = 16_000;
const THREAT_ROOK: i32 = 8_000;
const THREAT_MINOR: i32 = 5_000;

/// Whether an ordering score marks a capture or promotion that does not lose material.
pub fn is_good_noisy(score: i32) -> bool {
    (GOOD_NOISY..HASH_MOVE).contains(&score)
}

/// What the ordering of one node depends on besides the position.
pub struct OrderingContext {
    pub hash_move: Move,
    pub killers: [Move; 2],
    pub counter: Move,
    /// The opponent's last move and our own move before it, as (piece, destination).
    pub continuations: [Option<(Piece, Square)>; 2],
}

#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Stage {
    HashMove,
    GenerateNoisy,
    GoodNoisy,
    Killer1,
    Killer2,
    Counter,
    GenerateQuiets,
    Quiets,
    BadNoisy,
    GenerateQuietChecks,
    QuietChecks,
    GenerateEvasions,
    Evasions,
    Done,
}

/// A list of moves with ordering scores, handed out best first.
struct ScoredList {
    moves: MoveList,
    /// The score of each move of `moves`; only those entries are ever written or read (not
    /// clearing the rest saves work at every node, see MoveList).
    scores: [MaybeUninit<i32>; MAX_MOVES],
    next: usize,
}

impl ScoredList {
    fn new() -> ScoredList {
        ScoredList {
            moves: MoveList::new(),
            scores: [const { MaybeUninit::uninit() }; MAX_MOVES],
            next: 0,
        }
    }

    /// Generates moves of `KINDS` and scores each with `score`.
    fn fill<const KINDS: u8>(&mut self, pos: &Position, mut score: impl FnMut(Move) -> i32) {
        self.moves = MoveList::new();
        self.next = 0;
        pos.generate::<KINDS, _>(&mut self.moves);
        for (slot, &mv) in self.scores.iter_mut().zip(self.moves.as_slice()) {
            slot.write(score(mv));
        }
    }

    /// The scores of the listed moves.
    #[inline(always)]
    fn scores(&self) -> &[i32] {
        // SAFETY: `fill` wrote a score for every move index, and `MaybeUninit<i32>` has the
        // layout of `i32`.
        unsafe { std::slice::from_raw_parts(self.scores.as_ptr().cast(), self.moves.len()) }
    }

    #[inline(always)]
    fn score(&self, i: usize) -> i32 {
        self.scores()[i]
    }

    /// The next remaining move that satisfies `wanted`, in the list's order (no sorting: for
    /// the few moves that are still tried once the rest are pruned).
    fn next_where(&mut self, mut wanted: impl FnMut(Move) -> bool) -> Option<(Move, i32)> {
        while self.next < self.moves.len() {
            let i = self.next;
            self.next += 1;
            let mv = self.moves.as_slice()[i];
            if wanted(mv) {
                return Some((mv, self.score(i)));
            }
        }
        None
    }

    /// The best remaining move (selection sort, one step).
    fn pick(&mut self) -> Option<(Move, i32)> {
        let len = self.moves.len();
        if self.next >= len {
            return None;
        }
        // The first of the highest scores, in two passes (the maximum, which the compiler
        // vectorises, then where it first occurs) rather than one compare-and-select chain.
        let remaining = &self.scores()[self.next..];
        let highest = remaining.iter().copied().max().unwrap_or(i32::MIN);
        let best = self.next + remaining.iter().position(|&s| s == highest).unwrap_or(0);
        self.moves.as_mut_slice().swap(self.next, best);
        self.scores.swap(self.next, best);
        let picked = (self.moves.as_slice()[self.next], self.score(self.next));
        self.next += 1;
        Some(picked)
    }
}

pub struct MovePicker {
    stage: Stage,
    context: OrderingContext,
    /// Only captures and promotions (quiescence), unless in check.
    noisy_only: bool,
    /// Set by the search to skip the remaining quiet moves (but see `keep_quiet_checks`).
    pub skip_quiets: bool,
    /// Still hand out the quiet moves that give check when `skip_quiets` is set.
    pub keep_quiet_checks: bool,
    /// With `noisy_only`: after the good captures, the quiet checks that do not lose material.
    pub quiet_checks: bool,
    list: ScoredList,
    bad_noisy: MoveList,
    bad_next: usize,
    /// The threats that ordered the quiet moves, once they are generated.
    threats: Threats,
    /// Which moves give check, made when first asked.
    checks: Option<Checks>,
}

impl MovePicker {
    pub fn new(pos: &Position, context: OrderingContext, noisy_only: bool) -> MovePicker {
        let in_check = pos.in_check();
        let mut context = context;
        if !context.hash_move.is_none()
            && (!pos.is_legal(context.hash_move)
                || (noisy_only && !in_check && !pos.is_noisy(context.hash_move)))
        {
            context.hash_move = Move::NONE;
        }
        let stage = if in_check {
            Stage::GenerateEvasions
        } else if context.hash_move.is_none() {
            Stage::GenerateNoisy
        } else {
            Stage::HashMove
        };
        MovePicker {
            stage,
            context,
            noisy_only,
            skip_quiets: false,
            keep_quiet_checks: false,
            quiet_checks: false,
            list: ScoredList::new(),
            bad_noisy: MoveList::new(),
            bad_next: 0,
            threats: Threats::default(),
            checks: None,
        }
    }

    fn is_special(&self, mv: Move) -> bool {
        mv == self.context.hash_move
            || mv == self.context.killers[0]
            || mv == self.context.killers[1]
            || mv == self.context.counter
    }

    /// Which moves of `pos` (the picker's position) give check, made once a node.
    fn checks(&mut self, pos: &Position) -> &Checks {
        self.checks.get_or_insert_with(|| Checks::new(pos))
    }

    /// Whether `mv`, legal in `pos` (the picker's position), gives check.
    pub fn gives_check(&mut self, pos: &Position, mv: Move) -> bool {
        self.checks(pos).gives_check(pos, mv)
    }

    /// A quiet move still to be handed out once quiet moves are skipped.
    fn kept(&mut self, pos: &Position, mv: Move) -> bool {
        !self.skip_quiets || (self.keep_quiet_checks && self.gives_check(pos, mv))
    }

    /// A killer or counter-move worth trying here: legal, quiet, not tried already, and kept.
    /// (One passed over is passed over in the quiet stage too: `skip_quiets` is never reset.)
    fn usable_refutation(&mut self, pos: &Position, mv: Move, tried: &[Move]) -> bool {
        !mv.is_none()
            && mv != self.context.hash_move
            && !tried.contains(&mv)
            && pos.is_legal(mv)
            && !pos.is_noisy(mv)
            && self.kept(pos, mv)
    }

    /// The score the search sees for a move ordered with `score`: for a quiet move that is
    /// not a hash move, killer or counter-move, its history without the threat bonus.
    fn history_value(&self, pos: &Position, mv: Move, score: i32) -> i32 {
        if self.is_special(mv) || pos.is_noisy(mv) {
            return score;
        }
        match pos.piece_on(mv.from()) {
            Some(piece) => score - self.threats.bonus(piece.piece_type(), mv.from(), mv.to()),
            None => score,
        }
    }

    /// The next move to try, with its ordering score (for a quiet move, its history: see
    /// `history_value`).
    pub fn next(&mut self, pos: &Position, history: &History) -> Option<(Move, i32)> {
        loop {
            match self.stage {
                Stage::HashMove => {
                    self.stage = Stage::GenerateNoisy;
                    return Some((self.context.hash_move, HASH_MOVE));
                }
                Stage::GenerateNoisy => {
                    self.list
                        .fill::<{ crate::chess::NOISY }>(pos, |mv| noisy_score(pos, mv, history));
                    self.stage = Stage::GoodNoisy;
                }
                Stage::GoodNoisy => match self.list.pick() {
                    Some((mv, _)) if mv == self.context.hash_move => {}
                    Some((mv, score)) => {
                        // Exchanges are judged only now, for the moves that get this far.
                        let losing = score <= UNDER_PROMOTION
                            || (mv.promotion_type().is_none() && !pos.see_ge(mv, 0));
                        if losing {
                            self.bad_noisy.push(mv);
                        } else {
                            return Some((mv, GOOD_NOISY + score));
                        }
                    }
                    None => {
                        self.stage = match (self.noisy_only, self.quiet_checks) {
                            (false, _) => Stage::Killer1,
                            (true, true) => Stage::GenerateQuietChecks,
                            (true, false) => Stage::Done,
                        };
                    }
                },
                Stage::Killer1 => {
                    self.stage = Stage::Killer2;
                    let mv = self.context.killers[0];
                    if self.usable_refutation(pos, mv, &[]) {
                        return Some((mv, KILLER));
                    }
                }
                Stage::Killer2 => {
                    self.stage = Stage::Counter;
                    let mv = self.context.killers[1];
                    if self.usable_refutation(pos, mv, &[self.context.killers[0]]) {
                        return Some((mv, KILLER - 1));
                    }
                }
                Stage::Counter => {
                    self.stage = Stage::GenerateQuiets;
                    let (mv, killers) = (self.context.counter, self.context.killers);
                    if self.usable_refutation(pos, mv, &killers) {
                        return Some((mv, COUNTER));
                    }
                }
                Stage::GenerateQuiets => {
                    self.stage = Stage::Quiets;
                    let context = &self.context;
                    if !self.skip_quiets {
                        let threats = Threats::of(pos);
                        self.threats = threats;
                        self.list.fill::<{ crate::chess::QUIET }>(pos, |mv| {
                            quiet_score(pos, mv, history, context, &threats)
                        });
                    } else if self.keep_quiet_checks {
                        // Only the checks will be tried, in no particular order.
                        self.list.fill::<{ crate::chess::QUIET }>(pos, |_| 0);
                    } else {
                        self.stage = Stage::BadNoisy;
                    }
                }
                Stage::Quiets => {
                    let picked = if !self.skip_quiets {
                        self.list.pick()
                    } else if self.keep_quiet_checks {
                        let checks = *self.checks(pos);
                        self.list.next_where(|mv| checks.gives_check(pos, mv))
                    } else {
                        None
                    };
                    match picked {
                        Some((mv, _)) if self.is_special(mv) => {}
                        Some((mv, score)) => return Some((mv, self.history_value(pos, mv, score))),
                        None => self.stage = Stage::BadNoisy,
                    }
                }
                Stage::BadNoisy => {
                    if let Some(&mv) = self.bad_noisy.as_slice().get(self.bad_next) {
                        self.bad_next += 1;
                        return Some((mv, BAD_NOISY));
                    }
                    self.stage = Stage::Done;
                }
                Stage::GenerateQuietChecks => {
                    // Tried in no particular order: there are few, and a mate ends the node.
                    self.list.fill::<{ crate::chess::QUIET }>(pos, |_| 0);
                    self.stage = Stage::QuietChecks;
                }
                Stage::QuietChecks => {
                    let checks = *self.checks(pos);
                    match self
                        .list
                        .next_where(|mv| checks.gives_check(pos, mv) && pos.see_ge(mv, 0))
                    {
                        Some((mv, score)) => return Some((mv, score)),
                        None => self.stage = Stage::Done,
                    }
                }
                Stage::GenerateEvasions => {
                    let context = &self.context;
                    let threats = Threats::of(pos);
                    self.threats = threats;
                    self.list.fill::<{ crate::chess::ALL }>(pos, |mv| {
                        if mv == context.hash_move {
                            HASH_MOVE
                        } else if pos.is_noisy(mv) {
                            GOOD_NOISY + noisy_score(pos, mv, history)
                        } else {
                            quiet_score(pos, mv, history, context, &threats)
                        }
                    });
                    self.stage = Stage::Evasions;
                }
                Stage::Evasions => match self.list.pick() {
                    Some((mv, score)) => return Some((mv, self.history_value(pos, mv, score))),
                    None => self.stage = Stage::Done,
                },
                Stage::Done => return None,
            }
        }
    }
}

/// Captures by victim value then capture history; under-promotions last.
fn noisy_score(pos: &Position, mv: Move, history: &History) -> i32 {
    if let Some(promotion) = mv.promotion_type()
        && promotion != PieceType::Queen
    {
        return UNDER_PROMOTION;
    }
    let victim = pos.captured_type(mv);
    let victim_value = victim.map_or(0, |v| SEE_VALUES[v.index()]);
    let promotion_value =
        if mv.promotion_type().is_some() { SEE_VALUES[PieceType::Queen.index()] } else { 0 };
    let history_value = match (pos.piece_on(mv.from()), victim) {
        (Some(piece), Some(victim)) => history.capture(piece, mv.to(), victim) / 16,
        _ => 0,
    };
    (victim_value + promotion_value) * 16 + history_value
}

/// Quiet moves by butterfly and continuation history and by the threats they escape or walk
/// into; killers and counter-move on top (for evasions, where they are not tried separately).
fn quiet_score(
    pos: &Position,
    mv: Move,
    history: &History,
    context: &OrderingContext,
    threats: &Threats,
) -> i32 {
    if mv == context.killers[0] {
        return KILLER;
    }
    if mv == context.killers[1] {
        return KILLER - 1;
    }
    if mv == context.counter {
        return COUNTER;
    }
    let Some(piece) = pos.piece_on(mv.from()) else {
        return 0;
    };
    let mut score = history.quiet(pos.side_to_move(), mv)
        + threats.bonus(piece.piece_type(), mv.from(), mv.to());
    for previous in context.continuations.iter().flatten() {
        score += history.continuation(*previous, piece, mv.to());
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bonus(fen: &str, uci: &str) -> i32 {
        let pos = Position::from_fen(fen).unwrap();
        let mv = pos.parse_uci_move(uci, false).unwrap();
        let piece = pos.piece_on(mv.from()).unwrap();
        Threats::of(&pos).bonus(piece.piece_type(), mv.from(), mv.to())
    }

    #[test]
    fn pick_hands_out_the_highest_score_first_and_equal_scores_as_a_selection_sort_does() {
        let pos = Position::startpos();
        // Scores with ties: equal scores must come out in the old loop's order.
        let mut list = ScoredList::new();
        list.fill::<{ crate::chess::ALL }>(&pos, |mv| (mv.raw() % 5) as i32);
        let mut expected: Vec<(Move, i32)> =
            list.moves.as_slice().iter().map(|&mv| (mv, (mv.raw() % 5) as i32)).collect();
        // The old loop: scan for the first strictly higher score, swap it to the front.
        for next in 0..expected.len() {
            let mut best = next;
            for i in next + 1..expected.len() {
                if expected[i].1 > expected[best].1 {
                    best = i;
                }
            }
            expected.swap(next, best);
        }
        let picked: Vec<(Move, i32)> = std::iter::from_fn(|| list.pick()).collect();
        assert_eq!(picked.len(), 20);
        assert_eq!(picked, expected);
    }

    #[test]
    fn escapes_from_cheaper_attackers_come_first_and_steps_into_them_last() {
        // The knight on e5 is attacked by the pawn on d6; the queen on c1 is safe.
        let fen = "4k3/8/3p4/4N3/8/8/8/2Q1K3 w - - 0 1";
        assert_eq!(bonus(fen, "e5f3"), THREAT_MINOR);
        assert_eq!(bonus(fen, "e5c4"), THREAT_MINOR);
        // A queen stepping onto a square the pawn attacks, and onto a safe one.
        assert_eq!(bonus(fen, "c1c5"), -THREAT_QUEEN);
        assert_eq!(bonus(fen, "c1c4"), 0);
        // The king and pawns get no threat bonus.
        assert_eq!(bonus(fen, "e1f2"), 0);
        // A rook attacked by a bishop escapes; a rook stepping into a knight's reach.
        let fen = "4k3/8/1n6/8/8/5b2/8/R3K2R w - - 0 1";
        assert_eq!(bonus(fen, "h1g1"), THREAT_ROOK);
        assert_eq!(bonus(fen, "a1a4"), -THREAT_ROOK);
        assert_eq!(bonus(fen, "a1a2"), 0);
    }

    #[test]
    fn threats_order_the_quiet_moves_but_the_search_sees_their_history() {
        let pos = Position::from_fen("4k3/8/3p4/4N3/8/8/8/2Q1K3 w - - 0 1").unwrap();
        let context = OrderingContext {
            hash_move: Move::NONE,
            killers: [Move::NONE; 2],
            counter: Move::NONE,
            continuations: [None, None],
        };
        let history = History::new();
        let mut picker = MovePicker::new(&pos, context, false);
        let mut order = Vec::new();
        while let Some((mv, score)) = picker.next(&pos, &history) {
            // A fresh history: every quiet move is worth nothing to the search.
            assert_eq!(score, 0, "{mv:?}");
            order.push(pos.piece_on(mv.from()).unwrap().piece_type());
        }
        // Every legal move once; the attacked knight's eight moves first.
        assert_eq!(order.len() as u64, crate::chess::perft(&pos, 1));
        assert!(order[..8].iter().all(|&pt| pt == PieceType::Knight), "{order:?}");
    }
}
