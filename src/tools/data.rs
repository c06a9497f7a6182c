//! The self-play data we keep (`data/` in the repository): game packs ([`pack`]) in chunk
//! files of at most 32 MiB, never rewritten once committed, and a manifest
//! (`data/manifest.tsv`) that gives each chunk's counts, origin and SHA-256.
//!
//! `zwischen data stats PATH...` counts files or folders, `zwischen data verify` checks the
//! chunks against the manifest, `zwischen data add FILE` turns a generator's pack into new
//! chunks, and `zwischen data convert` turns older game files (`ZWGAMES1`) into a pack.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use super::records::checksum::sha256_file;
use super::records::games::{self, GameError};
use super::records::pack::{self, PackWriter};

/// Chunks are at most this large (a limit of the hosting of the repository's files).
pub const MAX_CHUNK_BYTES: usize = 32 << 20;
pub const MANIFEST: &str = "manifest.tsv";
const MANIFEST_HEADER: &str =
    "# file\tpositions\tgames\tplies\tbytes\tbuild\tnodes\tseed\tdate\tsha256";

/// What a pack holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub games: usize,
    /// Every searched position (each with its move and score).
    pub plies: usize,
    /// The training positions among them (quiet move, not in check, no mate score).
    pub positions: usize,
    pub bytes: usize,
    pub errors: Vec<String>,
}

impl Counts {
    fn add(&mut self, other: &Counts) {
        self.games += other.games;
        self.plies += other.plies;
        self.positions += other.positions;
        self.bytes += other.bytes;
        self.errors.extend(other.errors.iter().cloned());
    }
}

/// Reads a pack and counts it (decoding every game).
pub fn count(path: &Path) -> std::io::Result<Counts> {
    let mut positions = 0;
    let summary = pack::read_pack(path, |game| positions += game.training_records().len())?;
    Ok(Counts {
        games: summary.games,
        plies: summary.plies,
        positions,
        bytes: summary.bytes,
        errors: summary.errors,
    })
}

/// The pack files among `paths`: files as given, folders searched (not recursively) for
/// files ending in `.zwp`, in name order.
pub fn pack_files(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(path)?
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "zwp"))
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

/// One line of the manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    pub file: String,
    pub positions: usize,
    pub games: usize,
    pub plies: usize,
    pub bytes: usize,
    /// The commit of the build that played the games.
    pub build: String,
    pub nodes: u64,
    pub seed: u64,
    /// The day the chunk was added (YYYY-MM-DD).
    pub date: String,
    pub sha256: String,
}

impl Chunk {
    fn to_line(&self) -> String {
        format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            self.file,
            self.positions,
            self.games,
            self.plies,
            self.bytes,
            self.build,
            self.nodes,
            self.seed,
            self.date,
            self.sha256
        )
    }

    fn from_line(line: &str) -> Option<Chunk> {
        let fields: Vec<&str> = line.split('\t').collect();
        let [file, positions, games, plies, bytes, build, nodes, seed, date, sha256] = fields[..]
        else {
            return None;
        };
        Some(Chunk {
            file: file.to_string(),
            positions: positions.parse().ok()?,
            games: games.parse().ok()?,
            plies: plies.parse().ok()?,
            bytes: bytes.parse().ok()?,
            build: build.to_string(),
            nodes: nodes.parse().ok()?,
            seed: seed.parse().ok()?,
            date: date.to_string(),
            sha256: sha256.to_string(),
        })
    }
}

/// The chunks listed in `dir`'s manifest (none if it has no manifest yet).
pub fn read_manifest(dir: &Path) -> Result<Vec<Chunk>, String> {
    let path = dir.join(MANIFEST);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|(number, line)| {
            Chunk::from_line(line).ok_or_else(|| {
                format!("{} line {}: not a manifest line", path.display(), number + 1)
            })
        })
        .collect()
}

