//! Compact training data: whole self-play games, each its start position and then one move and
//! one score a ply, about 4-6 bytes a training position instead of a 32-byte record each.
//!
//! A game file starts with the 8 bytes `ZWGAMES1`, then holds games back to back
//! (little-endian):
//!
//! | bytes | field |
//! |-------|-------|
//! | 32     | the start position as a [`PackedPosition`]: its result byte is the game's result (0 Black won, 1 draw, 2 White won), its score unused (0) |
//! | 2      | the number of plies `n` (u16) |
//! | 4 `n`  | each ply: the move played (u16, [`Move::raw`]) and the search score of the position before it, White's point of view (i16) |
//!
//! Every position of the game is kept, the training filter (quiet best move, no check, no
//! mate score) is applied when the file is read, so that another filter needs no new
//! data. Moves are checked against the legal moves when read: a corrupt game is skipped
//! whole, and the length field lets the reader carry on with the next one.

use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::Path;

use thiserror::Error;

use super::packed::{self, PackedError, PackedPosition, RECORD_BYTES};
use crate::chess::{FenError, Move, Position};
use crate::search::MATE_BOUND;

/// The first bytes of a game file.
pub const GAMES_MAGIC: [u8; 8] = *b"ZWGAMES1";

/// One game as datagen played it.
#[derive(Clone, Debug, PartialEq)]
pub struct Game {
    /// The position the game started from (the standard start position, for datagen's games).
    pub start: Position,
    /// Moves played from `start` without a search (datagen's random opening plies); the
    /// searched plies follow them.
    pub opening: Vec<Move>,
    /// 0 Black won, 1 draw, 2 White won.
    pub result: u8,
    /// Each move played, with the search score (White's point of view) of the position it
    /// was played from.
    pub plies: Vec<(Move, i16)>,
}

