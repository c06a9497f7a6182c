//! The UCI options: their declarations, current values and `setoption` handling.

use crate::search::strength;

/// Largest `Threads` value accepted.
pub const MAX_THREADS: i64 = 256;
/// Largest `MultiPV` value accepted.
pub const MAX_MULTIPV: i64 = 256;

#[derive(Copy, Clone, Debug)]
enum Kind {
    Spin { default: i64, min: i64, max: i64 },
    Check { default: bool },
    Button,
    Text { default: &'static str },
}

/// `EvalFile` value meaning the network built into the binary.
pub const EMBEDDED_NET: &str = "<internal>";

/// `SyzygyPath` value meaning no tables.
pub const NO_TABLES: &str = "<empty>";
/// The most pieces the Syzygy tables have.
pub const MAX_TB_PIECES: i64 = 7;

const DECLARATIONS: &[(&str, Kind)] = &[
    ("Hash", Kind::Spin { default: 16, min: 1, max: 65_536 }),
    ("Threads", Kind::Spin { default: 1, min: 1, max: MAX_THREADS }),
    ("Move Overhead", Kind::Spin { default: 10, min: 0, max: 5_000 }),
    ("Ponder", Kind::Check { default: false }),
    ("Clear Hash", Kind::Button),
    ("MultiPV", Kind::Spin { default: 1, min: 1, max: MAX_MULTIPV }),
    ("UCI_Chess960", Kind::Check { default: false }),
    ("UCI_ShowWDL", Kind::Check { default: false }),
    ("EvalFile", Kind::Text { default: EMBEDDED_NET }),
    ("SyzygyPath", Kind::Text { default: NO_TABLES }),
    ("SyzygyProbeDepth", Kind::Spin { default: 1, min: 1, max: 100 }),
    ("Syzygy50MoveRule", Kind::Check { default: true }),
    ("SyzygyProbeLimit", Kind::Spin { default: MAX_TB_PIECES, min: 0, max: MAX_TB_PIECES }),
    ("UCI_LimitStrength", Kind::Check { default: false }),
    (
        "UCI_Elo",
        Kind::Spin {
            default: strength::MAX_ELO as i64,
            min: strength::MIN_ELO as i64,
            max: strength::MAX_ELO as i64,
        },
    ),
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub hash_mb: usize,
    pub threads: usize,
    pub move_overhead_ms: i64,
    pub ponder: bool,
    pub multipv: usize,
    pub chess960: bool,
    pub show_wdl: bool,
    pub limit_strength: bool,
    pub elo: u32,
    pub eval_file: String,
    /// Directories of Syzygy tables, as given (`<empty>`: none).
    pub syzygy_path: String,
    pub syzygy_probe_depth: i32,
    pub syzygy_50_move_rule: bool,
    pub syzygy_probe_limit: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: 16,
            threads: 1,
            move_overhead_ms: 10,
            ponder: false,
            multipv: 1,
            chess960: false,
            show_wdl: false,
            limit_strength: false,
            elo: strength::MAX_ELO,
            eval_file: EMBEDDED_NET.to_string(),
            syzygy_path: NO_TABLES.to_string(),
            syzygy_probe_depth: 1,
            syzygy_50_move_rule: true,
            syzygy_probe_limit: MAX_TB_PIECES as usize,
        }
    }
}

/// What the engine must do after an option changed.
#[derive(Debug, PartialEq, Eq)]
pub enum Effect {
    None,
    ResizeHash,
    ResizeThreads,
    ClearHash,
    /// Load the network `eval_file` names (and keep the current one if that fails).
    LoadNetwork,
    /// Load the tables in `syzygy_path`.
    LoadTablebases,
    /// A search constant of a tuning build changed: make new workers (they derive tables
    /// from the constants).
    #[cfg(feature = "tune")]
    Retuned,
}

impl Options {
    /// The strength to play at, when limited.
    pub fn strength(&self) -> Option<strength::Strength> {
        self.limit_strength.then_some(strength::Strength { elo: self.elo })
    }

    /// The `option name ...` lines for the `uci` command.
    pub fn declarations() -> Vec<String> {
        #[cfg(feature = "tune")]
        let tunables = crate::search::params::TUNABLES.iter().map(|t| {
            format!(
                "option name {} type spin default {} min {} max {}",
                t.name, t.default, t.min, t.max
            )
        });
        #[cfg(not(feature = "tune"))]
        let tunables = std::iter::empty();
        DECLARATIONS
            .iter()
            .map(|(name, kind)| match kind {
                Kind::Spin { default, min, max } => {
                    format!("option name {name} type spin default {default} min {min} max {max}")
                }
                Kind::Check { default } => {
                    format!("option name {name} type check default {default}")
                }
                Kind::Button => format!("option name {name} type button"),
                Kind::Text { default } => {
                    format!("option name {name} type string default {default}")
                }
            })
            .chain(tunables)
            .collect()
    }