fn write_manifest(dir: &Path, chunks: &[Chunk]) -> std::io::Result<()> {
    let mut text = String::from(MANIFEST_HEADER);
    text.push('\n');
    for chunk in chunks {
        text.push_str(&chunk.to_line());
        text.push('\n');
    }
    std::fs::write(dir.join(MANIFEST), text)
}

/// Checks every chunk of the manifest in `dir` (size, SHA-256, every block decoded, counts)
/// and that every pack in `dir` is listed; returns one line per problem (none: clean).
pub fn verify(dir: &Path, mut progress: impl FnMut(&str)) -> Result<Vec<String>, String> {
    let chunks = read_manifest(dir)?;
    let mut problems = Vec::new();
    for chunk in &chunks {
        let path = dir.join(&chunk.file);
        let metadata = match std::fs::metadata(&path) {
            Ok(metadata) => metadata,
            Err(error) => {
                problems.push(format!("{}: {error}", path.display()));
                continue;
            }
        };
        if metadata.len() as usize != chunk.bytes {
            problems.push(format!(
                "{}: {} bytes, the manifest says {}",
                path.display(),
                metadata.len(),
                chunk.bytes
            ));
        }
        match sha256_file(&path) {
            Ok(sha) if sha == chunk.sha256 => {}
            Ok(sha) => problems.push(format!(
                "{}: sha256 {sha}, the manifest says {}",
                path.display(),
                chunk.sha256
            )),
            Err(error) => problems.push(format!("{}: {error}", path.display())),
        }
        match count(&path) {
            Ok(counts) => {
                problems.extend(counts.errors.iter().cloned());
                let found = (counts.positions, counts.games, counts.plies);
                let listed = (chunk.positions, chunk.games, chunk.plies);
                if found != listed {
                    problems.push(format!(
                        "{}: {found:?} (positions, games, plies), the manifest says {listed:?}",
                        path.display()
                    ));
                }
            }
            Err(error) => problems.push(format!("{}: {error}", path.display())),
        }
        progress(&format!("{}: checked", chunk.file));
    }
    let listed: Vec<&str> = chunks.iter().map(|c| c.file.as_str()).collect();
    for file in pack_files(&[dir.to_path_buf()]).map_err(|e| e.to_string())? {
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if !listed.contains(&name.as_str()) {
            problems.push(format!("{}: not in the manifest", file.display()));
        }
    }
    Ok(problems)
}

/// Where a pack added to `data/` came from.
pub struct Origin {
    pub build: String,
    pub nodes: u64,
    pub seed: u64,
    pub date: String,
}

