//! The game pack: the format of the self-play data we keep (`data/`), about 2 bytes a
//! training position.
//!
//! A pack file is the 8 bytes `ZWPACK1\n`, then blocks back to back. A block is a 20-byte
//! header and its payload:
//!
//! | bytes | field (little-endian) |
//! |-------|-------|
//! | 4 | `ZWBK`, so a reader can find the next block after a corrupt one |
//! | 4 | payload length in bytes |
//! | 4 | games in the block |
//! | 4 | scored plies in the block (every position with a search score) |
//! | 4 | CRC-32 of the three fields before it and the payload |
//!
//! The payload is one range-coded stream ([`super::range_coder`]) of its games. Each block
//! starts its models afresh, so a block can be read without the ones before it. A game is:
//! its result (0 Black won, 1 draw, 2 White won); its base position, the standard start
//! position (one bit) or any other (a 32-byte [`PackedPosition`]); the unscored opening
//! moves played from it (each an index among the legal moves sorted by their 16-bit code);
//! then the plies the engine searched, each its move and its score:
//!
//! - the move is its rank in the order of [`MoveOrder`], which learns from the block's moves
//!   (the move played is usually among the first few: about 2 bits);
//! - the score (White's point of view, as the search gave it) is its difference from the
//!   previous ply's score, in the context of the size of the previous difference.
//!
//! Every scored position is kept; the training filter is applied when the file is read
//! ([`Game::training_records`], as for [`super::games`]), so another filter needs no new data.

use std::io::{Read, Write};
use std::path::Path;

use thiserror::Error;

use super::checksum::crc32;
use super::game::Game;
use super::pack_order::{MoveOrder, PreviousMove};
use super::packed::{PackedPosition, RECORD_BYTES};
use super::range_coder::{Bit, BitTree, Decoder, Encoder, Magnitude};
use crate::chess::{Move, Position};

/// The first bytes of a pack file.
pub const PACK_MAGIC: [u8; 8] = *b"ZWPACK1\n";
const BLOCK_SYNC: [u8; 4] = *b"ZWBK";
pub const BLOCK_HEADER_BYTES: usize = 20;
/// Games a writer puts in a block: more compress a little better (the models learn longer),
/// fewer lose less when a generator is stopped with a block unwritten.
pub const GAMES_PER_BLOCK: usize = 100;
/// No block is larger than this (a larger length field is corrupt).
const MAX_PAYLOAD: usize = 64 << 20;

/// Contexts of the move rank: in check or not.
const RANK_CONTEXTS: usize = 2;
/// Ranks beyond this share the last probability.
const RANK_STEPS: usize = 48;
/// Contexts of the score difference: the size of the previous difference.
const SCORE_CONTEXTS: usize = 4;

/// The adaptive state of one block's coding, the same on both sides.
struct Models {
    result: BitTree,
    explicit_start: Bit,
    opening_length: Magnitude,
    ply_count: Magnitude,
    /// Unary rank: at step i, whether the rank is greater than i.
    rank: [[Bit; RANK_STEPS]; RANK_CONTEXTS],
    score_same: [Bit; SCORE_CONTEXTS],
    score_up: [Bit; SCORE_CONTEXTS],
    score_size: Vec<Magnitude>,
    order: MoveOrder,
}

impl Models {
    fn new() -> Models {
        Models {
            result: BitTree::new(2),
            explicit_start: Bit::default(),
            opening_length: Magnitude::new(),
            ply_count: Magnitude::new(),
            rank: [[Bit::default(); RANK_STEPS]; RANK_CONTEXTS],
            score_same: [Bit::default(); SCORE_CONTEXTS],
            score_up: [Bit::default(); SCORE_CONTEXTS],
            score_size: vec![Magnitude::new(); SCORE_CONTEXTS],
            order: MoveOrder::default(),
        }
    }
}

fn score_context(previous_difference: i32) -> usize {
    match previous_difference.unsigned_abs() {
        0 => 0,
        1..=12 => 1,
        13..=60 => 2,
        _ => 3,
    }
}

/// The legal moves in the order of their 16-bit codes (for the unscored opening moves).
fn moves_by_code(pos: &Position) -> Vec<Move> {
    let mut moves: Vec<Move> = pos.legal_moves().iter().copied().collect();
    moves.sort_unstable_by_key(|mv| mv.raw());
    moves
}

