//! Reading the training positions of any data file: a game pack ([`super::pack`]), a game
//! file ([`super::games`]) or a file of 32-byte records ([`super::packed`]), told apart by
//! their first bytes. Above the formats: each of them knows nothing of the others.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use super::games::{self, GAMES_MAGIC, GameError};
use super::pack;
use super::packed::{self, PackedPosition, RECORD_BYTES};

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

/// Hands every training position of a data file to `each`, from a game pack or a game file
/// (the training positions of each game) or a file of 32-byte records (every record).
pub fn read_positions(
    path: &Path,
    mut each: impl FnMut(&PackedPosition),
) -> std::io::Result<ReadSummary> {
    let mut summary = ReadSummary::default();
    if pack::is_pack_file(path)? {
        let pack = pack::read_pack(path, |game| {
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
    let game_file = games::is_game_file(path)?;
    let mut reader = BufReader::with_capacity(1 << 20, File::open(path)?);
    if game_file {
        reader.read_exact(&mut [0u8; GAMES_MAGIC.len()])?;
        loop {
            match games::read_game(&mut reader) {
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

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use crate::tools::records::game::sample_game;

    #[test]
    fn both_file_kinds_are_read_and_appending_keeps_the_kind() {
        let dir = std::env::temp_dir();
        let games_path = dir.join(format!("zwischen-games-{}.bin", std::process::id()));
        let records_path = dir.join(format!("zwischen-records-{}.bin", std::process::id()));
        let _ = std::fs::remove_file(&games_path);
        let game = sample_game();
        for _ in 0..2 {
            let mut file = games::open_for_append(&games_path).unwrap();
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
        assert!(
            games::open_for_append(&records_path).is_err(),
            "records are not appended to as games"
        );
        let _ = std::fs::remove_file(&games_path);
        let _ = std::fs::remove_file(&records_path);
    }
}
