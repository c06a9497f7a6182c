//! Training positions as the network reads them ([`Sample`]), and the positions kept in
//! memory ([`Dataset`]: the validation set, and the tests' data).
//!
//! A position keeps only the White-view feature index of each piece (`u16`); the Black view
//! of the same piece is [`flip`] of it, so both accumulators come from one list. Labels are
//! stored from the side to move's point of view, the way the network sees them. A position's
//! left-right mirror (`--mirror`) is a second sample of the same stored position, its
//! features mirrored as the sample is read, so it costs 4 bytes instead of a second copy.

use std::path::Path;

use rand::RngExt;
use rand::rngs::StdRng;

use crate::chess::{Color, Piece, Square};
use crate::eval::{INPUTS, feature_index};
use crate::tools::records::{PackedPosition, read_positions};

/// Records whose score is larger than this in absolute value (mate scores) are left out.
pub const MAX_SCORE: i32 = 10_000;

/// The Black-view index of a feature given its White-view index: the piece changes from "own"
/// to "their" (or back) and the board is mirrored vertically.
#[inline(always)]
pub fn flip(white_view: usize) -> usize {
    let half = INPUTS / 2;
    let swapped = if white_view < half { white_view + half } else { white_view - half };
    swapped ^ 56
}

/// Where the trainer takes its samples from: numbered samples it can read from any thread.
pub trait Samples: Sync {
    fn sample(&self, index: usize) -> Sample;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Labels {
    /// Centipawns, side to move's point of view.
    score: i16,
    /// 0 loss, 1 draw, 2 win for the side to move.
    result: u8,
    side: Color,
}

/// The most pieces a position can have, so the most features a sample has.
pub const MAX_FEATURES: usize = 32;

/// One position as the trainer reads it.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    features: [u16; MAX_FEATURES],
    count: u8,
    pub side: Color,
    /// Centipawns, side to move's point of view.
    pub score: i16,
    /// 0 loss, 1 draw, 2 win for the side to move.
    pub result: u8,
}

impl Sample {
    /// White-view feature indices of the pieces.
    #[inline(always)]
    pub fn features(&self) -> &[u16] {
        &self.features[..usize::from(self.count)]
    }

    /// The sample of `record` (left to right mirrored with `mirrored`), or `None` for a
    /// record the trainer leaves out: a score beyond [`MAX_SCORE`] or more than
    /// [`MAX_FEATURES`] pieces.
    #[inline]
    pub fn from_record(record: &PackedPosition, mirrored: bool) -> Option<Sample> {
        let count = record.occupied.count_ones() as usize;
        if i32::from(record.score).abs() > MAX_SCORE || count > MAX_FEATURES {
            return None;
        }
        // The file is the square's low three bits, and the square the feature's.
        let file_flip = if mirrored { 7 } else { 0 };
        let mut features = [0u16; MAX_FEATURES];
        for (to, (piece, square)) in features.iter_mut().zip(record.pieces()) {
            *to = feature_index(Color::White, piece, square) as u16 ^ file_flip;
        }
        let labels = Labels::of(record.side, record.score, record.result);
        Some(Sample {
            features,
            count: count as u8,
            side: labels.side,
            score: labels.score,
            result: labels.result,
        })
    }
}

impl Labels {
    /// The labels of a position with White's `white_score` and `white_result` (0 Black won,
    /// 1 draw, 2 White won), turned to the side to move.
    fn of(side: Color, white_score: i16, white_result: u8) -> Labels {
        let (score, result) = match side {
            Color::White => (white_score, white_result),
            Color::Black => (white_score.saturating_neg(), 2 - white_result.min(2)),
        };
        Labels { score, result, side }
    }
}

/// What loading the record files found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadReport {
    /// Training positions read, kept or not, and records or games that could not be read.
    pub records: usize,
    /// Records or games that could not be read.
    pub invalid: usize,
    /// Positions left out for a score beyond [`MAX_SCORE`].
    pub extreme: usize,
    /// Files that end in a partial record or game, with the bytes ignored (for a game, the
    /// bytes missing).
    pub partial: Vec<(String, usize)>,
}

/// All positions, packed, and the samples made of them.
#[derive(Clone, Debug)]
pub struct Dataset {
    /// Also add each position without castling rights mirrored left to right (files a-h
    /// swapped): the same chess, so the same labels, and twice the data to learn from.
    pub mirror: bool,
    /// The features of position `i` are `features[starts[i]..starts[i + 1]]`.
    features: Vec<u16>,
    starts: Vec<u64>,
    labels: Vec<Labels>,
    /// Sample `s` is position `samples[s] >> 1`, mirrored left to right if its low bit is set.
    samples: Vec<u32>,
}

impl Default for Dataset {
    fn default() -> Self {
        Dataset {
            mirror: false,
            features: Vec::new(),
            starts: vec![0],
            labels: Vec::new(),
            samples: Vec::new(),
        }
    }
}

impl Dataset {
    /// The number of samples (positions and their mirrors).
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// Adds a position given its pieces, the side to move, its White-view score in
    /// centipawns and its result (0 Black won, 1 draw, 2 White won), as one sample; returns
    /// its index among the positions, or `None` (nothing added) for more than
    /// [`MAX_FEATURES`] pieces.
    pub fn push(
        &mut self,
        pieces: impl Iterator<Item = (Piece, Square)>,
        side: Color,
        white_score: i16,
        white_result: u8,
    ) -> Option<usize> {
        let start = self.features.len();
        self.features.extend(
            pieces.map(|(piece, square)| feature_index(Color::White, piece, square) as u16),
        );
        if self.features.len() - start > MAX_FEATURES {
            self.features.truncate(start);
            return None;
        }
        self.starts.push(self.features.len() as u64);
        self.labels.push(Labels::of(side, white_score, white_result));
        let position = self.labels.len() - 1;
        self.push_sample(position, false);
        Some(position)
    }

