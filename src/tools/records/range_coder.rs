//! A binary adaptive range coder, the entropy coder of the game pack format ([`super::pack`]).
//!
//! Every decision is one bit coded with a probability that adapts to the bits seen in its
//! context ([`Bit`]): a bit that is almost always the same costs a small fraction of a bit.
//! The scheme is the classic carry-propagating range coder (as in LZMA): 32-bit range, 12-bit
//! probabilities, five bytes flushed at the end. Writer and reader must make the same calls
//! in the same order with the same contexts; the format defines that order.

/// Probabilities are in 1/4096ths.
const PROBABILITY_BITS: u32 = 12;
const ONE: u16 = 1 << PROBABILITY_BITS;
/// How fast a probability follows its bits: it moves 1/2^ADAPT of the way each time.
const ADAPT: u32 = 5;
/// Below this the range is renormalised by a byte.
const TOP: u32 = 1 << 24;

/// The adaptive probability that a bit in one context is 0.
#[derive(Copy, Clone, Debug)]
pub struct Bit(u16);

impl Default for Bit {
    fn default() -> Bit {
        Bit(ONE / 2)
    }
}

impl Bit {
    fn update(&mut self, bit: bool) {
        if bit {
            self.0 -= self.0 >> ADAPT;
        } else {
            self.0 += (ONE - self.0) >> ADAPT;
        }
    }
}

/// Writes bits into a byte buffer.
pub struct Encoder {
    low: u64,
    range: u32,
    /// The last byte not yet written (a carry may still change it) and the count of 0xff
    /// bytes after it that a carry would also change.
    cache: u8,
    pending: u64,
    out: Vec<u8>,
}

impl Default for Encoder {
    fn default() -> Encoder {
        Encoder { low: 0, range: u32::MAX, cache: 0, pending: 1, out: Vec::new() }
    }
}

impl Encoder {
    pub fn bit(&mut self, model: &mut Bit, bit: bool) {
        let bound = (self.range >> PROBABILITY_BITS) * u32::from(model.0);
        if bit {
            self.low += u64::from(bound);
            self.range -= bound;
        } else {
            self.range = bound;
        }
        model.update(bit);
        self.normalise();
    }

    /// `count` bits of `value` (high first), each with probability one half.
    pub fn direct_bits(&mut self, value: u32, count: u32) {
        for shift in (0..count).rev() {
            self.range >>= 1;
            if value >> shift & 1 == 1 {
                self.low += u64::from(self.range);
            }
            self.normalise();
        }
    }

    fn normalise(&mut self) {
        while self.range < TOP {
            self.range <<= 8;
            self.shift_low();
        }
    }

    fn shift_low(&mut self) {
        if self.low < 0xff00_0000 || self.low >= 1 << 32 {
            let carry = (self.low >> 32) as u8;
            let mut byte = self.cache;
            loop {
                self.out.push(byte.wrapping_add(carry));
                byte = 0xff;
                self.pending -= 1;
                if self.pending == 0 {
                    break;
                }
            }
            self.cache = (self.low >> 24) as u8;
        }
        self.pending += 1;
        self.low = (self.low & 0x00ff_ffff) << 8;
    }

    /// The coded bytes.
    pub fn finish(mut self) -> Vec<u8> {
        for _ in 0..5 {
            self.shift_low();
        }
        self.out
    }
}

/// Reads back what an [`Encoder`] wrote. Past the end of its input it reads zero bytes: the
/// format's own checks (counts, legal moves) then catch a cut or corrupt input.
pub struct Decoder<'a> {
    code: u32,
    range: u32,
    input: &'a [u8],
    next: usize,
}

impl<'a> Decoder<'a> {
    pub fn new(input: &'a [u8]) -> Decoder<'a> {
        let mut decoder = Decoder { code: 0, range: u32::MAX, input, next: 0 };
        for _ in 0..5 {
            decoder.code = decoder.code << 8 | u32::from(decoder.byte());
        }
        decoder
    }

    fn byte(&mut self) -> u8 {
        let byte = self.input.get(self.next).copied().unwrap_or(0);
        self.next += 1;
        byte
    }

    pub fn bit(&mut self, model: &mut Bit) -> bool {
        let bound = (self.range >> PROBABILITY_BITS) * u32::from(model.0);
        let bit = self.code >= bound;
        if bit {
            self.code -= bound;
            self.range -= bound;
        } else {
            self.range = bound;
        }
        model.update(bit);
        self.normalise();
        bit
    }

    pub fn direct_bits(&mut self, count: u32) -> u32 {
        let mut value = 0;
        for _ in 0..count {
            self.range >>= 1;
            let bit = self.code >= self.range;
            if bit {
                self.code -= self.range;
            }
            value = value << 1 | u32::from(bit);
            self.normalise();
        }
        value
    }

    fn normalise(&mut self) {
        while self.range < TOP {
            self.range <<= 8;
            self.code = self.code << 8 | u32::from(self.byte());
        }
    }

    /// Whether the decoder read more bytes than its input had (beyond the final flush).
    pub fn overran(&self) -> bool {
        self.next > self.input.len()
    }
}

/// A number from 0 to 2^bits - 1, coded bit by bit from the top, each bit in the context of
/// the bits above it (a binary tree of probabilities).
#[derive(Clone, Debug)]
pub struct BitTree {
    bits: u32,
    nodes: Vec<Bit>,
}

impl BitTree {
    pub fn new(bits: u32) -> BitTree {
        BitTree { bits, nodes: vec![Bit::default(); 1 << bits] }
    }

