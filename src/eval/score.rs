//! A middlegame/endgame score pair, blended by game phase at the end of evaluation.

use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

#[derive(Copy, Clone, Default, PartialEq, Eq, Debug)]
pub struct S {
    pub mg: i32,
    pub eg: i32,
}

/// Shorthand for weight tables.
pub const fn s(mg: i32, eg: i32) -> S {
    S { mg, eg }
}

impl Add for S {
    type Output = S;
    #[inline(always)]
    fn add(self, o: S) -> S {
        S { mg: self.mg + o.mg, eg: self.eg + o.eg }
    }
}

impl AddAssign for S {
    #[inline(always)]
    fn add_assign(&mut self, o: S) {
        self.mg += o.mg;
        self.eg += o.eg;
    }
}

impl Sub for S {
    type Output = S;
    #[inline(always)]
    fn sub(self, o: S) -> S {
        S { mg: self.mg - o.mg, eg: self.eg - o.eg }
    }
}

impl SubAssign for S {
    #[inline(always)]
    fn sub_assign(&mut self, o: S) {
        self.mg -= o.mg;
        self.eg -= o.eg;
    }
}

impl Mul<i32> for S {
    type Output = S;
    #[inline(always)]
    fn mul(self, k: i32) -> S {
        S { mg: self.mg * k, eg: self.eg * k }
    }
}

impl Neg for S {
    type Output = S;
    #[inline(always)]
    fn neg(self) -> S {
        S { mg: -self.mg, eg: -self.eg }
    }
}