/// Adds the games of the pack `source` to `dir` as new chunks (split at block boundaries
/// so none exceeds [`MAX_CHUNK_BYTES`]), named `DATE-BUILD-nNODES-sSEED[-PART].zwp`, and lists
/// them in the manifest. Refuses a source with any error, and never overwrites a chunk.
pub fn add(dir: &Path, source: &Path, origin: &Origin) -> Result<Vec<Chunk>, String> {
    let bytes = std::fs::read(source).map_err(|e| format!("{}: {e}", source.display()))?;
    let name = source.display().to_string();
    let summary = pack::read_pack_bytes(&bytes, &name, |_| {});
    if let Some(error) = summary.errors.first() {
        return Err(format!("{error} (mend or cut the file before adding it)"));
    }
    let mut chunks = read_manifest(dir)?;
    let base = format!("{}-{}-n{}-s{}", origin.date, origin.build, origin.nodes, origin.seed);
    // Split the blocks into pieces that fit a chunk.
    let mut pieces: Vec<Vec<u8>> = Vec::new();
    let mut current = pack::PACK_MAGIC.to_vec();
    for block in pack::blocks(&bytes) {
        if current.len() + block.len() > MAX_CHUNK_BYTES && current.len() > pack::PACK_MAGIC.len() {
            pieces.push(std::mem::replace(&mut current, pack::PACK_MAGIC.to_vec()));
        }
        current.extend_from_slice(block);
    }
    if current.len() > pack::PACK_MAGIC.len() {
        pieces.push(current);
    }
    let mut added = Vec::new();
    for (part, piece) in pieces.iter().enumerate() {
        let file = if pieces.len() == 1 {
            format!("{base}.zwp")
        } else {
            format!("{base}-{}.zwp", part + 1)
        };
        let path = dir.join(&file);
        if path.exists() || chunks.iter().any(|c| c.file == file) {
            return Err(format!("{} exists already: chunks are never rewritten", path.display()));
        }
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        std::fs::write(&path, piece).map_err(|e| format!("{}: {e}", path.display()))?;
        let counts = count(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let chunk = Chunk {
            file,
            positions: counts.positions,
            games: counts.games,
            plies: counts.plies,
            bytes: counts.bytes,
            build: origin.build.clone(),
            nodes: origin.nodes,
            seed: origin.seed,
            date: origin.date.clone(),
            sha256: sha256_file(&path).map_err(|e| format!("{}: {e}", path.display()))?,
        };
        chunks.push(chunk.clone());
        added.push(chunk);
    }
    write_manifest(dir, &chunks).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(added)
}

/// Converts game files (`ZWGAMES1`) into one pack; returns the games written. Each block is
/// decoded again and compared with the games it was made from before it is written.
pub fn convert(inputs: &[PathBuf], output: &Path) -> Result<usize, String> {
    if output.exists() {
        return Err(format!("{} exists already", output.display()));
    }
    let mut writer =
        PackWriter::append(output, pack::GAMES_PER_BLOCK).map_err(|e| e.to_string())?;
    let mut written = 0;
    for input in inputs {
        let file = File::open(input).map_err(|e| format!("{}: {e}", input.display()))?;
        let mut reader = BufReader::with_capacity(1 << 20, file);
        let mut magic = [0u8; games::GAMES_MAGIC.len()];
        std::io::Read::read_exact(&mut reader, &mut magic)
            .map_err(|e| format!("{}: {e}", input.display()))?;
        if magic != games::GAMES_MAGIC {
            return Err(format!("{}: not a ZWGAMES1 game file", input.display()));
        }
        let mut number = 0;
        loop {
            number += 1;
            match games::read_game(&mut reader) {
                Ok(Some(game)) => {
                    writer.push(game).map_err(|e| e.to_string())?;
                    written += 1;
                }
                Ok(None) => break,
                Err(GameError::Truncated(missing)) => {
                    eprintln!(
                        "{}: game {number} cut short ({missing} bytes missing); the file ends there",
                        input.display()
                    );
                    break;
                }
                Err(GameError::Io(error)) => return Err(format!("{}: {error}", input.display())),
                Err(error) => eprintln!("{}: game {number}: {error}; skipped", input.display()),
            }
        }
    }
    writer.write_block().map_err(|e| e.to_string())?;
    Ok(written)
}

/// The stats line: `N positions, M bytes (X bytes a position)`.
pub fn stats_line(counts: &Counts) -> String {
    let per = counts.bytes as f64 / counts.positions.max(1) as f64;
    format!("{} positions, {} bytes ({per:.2} bytes a position)", counts.positions, counts.bytes)
}

/// Counts every pack among `paths` (files or folders): one line per file, then the total.
pub fn stats(paths: &[PathBuf], out: &mut impl std::io::Write) -> std::io::Result<Counts> {
    let mut total = Counts::default();
    for file in pack_files(paths)? {
        let counts = count(&file)?;
        for error in &counts.errors {
            writeln!(out, "{error}")?;
        }
        writeln!(
            out,
            "{}: {} games, {} plies, {}",
            file.display(),
            counts.games,
            counts.plies,
            stats_line(&counts)
        )?;
        total.add(&counts);
    }
    writeln!(
        out,
        "total: {} games, {} plies ({:.2} bytes a ply), {} errors",
        total.games,
        total.plies,
        total.bytes as f64 / total.plies.max(1) as f64,
        total.errors.len()
    )?;
    writeln!(out, "{}", stats_line(&total))?;
    Ok(total)
}