#[derive(Debug, Error)]
pub enum GameError {
    #[error("read error: {0}")]
    Io(#[from] std::io::Error),
    #[error("bad start position: {0}")]
    Start(#[from] PackedError),
    #[error("start position not playable: {0}")]
    StartFen(#[from] FenError),
    #[error("ply {ply}: move {raw:#06x} is not legal")]
    IllegalMove { ply: usize, raw: u16 },
    #[error("the game is cut short ({0} bytes missing)")]
    Truncated(usize),
}

impl Game {
    /// The position of the first searched ply: `start` after the opening moves.
    pub fn searched_start(&self) -> Position {
        let mut pos = self.start;
        for &mv in &self.opening {
            pos.make_move(mv);
        }
        pos
    }

    /// The bytes of the game in the file format above (which starts at the first searched
    /// ply: the opening moves are not kept).
    pub fn to_bytes(&self) -> Vec<u8> {
        let plies = self.plies.len().min(u16::MAX as usize);
        let mut bytes = Vec::with_capacity(RECORD_BYTES + 2 + 4 * plies);
        let start = self.searched_start();
        bytes.extend_from_slice(&PackedPosition::pack(&start, 0, self.result).to_bytes());
        bytes.extend_from_slice(&(plies as u16).to_le_bytes());
        for &(mv, score) in &self.plies[..plies] {
            bytes.extend_from_slice(&mv.raw().to_le_bytes());
            bytes.extend_from_slice(&score.to_le_bytes());
        }
        bytes
    }

    /// The positions to train on, as records labelled with their score and the game's
    /// result: those not in check, whose move is quiet and whose score is not a mate.
    pub fn training_records(&self) -> Vec<PackedPosition> {
        let mut pos = self.searched_start();
        let mut records = Vec::new();
        for &(mv, score) in &self.plies {
            if !pos.in_check() && !pos.is_noisy(mv) && i32::from(score).abs() < MATE_BOUND {
                records.push(PackedPosition::pack(&pos, score, self.result));
            }
            pos.make_move(mv);
        }
        records
    }
}

/// Reads the next game; `Ok(None)` at the end of the input. A game whose bytes are all
/// there but whose content is bad is consumed whole, so the next call reads the next game.
pub fn read_game(reader: &mut impl Read) -> Result<Option<Game>, GameError> {
    let mut header = [0u8; RECORD_BYTES + 2];
    let got = read_up_to(reader, &mut header)?;
    if got == 0 {
        return Ok(None);
    }
    if got < header.len() {
        return Err(GameError::Truncated(header.len() - got));
    }
    let count = u16::from_le_bytes([header[RECORD_BYTES], header[RECORD_BYTES + 1]]) as usize;
    let mut moves = vec![0u8; 4 * count];
    let got = read_up_to(reader, &mut moves)?;
    if got < moves.len() {
        return Err(GameError::Truncated(moves.len() - got));
    }
    let record: [u8; RECORD_BYTES] = header[..RECORD_BYTES].try_into().expect("32 bytes");
    let packed = PackedPosition::from_bytes(&record)?;
    let start = packed.to_position()?;
    let mut pos = start;
    let mut plies = Vec::with_capacity(count);
    for (ply, chunk) in moves.chunks_exact(4).enumerate() {
        let raw = u16::from_le_bytes([chunk[0], chunk[1]]);
        let score = i16::from_le_bytes([chunk[2], chunk[3]]);
        let mv = pos
            .legal_moves()
            .iter()
            .copied()
            .find(|m| m.raw() == raw)
            .ok_or(GameError::IllegalMove { ply, raw })?;
        plies.push((mv, score));
        pos.make_move(mv);
    }
    Ok(Some(Game { start, opening: Vec::new(), result: packed.result, plies }))
}

/// Fills `buffer` as far as the input goes; returns the bytes read.
fn read_up_to(reader: &mut impl Read, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// What reading a data file found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadSummary {
    /// Games read (0 for a record file).
    pub games: usize,
    /// Training positions handed on.
    pub positions: usize,
    /// Records or games that could not be read, skipped.
    pub invalid: usize,
    /// Bytes at the end that do not make a whole record or game.
    pub partial_bytes: usize,
}

/// Whether the file at `path` is a game file (else it is a record file, or empty).
pub fn is_game_file(path: &Path) -> std::io::Result<bool> {
    starts_with(path, &GAMES_MAGIC)
}

/// Whether the file at `path` is a game pack ([`super::pack`]).
pub fn is_pack_file(path: &Path) -> std::io::Result<bool> {
    starts_with(path, &super::pack::PACK_MAGIC)
}

/// Whether the file at `path` begins with the 8-byte `magic`.
fn starts_with(path: &Path, magic: &[u8; 8]) -> std::io::Result<bool> {
    let mut first = [0u8; 8];
    let got = read_up_to(&mut File::open(path)?, &mut first)?;
    Ok(got == first.len() && &first == magic)
}

/// Hands every training position of a data file to `each`, from a game pack or a game file
/// (the training positions of each game) or a file of 32-byte records (every record).
pub fn read_positions(
    path: &Path,
    mut each: impl FnMut(&PackedPosition),
) -> std::io::Result<ReadSummary> {
    let mut summary = ReadSummary::default();
    if is_pack_file(path)? {
        let pack = super::pack::read_pack(path, |game| {
            for record in game.training_records() {
                summary.positions += 1;
                each(&record);
            }
        })?;
        for error in &pack.errors {
            eprintln!("{error}");
        }
        summary.games = pack.games;
        summary.invalid = pack.errors.len();
        summary.partial_bytes = pack.partial_bytes;
        return Ok(summary);
    }
    let game_file = is_game_file(path)?;
    let mut reader = BufReader::with_capacity(1 << 20, File::open(path)?);
    if game_file {
        reader.read_exact(&mut [0u8; GAMES_MAGIC.len()])?;
        loop {
            match read_game(&mut reader) {
                Ok(Some(game)) => {
                    summary.games += 1;
                    for record in game.training_records() {
                        summary.positions += 1;
                        each(&record);
                    }
                }
                Ok(None) => break,
                Err(GameError::Io(error)) => return Err(error),
                Err(GameError::Truncated(missing)) => {
                    summary.partial_bytes = missing;
                    break;
                }
                Err(_) => summary.invalid += 1,
            }
        }
    } else {
        let mut record = [0u8; RECORD_BYTES];
        let length = std::fs::metadata(path)?.len();
        summary.partial_bytes = (length % RECORD_BYTES as u64) as usize;
        while packed::read_record(&mut reader, &mut record)? {
            match PackedPosition::from_bytes(&record) {
                Ok(packed) => {
                    summary.positions += 1;
                    each(&packed);
                }
                Err(_) => summary.invalid += 1,
            }
        }
    }
    Ok(summary)
}

/// Appends games to a game file, writing the magic first when the file is new.
pub fn open_for_append(path: &Path) -> std::io::Result<File> {
    let new = std::fs::metadata(path).map_or(true, |m| m.len() == 0);
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
    if new {
        file.write_all(&GAMES_MAGIC)?;
    } else if !is_game_file(path)? {
        return Err(std::io::Error::other(format!(
            "{} is not a game file (a file of 32-byte records? use --format records)",
            path.display()
        )));
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_game() -> Game {
        let start =
            Position::from_fen("r3k2r/pppq1ppp/2n5/3pp3/1b1PP3/2N2N2/PPPQ1PPP/R3K2R w KQkq - 2 8")
                .unwrap();
        let mut pos = start;
        let mut plies = Vec::new();
        // A capture, a check, castling both ways, quiet moves; scores as a search gives them.
        for (uci, score) in [
            ("d4e5", 30),
            ("d5e4", 25),
            ("e1c1", 20),
            ("e8g8", 22),
            ("f3g5", 40),
            ("d7d2", -31_990),
            ("d1d2", 500),
        ] {
            let mv = pos.legal_moves().iter().copied().find(|m| m.to_uci(false) == uci).unwrap();
            plies.push((mv, score));
            pos.make_move(mv);
        }
        Game { start, opening: Vec::new(), result: 2, plies }
    }

    #[test]
    fn a_game_survives_the_round_trip() {
        let game = sample_game();
        let bytes = game.to_bytes();
        assert_eq!(bytes.len(), 32 + 2 + 4 * 7);
        let mut reader = &bytes[..];
        assert_eq!(read_game(&mut reader).unwrap(), Some(game));
        assert!(read_game(&mut reader).unwrap().is_none());
    }

    #[test]
    fn training_positions_are_quiet_unchecked_and_not_mates() {
        let records = sample_game().training_records();
        // Left out: the capture d4e5 (ply 0) and d5e4 (1), the mate-scored d7d2 (5, also a
        // capture) and the capture d1d2 (6). Kept: the two castlings and f3g5.
        let scores: Vec<i16> = records.iter().map(|r| r.score).collect();
        assert_eq!(scores, [20, 22, 40]);
        assert!(records.iter().all(|r| r.result == 2));
        let first = records[0].to_position().unwrap();
        assert_eq!(first.side_to_move(), crate::chess::Color::White);
    }

    #[test]
    fn a_corrupt_game_is_skipped_and_a_cut_one_ends_the_file() {
        let game = sample_game();
        let mut bytes = game.to_bytes();
        let good = bytes.clone();
        // The first move made illegal (a1a1).
        bytes[34] = 0;
        bytes[35] = 0;
        bytes.extend_from_slice(&good);
        bytes.extend_from_slice(&good[..good.len() - 3]);
        let mut reader = &bytes[..];
        assert!(matches!(read_game(&mut reader), Err(GameError::IllegalMove { ply: 0, .. })));
        assert_eq!(read_game(&mut reader).unwrap(), Some(game));
        assert!(matches!(read_game(&mut reader), Err(GameError::Truncated(3))));
    }

    #[test]
    fn both_file_kinds_are_read_and_appending_keeps_the_kind() {
        let dir = std::env::temp_dir();
        let games_path = dir.join(format!("zwischen-games-{}.bin", std::process::id()));
        let records_path = dir.join(format!("zwischen-records-{}.bin", std::process::id()));
        let _ = std::fs::remove_file(&games_path);
        let game = sample_game();
        for _ in 0..2 {
            let mut file = open_for_append(&games_path).unwrap();
            file.write_all(&game.to_bytes()).unwrap();
        }
        let mut scores = Vec::new();
        let summary = read_positions(&games_path, |r| scores.push(r.score)).unwrap();
        assert_eq!(summary, ReadSummary { games: 2, positions: 6, invalid: 0, partial_bytes: 0 });
        assert_eq!(scores, [20, 22, 40, 20, 22, 40]);

        let records: Vec<u8> = game.training_records().iter().flat_map(|r| r.to_bytes()).collect();
        std::fs::write(&records_path, &records).unwrap();
        let mut read = Vec::new();
        let summary = read_positions(&records_path, |r| read.push(*r)).unwrap();
        assert_eq!(summary.positions, 3);
        assert_eq!(read, game.training_records());
        assert!(open_for_append(&records_path).is_err(), "records are not appended to as games");
        let _ = std::fs::remove_file(&games_path);
        let _ = std::fs::remove_file(&records_path);
    }
}