/// Bits enough for indices below `count`.
fn index_bits(count: usize) -> u32 {
    usize::BITS - count.saturating_sub(1).leading_zeros()
}

fn previous_move(pos: &Position, mv: Move) -> PreviousMove {
    pos.piece_on(mv.from()).map(|piece| (piece, mv.to()))
}

fn encode_game(encoder: &mut Encoder, models: &mut Models, game: &Game) {
    models.result.encode(encoder, u32::from(game.result));
    let standard = game.start == Position::startpos();
    encoder.bit(&mut models.explicit_start, !standard);
    if !standard {
        for byte in PackedPosition::pack(&game.start, 0, 0).to_bytes() {
            encoder.direct_bits(u32::from(byte), 8);
        }
    }
    let mut pos = game.start;
    let mut previous = None;
    models.opening_length.encode(encoder, game.opening.len() as u32);
    for &mv in &game.opening {
        let moves = moves_by_code(&pos);
        let index = moves.iter().position(|&m| m == mv).expect("opening moves are legal");
        encoder.direct_bits(index as u32, index_bits(moves.len()));
        previous = previous_move(&pos, mv);
        pos.make_move(mv);
    }
    models.ply_count.encode(encoder, game.plies.len() as u32);
    let (mut last_score, mut last_difference) = (0i32, 0i32);
    for &(mv, score) in &game.plies {
        let ordered = models.order.ordered(&pos, previous);
        let rank = ordered.iter().position(|&m| m == mv).expect("game moves are legal");
        let bits = &mut models.rank[usize::from(pos.in_check())];
        for step in 0..ordered.len() - 1 {
            encoder.bit(&mut bits[step.min(RANK_STEPS - 1)], rank > step);
            if rank == step {
                break;
            }
        }
        models.order.learn(&pos, &ordered, rank, previous);

        let difference = i32::from(score) - last_score;
        let context = score_context(last_difference);
        encoder.bit(&mut models.score_same[context], difference != 0);
        if difference != 0 {
            encoder.bit(&mut models.score_up[context], difference > 0);
            models.score_size[context].encode(encoder, difference.unsigned_abs() - 1);
        }
        (last_score, last_difference) = (i32::from(score), difference);
        previous = previous_move(&pos, mv);
        pos.make_move(mv);
    }
}

/// Why a game of a block could not be decoded.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum GameDecodeError {
    #[error("bad result {0}")]
    BadResult(u32),
    #[error("bad start position")]
    BadStart,
    #[error("a length beyond any game")]
    BadLength,
    #[error("opening move {0}: index beyond the legal moves")]
    BadOpeningMove(usize),
    #[error("ply {0}: a move in a position without legal moves")]
    NoMoves(usize),
    #[error("ply {0}: a score beyond 16 bits")]
    BadScore(usize),
}

/// Longest game a reader accepts (datagen stops at a few hundred plies).
const MAX_PLIES: u32 = 10_000;

