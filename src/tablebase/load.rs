//! Loading tables from the directories a `SyzygyPath` names.
//!
//! Every problem is collected, none stops the loading: a directory that cannot be read, a
//! table file that cannot be opened, has the wrong magic bytes or a size no table has (a
//! truncated download). The tables that did load are used.

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use shakmaty::Chess;
use shakmaty_syzygy::Syzygy;

use super::{Tablebases, new_prober};

/// Separates directories in `SyzygyPath`, as in other engines.
pub const PATH_SEPARATOR: char = if cfg!(windows) { ';' } else { ':' };

/// A problem found while loading; the rest of the tables still load.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("SyzygyPath: cannot read the directory '{}': {source}", path.display())]
    Directory { path: PathBuf, source: io::Error },
    #[error("SyzygyPath: cannot read the table '{}': {source}", path.display())]
    Unreadable { path: PathBuf, source: io::Error },
    #[error("SyzygyPath: '{}' is not a valid table ({reason}); it is skipped", path.display())]
    Invalid { path: PathBuf, reason: String },
}

/// What loading found.
#[derive(Debug, Default)]
pub struct LoadReport {
    /// The directories that could be read.
    pub directories: usize,
    pub errors: Vec<LoadError>,
}

/// The directories in a `SyzygyPath` value: separated by `:` (`;` on Windows), each trimmed;
/// empty parts are skipped, and an empty value or `<empty>` names none.
pub fn split_paths(value: &str) -> Vec<PathBuf> {
    let value = value.trim();
    if value.is_empty() || value.eq_ignore_ascii_case("<empty>") {
        return Vec::new();
    }
    value
        .split(PATH_SEPARATOR)
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .collect()
}

impl Tablebases {
    /// Loads the tables in the directories of a `SyzygyPath` value. Files are only checked
    /// here (readable, magic bytes, size); their contents are read when first probed.
    pub fn load(syzygy_path: &str) -> (Tablebases, LoadReport) {
        let mut prober = new_prober();
        let mut report = LoadReport::default();
        let mut wdl = HashSet::new();
        let mut dtz = HashSet::new();
        for directory in split_paths(syzygy_path) {
            let entries = match std::fs::read_dir(&directory) {
                Ok(entries) => entries,
                Err(source) => {
                    report.errors.push(LoadError::Directory { path: directory, source });
                    continue;
                }
            };
            report.directories += 1;
            let mut files: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
            files.sort();
            for path in files {
                let Some(extension) = path.extension().and_then(|e| e.to_str()) else {
                    continue;
                };
                let magic = if extension == Chess::TBW.ext {
                    Chess::TBW.magic
                } else if extension == Chess::TBZ.ext {
                    Chess::TBZ.magic
                } else {
                    continue;
                };
                if let Err(error) = check_file(&path, magic) {
                    report.errors.push(error);
                    continue;
                }
                match prober.add_file(&path) {
                    Ok(()) => {
                        let name = path.file_stem().map(|s| s.to_os_string()).unwrap_or_default();
                        if extension == Chess::TBW.ext {
                            wdl.insert(name);
                        } else {
                            dtz.insert(name);
                        }
                    }
                    // A name that is no material (e.g. `README.rtbw`) or too many pieces.
                    Err(e) if e.kind() == io::ErrorKind::InvalidInput => {
                        report.errors.push(LoadError::Invalid {
                            path,
                            reason: "the name is not a material such as KRPvKR".into(),
                        });
                    }
                    Err(e) => {
                        report.errors.push(LoadError::Invalid { path, reason: e.to_string() })
                    }
                }
            }
        }
        let max_pieces = prober.max_pieces();
        let tables =
            Tablebases { prober, max_pieces, wdl_tables: wdl.len(), dtz_tables: dtz.len() };
        (tables, report)
    }

    /// One line for the GUI: what was found.
    pub fn summary(&self, report: &LoadReport) -> String {
        let directories = match report.directories {
            1 => "1 directory".to_string(),
            n => format!("{n} directories"),
        };
        if self.max_pieces == 0 {
            return format!("Syzygy: no tables found in {directories}");
        }
        format!(
            "Syzygy: found {} WDL and {} DTZ tables, up to {} pieces, in {directories}",
            self.wdl_tables, self.dtz_tables, self.max_pieces
        )
    }
}

/// A table file must open, start with its magic bytes and be 16 bytes over a multiple of 64
/// long (the generator pads every table so); a truncated or foreign file fails here.
fn check_file(path: &Path, magic: [u8; 4]) -> Result<(), LoadError> {
    let unreadable = |source| LoadError::Unreadable { path: path.to_path_buf(), source };
    let invalid =
        |reason: &str| LoadError::Invalid { path: path.to_path_buf(), reason: reason.into() };
    let mut file = File::open(path).map_err(unreadable)?;
    let size = file.metadata().map_err(unreadable)?.len();
    let mut header = [0u8; 4];
    if size < 4 || file.read_exact(&mut header).is_err() {
        return Err(invalid("the file is too short"));
    }
    if header != magic {
        return Err(invalid("wrong magic bytes"));
    }
    if size % 64 != 16 {
        return Err(invalid("the size is not that of a complete table: truncated?"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitting_paths() {
        let sep = PATH_SEPARATOR;
        assert!(split_paths("").is_empty());
        assert!(split_paths("  <empty> ").is_empty());
        assert_eq!(split_paths("/a b/c"), vec![PathBuf::from("/a b/c")]);
        assert_eq!(
            split_paths(&format!("/x{sep} /y {sep}{sep}")),
            vec![PathBuf::from("/x"), PathBuf::from("/y")]
        );
    }

    #[test]
    fn a_missing_directory_is_reported_and_nothing_loads() {
        let (tables, report) = Tablebases::load("/no/such/zwischen/tables");
        assert_eq!(tables.max_pieces(), 0);
        assert_eq!(report.directories, 0);
        assert_eq!(report.errors.len(), 1);
        assert!(report.errors[0].to_string().contains("/no/such/zwischen/tables"));
    }
}
