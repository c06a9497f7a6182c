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
//! | 4 `n`  | each ply: the move played (u16, [`Move::raw`](crate::chess::Move::raw)) and the search score of the position before it, White's point of view (i16) |
//!
//! Every position of the game is kept, the training filter (quiet best move, no check, no
//! mate score) is applied when the file is read, so that another filter needs no new
//! data. Moves are checked against the legal moves when read: a corrupt game is skipped
//! whole, and the length field lets the reader carry on with the next one.

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;

use thiserror::Error;

use super::game::Game;
use super::packed::{PackedError, PackedPosition, RECORD_BYTES};
use crate::chess::FenError;

/// The first bytes of a game file.
pub const GAMES_MAGIC: [u8; 8] = *b"ZWGAMES1";

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

/// Whether the file at `path` is a game file (else it is a record file, or empty).
pub fn is_game_file(path: &Path) -> std::io::Result<bool> {
    let mut first = [0u8; GAMES_MAGIC.len()];
    let got = read_up_to(&mut File::open(path)?, &mut first)?;
    Ok(got == first.len() && first == GAMES_MAGIC)
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
    use crate::tools::records::game::sample_game;

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
}