fn decode_game(decoder: &mut Decoder, models: &mut Models) -> Result<Game, GameDecodeError> {
    let result = models.result.decode(decoder);
    if result > 2 {
        return Err(GameDecodeError::BadResult(result));
    }
    let start = if decoder.bit(&mut models.explicit_start) {
        let mut bytes = [0u8; RECORD_BYTES];
        for byte in &mut bytes {
            *byte = decoder.direct_bits(8) as u8;
        }
        let packed = PackedPosition::from_bytes(&bytes).map_err(|_| GameDecodeError::BadStart)?;
        packed.to_position().map_err(|_| GameDecodeError::BadStart)?
    } else {
        Position::startpos()
    };
    let mut pos = start;
    let mut previous = None;
    let opening_length = models.opening_length.decode(decoder).ok_or(GameDecodeError::BadLength)?;
    if opening_length > MAX_PLIES {
        return Err(GameDecodeError::BadLength);
    }
    let mut opening = Vec::with_capacity(opening_length as usize);
    for ply in 0..opening_length as usize {
        let moves = moves_by_code(&pos);
        let index = decoder.direct_bits(index_bits(moves.len())) as usize;
        let mv = *moves.get(index).ok_or(GameDecodeError::BadOpeningMove(ply))?;
        opening.push(mv);
        previous = previous_move(&pos, mv);
        pos.make_move(mv);
    }
    let ply_count = models.ply_count.decode(decoder).ok_or(GameDecodeError::BadLength)?;
    if ply_count > MAX_PLIES {
        return Err(GameDecodeError::BadLength);
    }
    let mut plies = Vec::with_capacity(ply_count as usize);
    let (mut last_score, mut last_difference) = (0i32, 0i32);
    for ply in 0..ply_count as usize {
        let ordered = models.order.ordered(&pos, previous);
        if ordered.is_empty() {
            return Err(GameDecodeError::NoMoves(ply));
        }
        let bits = &mut models.rank[usize::from(pos.in_check())];
        let mut rank = 0;
        while rank < ordered.len() - 1 && decoder.bit(&mut bits[rank.min(RANK_STEPS - 1)]) {
            rank += 1;
        }
        models.order.learn(&pos, &ordered, rank, previous);
        let mv = ordered[rank];

        let context = score_context(last_difference);
        let difference = if decoder.bit(&mut models.score_same[context]) {
            let up = decoder.bit(&mut models.score_up[context]);
            let size = models.score_size[context].decode(decoder);
            let size =
                size.and_then(|s| i32::try_from(s).ok()).ok_or(GameDecodeError::BadScore(ply))?;
            if up { size + 1 } else { -size - 1 }
        } else {
            0
        };
        let score =
            i16::try_from(last_score + difference).map_err(|_| GameDecodeError::BadScore(ply))?;
        plies.push((mv, score));
        (last_score, last_difference) = (i32::from(score), difference);
        previous = previous_move(&pos, mv);
        pos.make_move(mv);
    }
    Ok(Game { start, opening, result: result as u8, plies })
}

/// One block, header and payload, of `games`.
pub fn encode_block(games: &[Game]) -> Vec<u8> {
    let mut encoder = Encoder::default();
    let mut models = Models::new();
    for game in games {
        encode_game(&mut encoder, &mut models, game);
    }
    let payload = encoder.finish();
    let plies: usize = games.iter().map(|g| g.plies.len()).sum();
    let mut block = Vec::with_capacity(BLOCK_HEADER_BYTES + payload.len());
    block.extend_from_slice(&BLOCK_SYNC);
    block.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    block.extend_from_slice(&(games.len() as u32).to_le_bytes());
    block.extend_from_slice(&(plies as u32).to_le_bytes());
    let crc = block_crc(&block[4..16], &payload);
    block.extend_from_slice(&crc.to_le_bytes());
    block.extend_from_slice(&payload);
    block
}

/// The checksum of a block: its length and count fields and its payload.
fn block_crc(fields: &[u8], payload: &[u8]) -> u32 {
    let mut covered = Vec::with_capacity(fields.len() + payload.len());
    covered.extend_from_slice(fields);
    covered.extend_from_slice(payload);
    crc32(&covered)
}

/// The games of a block's payload; on a bad game, the games before it and the error with the
/// bad game's index in the block.
pub fn decode_payload(
    payload: &[u8],
    games: usize,
) -> Result<Vec<Game>, (Vec<Game>, usize, GameDecodeError)> {
    let mut decoder = Decoder::new(payload);
    let mut models = Models::new();
    let mut decoded = Vec::with_capacity(games.min(4096));
    for index in 0..games {
        match decode_game(&mut decoder, &mut models) {
            Ok(game) => decoded.push(game),
            Err(error) => return Err((decoded, index, error)),
        }
    }
    Ok(decoded)
}

/// A block header as read.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BlockHeader {
    pub payload: usize,
    pub games: usize,
    pub plies: usize,
    pub crc: u32,
}

fn read_header(bytes: &[u8]) -> Option<BlockHeader> {
    let field = |i: usize| u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().expect("4 bytes"));
    (bytes.len() >= BLOCK_HEADER_BYTES && bytes[..4] == BLOCK_SYNC).then(|| BlockHeader {
        payload: field(1) as usize,
        games: field(2) as usize,
        plies: field(3) as usize,
        crc: field(4),
    })
}

