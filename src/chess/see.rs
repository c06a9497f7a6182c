//! Static exchange evaluation: does a capture sequence on one square win material?

use super::attacks::{bishop_attacks, rook_attacks};
use super::{Bitboard, Move, MoveKind, PieceType, Position};

/// Piece values for exchanges, by piece type (the king's is "more than everything").
pub const SEE_VALUES: [i32; 6] = [100, 320, 330, 500, 950, 20_000];

impl Position {
    /// Whether `mv` wins at least `threshold` centipawns of material once every sensible
    /// recapture on its square has been played (each side may stop capturing when it likes).
    pub fn see_ge(&self, mv: Move, threshold: i32) -> bool {
        // Castling and promotions are treated as neutral.
        if matches!(mv.kind(), MoveKind::Castling | MoveKind::Promotion) {
            return threshold <= 0;
        }
        let from = mv.from();
        let to = mv.to();
        let captured = match mv.kind() {
            MoveKind::EnPassant => SEE_VALUES[PieceType::Pawn.index()],
            _ => self.piece_on(to).map_or(0, |p| SEE_VALUES[p.piece_type().index()]),
        };
        let mut balance = captured - threshold;
        if balance < 0 {
            return false;
        }
        let Some(mover) = self.piece_on(from) else {
            return false;
        };
        balance -= SEE_VALUES[mover.piece_type().index()];
        if balance >= 0 {
            return true;
        }

        let mut occupied = self.occupied() ^ from.bb() ^ to.bb();
        if mv.kind() == MoveKind::EnPassant {
            occupied ^= Bitboard(1u64 << (to.index() ^ 8));
        }
        let diagonal = self.diagonal_sliders();
        let orthogonal = self.orthogonal_sliders();
        let mut attackers = self.attackers_to(to, occupied) & occupied;
        let mut side = !mover.color();
        loop {
            let ours = attackers & self.color_bb(side);
            if ours.is_empty() {
                break;
            }
            // The least valuable attacker recaptures.
            let Some(piece_type) =
                PieceType::ALL.into_iter().find(|&pt| (ours & self.type_bb(pt)).non_empty())
            else {
                break;
            };
            side = !side;
            balance = -balance - 1 - SEE_VALUES[piece_type.index()];
            if balance >= 0 {
                // A king may only recapture if the square is no longer defended.
                if piece_type == PieceType::King && (attackers & self.color_bb(side)).non_empty() {
                    side = !side;
                }
                break;
            }
            let square = (ours & self.type_bb(piece_type)).lsb();
            occupied ^= square.bb();
            // Sliders behind the capturer join in (x-rays).
            if matches!(piece_type, PieceType::Pawn | PieceType::Bishop | PieceType::Queen) {
                attackers |= bishop_attacks(to, occupied) & diagonal;
            }
            if matches!(piece_type, PieceType::Rook | PieceType::Queen) {
                attackers |= rook_attacks(to, occupied) & orthogonal;
            }
            attackers &= occupied;
        }
        side != mover.color()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn see(fen: &str, mv: &str, threshold: i32) -> bool {
        let pos = Position::from_fen(fen).unwrap();
        pos.see_ge(pos.parse_uci_move(mv, false).unwrap(), threshold)
    }

    #[test]
    fn exchanges() {
        // Pawn takes an undefended knight: +320.
        assert!(see("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5", 320));
        assert!(!see("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5", 321));
        // Queen takes a pawn defended by a pawn: loses material.
        assert!(!see("4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1", "d1d5", 0));
        // Rook takes a rook defended once, backed by a second rook (x-ray): wins the rook.
        assert!(see("3rk3/3r4/8/8/8/8/3R4/3RK3 w - - 0 1", "d2d7", 0));
        // Knight takes a pawn defended by a bishop: knight for pawn.
        assert!(!see("4k3/8/5b2/4p3/8/3N4/8/4K3 w - - 0 1", "d3e5", 0));
        assert!(see("4k3/8/5b2/4p3/8/3N4/8/4K3 w - - 0 1", "d3e5", -220));
        // Quiet move to a square attacked by a pawn.
        assert!(!see("4k3/8/8/4p3/8/8/8/3QK3 w - - 0 1", "d1d4", 0));
        assert!(see("4k3/8/8/8/8/8/8/3QK3 w - - 0 1", "d1d4", 0));
    }
}