    /// Applies `setoption name <name> value <value>`; option names ignore case.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<Effect, String> {
        #[cfg(feature = "tune")]
        if let Some(tunable) = crate::search::params::find(name) {
            let number = value.and_then(|v| v.trim().parse::<i32>().ok());
            let number = number.ok_or_else(|| format!("option '{name}' needs an integer"))?;
            crate::search::params::set(tunable, number)?;
            return Ok(Effect::Retuned);
        }
        let Some(&(canonical, kind)) =
            DECLARATIONS.iter().find(|(n, _)| n.eq_ignore_ascii_case(name))
        else {
            return Err(format!("unknown option '{name}'"));
        };
        match kind {
            Kind::Button => Ok(Effect::ClearHash),
            Kind::Text { .. } => {
                let text = value.map(str::trim).unwrap_or_default();
                let empty = text.is_empty() || text.eq_ignore_ascii_case("<empty>");
                if canonical == "SyzygyPath" {
                    self.syzygy_path = if empty { NO_TABLES } else { text }.to_string();
                    return Ok(Effect::LoadTablebases);
                }
                self.eval_file = if empty { EMBEDDED_NET } else { text }.to_string();
                Ok(Effect::LoadNetwork)
            }
            Kind::Check { .. } => {
                let flag = match value.map(str::to_ascii_lowercase).as_deref() {
                    Some("true") => true,
                    Some("false") => false,
                    _ => return Err(format!("option '{canonical}' needs 'true' or 'false'")),
                };
                match canonical {
                    "Ponder" => self.ponder = flag,
                    "UCI_ShowWDL" => self.show_wdl = flag,
                    "UCI_LimitStrength" => self.limit_strength = flag,
                    "Syzygy50MoveRule" => self.syzygy_50_move_rule = flag,
                    _ => self.chess960 = flag,
                }
                Ok(Effect::None)
            }
            Kind::Spin { min, max, .. } => {
                let number = value
                    .and_then(|v| v.trim().parse::<i64>().ok())
                    .filter(|n| (min..=max).contains(n))
                    .ok_or_else(|| {
                        format!("option '{canonical}' needs an integer from {min} to {max}")
                    })?;
                Ok(match canonical {
                    "Hash" => {
                        self.hash_mb = number as usize;
                        Effect::ResizeHash
                    }
                    "Threads" => {
                        self.threads = number as usize;
                        Effect::ResizeThreads
                    }
                    "Move Overhead" => {
                        self.move_overhead_ms = number;
                        Effect::None
                    }
                    "UCI_Elo" => {
                        self.elo = number as u32;
                        Effect::None
                    }
                    "SyzygyProbeDepth" => {
                        self.syzygy_probe_depth = number as i32;
                        Effect::None
                    }
                    "SyzygyProbeLimit" => {
                        self.syzygy_probe_limit = number as usize;
                        Effect::None
                    }
                    _ => {
                        self.multipv = number as usize;
                        Effect::None
                    }
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setting_and_rejecting() {
        let mut o = Options::default();
        assert_eq!(o.set("hash", Some("64")), Ok(Effect::ResizeHash));
        assert_eq!(o.hash_mb, 64);
        assert!(o.set("Hash", Some("0")).is_err());
        assert!(o.set("Hash", Some("lots")).is_err());
        assert!(o.set("Hash", None).is_err());
        assert_eq!(o.hash_mb, 64);
        assert_eq!(o.set("UCI_Chess960", Some("true")), Ok(Effect::None));
        assert!(o.chess960);
        assert!(o.set("Ponder", Some("maybe")).is_err());
        assert!(o.set("No Such Option", Some("1")).is_err());
        assert_eq!(o.set("Clear Hash", None), Ok(Effect::ClearHash));
        assert_eq!(o.set("Move Overhead", Some("100")), Ok(Effect::None));
        assert_eq!(o.move_overhead_ms, 100);
        assert_eq!(o.set("EvalFile", Some("/nets/a b.nnue")), Ok(Effect::LoadNetwork));
        assert_eq!(o.eval_file, "/nets/a b.nnue");
        assert_eq!(o.set("evalfile", None), Ok(Effect::LoadNetwork));
        assert_eq!(o.eval_file, EMBEDDED_NET);
    }

    #[test]
    fn syzygy_options() {
        let mut o = Options::default();
        assert_eq!(o.syzygy_path, NO_TABLES);
        assert_eq!(o.set("SyzygyPath", Some(" /t b/x:/y ")), Ok(Effect::LoadTablebases));
        assert_eq!(o.syzygy_path, "/t b/x:/y");
        assert_eq!(o.set("syzygypath", Some("")), Ok(Effect::LoadTablebases));
        assert_eq!(o.syzygy_path, NO_TABLES);
        assert_eq!(o.set("SyzygyProbeDepth", Some("5")), Ok(Effect::None));
        assert_eq!(o.syzygy_probe_depth, 5);
        assert!(o.set("SyzygyProbeDepth", Some("0")).is_err());
        assert_eq!(o.set("SyzygyProbeLimit", Some("0")), Ok(Effect::None));
        assert_eq!(o.syzygy_probe_limit, 0);
        assert!(o.set("SyzygyProbeLimit", Some("8")).is_err());
        assert_eq!(o.set("Syzygy50MoveRule", Some("false")), Ok(Effect::None));
        assert!(!o.syzygy_50_move_rule);
        assert!(!o.chess960);
    }
}