/// What reading a pack found. `errors` name the file, the block and the games concerned.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PackSummary {
    pub blocks: usize,
    pub games: usize,
    pub plies: usize,
    /// Bytes of the file.
    pub bytes: usize,
    /// Bytes at the end that are not a whole block (a write cut short).
    pub partial_bytes: usize,
    pub errors: Vec<String>,
}

/// Whether `bytes` start like a pack file.
pub fn is_pack(bytes: &[u8]) -> bool {
    bytes.len() >= PACK_MAGIC.len() && bytes[..PACK_MAGIC.len()] == PACK_MAGIC
}

/// Whether the file at `path` is a game pack (reads its first bytes only).
pub fn is_pack_file(path: &Path) -> std::io::Result<bool> {
    let mut first = Vec::with_capacity(PACK_MAGIC.len());
    std::fs::File::open(path)?.take(PACK_MAGIC.len() as u64).read_to_end(&mut first)?;
    Ok(is_pack(&first))
}

/// Hands every game of the pack in `bytes` (named `name` in errors) to `each`, block by block.
/// A corrupt block is reported and skipped (the reader finds the next block by its `ZWBK`
/// mark); a block cut short ends the file. Never panics, whatever the bytes.
pub fn read_pack_bytes(bytes: &[u8], name: &str, mut each: impl FnMut(&Game)) -> PackSummary {
    let mut summary = PackSummary { bytes: bytes.len(), ..PackSummary::default() };
    if !is_pack(bytes) {
        summary.errors.push(format!("{name}: not a game pack (no ZWPACK1 mark)"));
        return summary;
    }
    let mut at = PACK_MAGIC.len();
    // Game numbers count every game a header announced, read or not.
    let mut game_number = 0;
    while at < bytes.len() {
        let block = summary.blocks + 1;
        let Some(header) = read_header(&bytes[at..]) else {
            if bytes.len() - at < BLOCK_HEADER_BYTES
                && bytes[at..].iter().zip(BLOCK_SYNC).all(|(a, b)| *a == b)
            {
                summary.partial_bytes = bytes.len() - at;
                summary.errors.push(format!(
                    "{name}: block {block} at byte {at}: cut short in its header; games from {} on are lost",
                    game_number + 1
                ));
                break;
            }
            let next = find_sync(bytes, at + 1);
            summary.errors.push(format!(
                "{name}: byte {at}: no block starts here; {} bytes skipped to the next block",
                next - at
            ));
            at = next;
            continue;
        };
        let first = game_number + 1;
        let body = at + BLOCK_HEADER_BYTES;
        if header.payload > MAX_PAYLOAD || header.games > header.payload.max(1) * 8 {
            let next = find_sync(bytes, at + 1);
            summary
                .errors
                .push(format!("{name}: block {block} at byte {at}: corrupt header; skipped"));
            summary.blocks += 1;
            at = next;
            continue;
        }
        game_number += header.games;
        let last = game_number;
        if body + header.payload > bytes.len() {
            let next = find_sync(bytes, at + 1);
            if next < bytes.len() {
                // A later block: this one's length is corrupt, not the file cut.
                summary.errors.push(format!(
                    "{name}: block {block} (games {first}-{last}): corrupt length; skipped"
                ));
                summary.blocks += 1;
                at = next;
                continue;
            }
            summary.partial_bytes = bytes.len() - at;
            summary.errors.push(format!(
                "{name}: block {block} (games {first}-{last}): cut short, {} of {} bytes; its games are lost",
                bytes.len() - body,
                header.payload
            ));
            break;
        }
        summary.blocks += 1;
        let fields = &bytes[at + 4..at + 16];
        let payload = &bytes[body..body + header.payload];
        if block_crc(fields, payload) != header.crc {
            summary.errors.push(format!(
                "{name}: block {block} (games {first}-{last}): checksum mismatch; skipped"
            ));
            // The length may be what is corrupt: look for the next block from here.
            at = find_sync(bytes, at + 1);
            continue;
        }
        at = body + header.payload;
        let games = match decode_payload(payload, header.games) {
            Ok(games) if games.iter().map(|g| g.plies.len()).sum::<usize>() != header.plies => {
                summary
                    .errors
                    .push(format!("{name}: block {block} (games {first}-{last}): ply count differs from its header; skipped"));
                continue;
            }
            Ok(games) => games,
            Err((games, index, error)) => {
                summary.errors.push(format!(
                    "{name}: block {block}, game {}: {error}; the block's games from it on are skipped",
                    first + index
                ));
                games
            }
        };
        for game in &games {
            summary.games += 1;
            summary.plies += game.plies.len();
            each(game);
        }
    }
    summary
}