    pub fn encode(&mut self, encoder: &mut Encoder, value: u32) {
        let mut node = 1;
        for shift in (0..self.bits).rev() {
            let bit = value >> shift & 1 == 1;
            encoder.bit(&mut self.nodes[node], bit);
            node = node << 1 | bit as usize;
        }
    }

    pub fn decode(&mut self, decoder: &mut Decoder) -> u32 {
        let mut node = 1;
        for _ in 0..self.bits {
            let bit = decoder.bit(&mut self.nodes[node]);
            node = node << 1 | bit as usize;
        }
        (node - (1 << self.bits)) as u32
    }
}

/// Non-negative numbers of any size (up to 2^32 - 1), small ones cheap: the number of
/// significant bits of `value + 1` in a [`BitTree`], then the bits below the leading one,
/// the top few of them adaptive (in the context of the length) and the rest direct.
#[derive(Clone, Debug)]
pub struct Magnitude {
    length: BitTree,
    mantissa: Vec<BitTree>,
}

/// Mantissa bits coded adaptively below the leading one; the rest are direct.
const ADAPTIVE_MANTISSA: u32 = 3;

impl Magnitude {
    pub fn new() -> Magnitude {
        let mantissa = (0..33).map(|length| BitTree::new(ADAPTIVE_MANTISSA.min(length))).collect();
        Magnitude { length: BitTree::new(6), mantissa }
    }

    pub fn encode(&mut self, encoder: &mut Encoder, value: u32) {
        let shifted = u64::from(value) + 1;
        let length = 64 - shifted.leading_zeros();
        self.length.encode(encoder, length);
        let below = length - 1;
        let adaptive = ADAPTIVE_MANTISSA.min(below);
        let rest = below - adaptive;
        let tree = &mut self.mantissa[below as usize];
        tree.encode(encoder, ((shifted >> rest) & ((1 << adaptive) - 1)) as u32);
        encoder.direct_bits((shifted & ((1 << rest) - 1)) as u32, rest);
    }

    /// `None` where the bits cannot be a number of this coder (a corrupt input).
    pub fn decode(&mut self, decoder: &mut Decoder) -> Option<u32> {
        let length = self.length.decode(decoder);
        if length == 0 || length > 33 {
            return None;
        }
        let below = length - 1;
        let adaptive = ADAPTIVE_MANTISSA.min(below);
        let rest = below - adaptive;
        let top = u64::from(self.mantissa[below as usize].decode(decoder));
        let low = u64::from(decoder.direct_bits(rest));
        let shifted = (1u64 << below) | top << rest | low;
        u32::try_from(shifted - 1).ok()
    }
}

impl Default for Magnitude {
    fn default() -> Magnitude {
        Magnitude::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    #[test]
    fn bits_numbers_and_direct_bits_survive_the_round_trip() {
        let mut rng = StdRng::seed_from_u64(7);
        // Skewed bits (cheap), numbers of every size, and direct bits, interleaved.
        let bits: Vec<bool> = (0..20_000).map(|_| rng.random_range(0..100) < 93).collect();
        let numbers: Vec<u32> = (0..2_000)
            .map(|i| match i % 4 {
                0 => rng.random_range(0..4),
                1 => rng.random_range(0..1000),
                2 => u32::MAX - rng.random_range(0..3),
                _ => rng.random::<u32>() >> rng.random_range(0..32),
            })
            .collect();
        let mut encoder = Encoder::default();
        let (mut model, mut magnitude, mut tree) =
            (Bit::default(), Magnitude::new(), BitTree::new(3));
        for (i, &bit) in bits.iter().enumerate() {
            encoder.bit(&mut model, bit);
            if i % 10 == 0 {
                magnitude.encode(&mut encoder, numbers[i / 10]);
                tree.encode(&mut encoder, (i % 8) as u32);
                encoder.direct_bits(i as u32 & 0x1fff, 13);
            }
        }
        let bytes = encoder.finish();
        // 93 % skewed bits cost about 0.37 bit each: far below one byte per eight.
        assert!(bytes.len() < 20_000 / 8 + 2_000 * 6, "{} bytes", bytes.len());

        let mut decoder = Decoder::new(&bytes);
        let (mut model, mut magnitude, mut tree) =
            (Bit::default(), Magnitude::new(), BitTree::new(3));
        for (i, &bit) in bits.iter().enumerate() {
            assert_eq!(decoder.bit(&mut model), bit, "bit {i}");
            if i % 10 == 0 {
                assert_eq!(magnitude.decode(&mut decoder), Some(numbers[i / 10]));
                assert_eq!(tree.decode(&mut decoder), (i % 8) as u32);
                assert_eq!(decoder.direct_bits(13), i as u32 & 0x1fff);
            }
        }
        assert!(!decoder.overran());
    }

    #[test]
    fn a_long_run_of_certain_bits_costs_almost_nothing() {
        let mut encoder = Encoder::default();
        let mut model = Bit::default();
        for _ in 0..100_000 {
            encoder.bit(&mut model, false);
        }
        // The probability saturates near 1 - 2^-7: about 0.011 bit each.
        let bytes = encoder.finish();
        assert!(bytes.len() < 200, "{} bytes", bytes.len());
        let mut decoder = Decoder::new(&bytes);
        let mut model = Bit::default();
        assert!((0..100_000).all(|_| !decoder.bit(&mut model)));
    }
}