    fn push_sample(&mut self, position: usize, mirrored: bool) {
        let sample = u32::try_from(position << 1 | usize::from(mirrored))
            .expect("fewer than 2^31 positions in memory");
        self.samples.push(sample);
    }

    /// Adds a record (and its mirror with `mirror`); false if it is left out for its score or
    /// for holding more than [`MAX_FEATURES`] pieces.
    pub fn push_record(&mut self, record: &PackedPosition) -> bool {
        if i32::from(record.score).abs() > MAX_SCORE {
            return false;
        }
        let Some(position) = self.push(record.pieces(), record.side, record.score, record.result)
        else {
            return false;
        };
        if self.mirror && !record.has_castling_rights() {
            self.push_sample(position, true);
        }
        true
    }

    /// Reads every training position of `path` (a game file or a record file) into the set
    /// (see [`LoadReport`] for what is skipped).
    pub fn load_file(&mut self, path: &Path, report: &mut LoadReport) -> std::io::Result<()> {
        let summary = read_positions(path, |packed| {
            report.records += 1;
            if !self.push_record(packed) {
                if i32::from(packed.score).abs() > MAX_SCORE {
                    report.extreme += 1;
                } else {
                    report.invalid += 1;
                }
            }
        })?;
        report.records += summary.invalid;
        report.invalid += summary.invalid;
        if summary.partial_bytes != 0 {
            report.partial.push((path.display().to_string(), summary.partial_bytes));
        }
        Ok(())
    }
}

impl Samples for Dataset {
    #[inline(always)]
    fn sample(&self, index: usize) -> Sample {
        let sample = self.samples[index] as usize;
        let position = sample >> 1;
        let (start, end) = (self.starts[position] as usize, self.starts[position + 1] as usize);
        // The file is the square's low three bits, and the square the feature's.
        let file_flip = if sample & 1 == 1 { 7 } else { 0 };
        let mut features = [0u16; MAX_FEATURES];
        for (to, &from) in features.iter_mut().zip(&self.features[start..end]) {
            *to = from ^ file_flip;
        }
        let labels = self.labels[position];
        Sample {
            features,
            count: (end - start) as u8,
            side: labels.side,
            score: labels.score,
            result: labels.result,
        }
    }
}

/// Fisher-Yates shuffle driven by `rng`.
pub fn shuffle<T>(items: &mut [T], rng: &mut StdRng) {
    for i in (1..items.len()).rev() {
        let j = rng.random_range(0..=i);
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Position;

    #[test]
    fn flip_is_the_black_view() {
        for piece in Piece::ALL {
            for square in Square::all() {
                let white = feature_index(Color::White, piece, square);
                assert_eq!(flip(white), feature_index(Color::Black, piece, square));
                assert_eq!(flip(flip(white)), white);
            }
        }
    }

    #[test]
    fn labels_are_turned_to_the_side_to_move() {
        let pos = Position::from_fen("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1").unwrap();
        let record = PackedPosition::pack(&pos, 150, 2);
        let mut data = Dataset::default();
        assert!(data.push_record(&record));
        assert!(!data.push_record(&PackedPosition::pack(&pos, 10_001, 2)));
        assert_eq!(data.len(), 1);
        let sample = data.sample(0);
        assert_eq!((sample.side, sample.score, sample.result), (Color::Black, -150, 0));
        assert_eq!(sample.features().len(), 3);
        let target = crate::tools::train::Target { wdl: 0.5, score_scale: 400.0 };
        let expected = 0.5 / (1.0 + (150.0f32 / 400.0).exp());
        assert!((target.of(&sample) - expected).abs() < 1e-6);
        // A narrower logistic makes the same score surer.
        let narrow = crate::tools::train::Target { wdl: 0.5, score_scale: 200.0 };
        let expected = 0.5 / (1.0 + (150.0f32 / 200.0).exp());
        assert!((narrow.of(&sample) - expected).abs() < 1e-6);
    }

    #[test]
    fn a_position_of_more_than_32_pieces_is_refused_whole() {
        let mut data = Dataset::default();
        let squares = Square::all().take(MAX_FEATURES + 1);
        assert_eq!(data.push(squares.map(|sq| (Piece::ALL[0], sq)), Color::White, 0, 1), None);
        assert!(data.is_empty());
        let pieces = Square::all().take(2).map(|sq| (Piece::ALL[0], sq));
        assert_eq!(data.push(pieces, Color::White, 0, 1), Some(0));
        assert_eq!(data.sample(0).features().len(), 2);
    }

    #[test]
    fn mirroring_adds_the_file_flipped_copy_of_positions_without_castling() {
        let mut data = Dataset { mirror: true, ..Dataset::default() };
        let castling = Position::from_fen("r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1").unwrap();
        assert!(data.push_record(&PackedPosition::pack(&castling, 10, 1)));
        assert_eq!(data.len(), 1);
        let plain = Position::from_fen("4k3/8/8/8/8/8/1P6/4K3 w - - 0 1").unwrap();
        assert!(data.push_record(&PackedPosition::pack(&plain, 10, 1)));
        assert_eq!(data.len(), 3);
        let mirrored = Position::from_fen("3k4/8/8/8/8/8/6P1/3K4 w - - 0 1").unwrap();
        let mut expected: Vec<u16> = mirrored
            .occupied()
            .map(|sq| feature_index(Color::White, mirrored.piece_on(sq).unwrap(), sq) as u16)
            .collect();
        let mut got = data.sample(2).features().to_vec();
        expected.sort_unstable();
        got.sort_unstable();
        assert_eq!(got, expected);
        assert_eq!(data.sample(2).score, data.sample(1).score);
    }
}