/// The first `ZWBK` at or after `from` (or the end).
fn find_sync(bytes: &[u8], from: usize) -> usize {
    (from..bytes.len().saturating_sub(BLOCK_SYNC.len() - 1))
        .find(|&i| bytes[i..i + BLOCK_SYNC.len()] == BLOCK_SYNC)
        .unwrap_or(bytes.len())
}

/// Reads the pack file at `path` (see [`read_pack_bytes`]).
pub fn read_pack(path: &Path, each: impl FnMut(&Game)) -> std::io::Result<PackSummary> {
    let bytes = std::fs::read(path)?;
    Ok(read_pack_bytes(&bytes, &path.display().to_string(), each))
}

/// The length of the whole blocks at the start of a pack (a write cut short leaves a partial
/// block after them), judged by the headers alone.
fn whole_blocks_length(bytes: &[u8]) -> usize {
    PACK_MAGIC.len() + blocks(bytes).iter().map(|block| block.len()).sum::<usize>()
}

/// The whole blocks at the start of a pack, each its header and payload.
pub fn blocks(bytes: &[u8]) -> Vec<&[u8]> {
    let mut found = Vec::new();
    let mut at = PACK_MAGIC.len();
    while at < bytes.len()
        && let Some(header) = read_header(&bytes[at..])
    {
        let end = at + BLOCK_HEADER_BYTES + header.payload;
        if header.payload > MAX_PAYLOAD || end > bytes.len() {
            break;
        }
        found.push(&bytes[at..end]);
        at = end;
    }
    found
}

/// Appends games to a pack file, a block at a time.
pub struct PackWriter {
    file: std::fs::File,
    pending: Vec<Game>,
    games_per_block: usize,
}

impl PackWriter {
    /// Opens `path` to append to, creating it (with its mark) if it is new. A partial block
    /// at the end (a writer stopped mid-write) is cut off first, so the file stays whole.
    pub fn append(path: &Path, games_per_block: usize) -> std::io::Result<PackWriter> {
        let existing = std::fs::read(path).or_else(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Ok(Vec::new()),
            _ => Err(e),
        })?;
        let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
        if existing.is_empty() {
            file.write_all(&PACK_MAGIC)?;
        } else if !is_pack(&existing) {
            return Err(std::io::Error::other(format!("{} is not a game pack", path.display())));
        } else {
            let whole = whole_blocks_length(&existing);
            if whole < existing.len() {
                eprintln!(
                    "{}: {} bytes of a partial block at the end cut off",
                    path.display(),
                    existing.len() - whole
                );
                file.set_len(whole as u64)?;
            }
        }
        Ok(PackWriter { file, pending: Vec::new(), games_per_block: games_per_block.max(1) })
    }

    /// Adds a game; a full block is written at once.
    pub fn push(&mut self, game: Game) -> std::io::Result<()> {
        self.pending.push(game);
        if self.pending.len() >= self.games_per_block {
            self.write_block()?;
        }
        Ok(())
    }

    /// Writes the games not yet written as a block (a short one if need be). The block is
    /// decoded again first: one that does not give back its games is never written.
    pub fn write_block(&mut self) -> std::io::Result<()> {
        if !self.pending.is_empty() {
            let block = encode_block(&self.pending);
            let decoded = decode_payload(&block[BLOCK_HEADER_BYTES..], self.pending.len());
            if decoded.as_ref().ok() != Some(&self.pending) {
                self.pending.clear();
                return Err(std::io::Error::other(
                    "a block did not decode to its games; not written",
                ));
            }
            self.file.write_all(&block)?;
            self.file.flush()?;
            self.pending.clear();
        }
        Ok(())
    }
}

impl Drop for PackWriter {
    fn drop(&mut self) {
        if let Err(error) = self.write_block() {
            eprintln!("error: the last block could not be written: {error}");
        }
    }
}
