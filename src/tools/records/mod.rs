//! The training data formats, below both the data generator that writes them and the
//! trainer that reads them. A self-play [`Game`] ([`game`]) is stored in a game pack
//! ([`pack`], about 2 bytes a training position) or in the older game file ([`games`], 4
//! bytes a ply after a 32-byte start); the oldest format is 32-byte position records
//! ([`packed`]). [`read_positions`] ([`read`]) reads any of them, and [`convert`] turns them
//! into text and text into records.

pub mod checksum;
pub mod game;
pub mod games;
pub mod pack;
pub mod pack_order;
pub mod packed;
pub mod range_coder;
pub mod read;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

pub use game::Game;
pub use packed::{PackedError, PackedPosition, RECORD_BYTES};
pub use read::read_positions;

/// Converts a data file (games or records) to `FEN;R;S` text lines, one a training position,
/// or such text to a record file; returns the number of positions. Unreadable lines, records
/// or games are reported on stderr and skipped.
pub fn convert(input: &str, output: &str, to_text: bool) -> std::io::Result<usize> {
    use std::io::{BufRead, BufReader};
    let mut writer = BufWriter::new(File::create(output)?);
    let mut count = 0;
    if to_text {
        let mut result = Ok(());
        let summary = read_positions(Path::new(input), |packed| {
            if result.is_ok() {
                result = writeln!(writer, "{}", packed.to_text());
            }
        })?;
        result?;
        if summary.invalid > 0 {
            eprintln!("{}: {} records or games could not be read", input, summary.invalid);
        }
        count = summary.positions;
    } else {
        let reader = BufReader::new(File::open(input)?);
        for (number, line) in reader.lines().enumerate() {
            let line = line?;
            if line.trim().is_empty() {
                continue;
            }
            match PackedPosition::from_text(&line) {
                Ok(packed) => {
                    writer.write_all(&packed.to_bytes())?;
                    count += 1;
                }
                Err(error) => eprintln!("line {}: {error}", number + 1),
            }
        }
    }
    writer.flush()?;
    Ok(count)
}
