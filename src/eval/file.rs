//! The network file: a 48-byte header and the quantised parameters, all little-endian.
//!
//! | bytes  | field |
//! |--------|-------|
//! | 0..4   | magic `ZWNN` |
//! | 4..8   | format version (1 or 2) |
//! | 8..12  | inputs per king bucket (768) |
//! | 12..16 | hidden width N |
//! | 16..20 | activation (1 = squared clipped ReLU) |
//! | 20..24 | output scale (centipawns per unit of the float output) |
//! | 24..28 | QA, the feature-layer quantisation |
//! | 28..32 | QB, the output-layer quantisation |
//! | 32..40 | payload length in bytes (everything after the header) |
//! | 40..48 | FNV-1a 64 hash of the payload |
//!
//! Version 2 payloads open with the architecture (80 bytes): the number of king buckets K
//! (u32), of output buckets B (u32), whether the board is mirrored left-right when the
//! perspective's king is on files e-h (u32, 0 or 1), 4 reserved zero bytes, and the king
//! bucket of each square from the perspective's side (64 bytes, a1 = 0; the bucket of a
//! mirrored king is read on its mirror square). Version 1 is the same net with K = B = 1, no
//! mirroring, and no architecture block; nets of that shape are still written as version 1.
//!
//! Then the parameters: feature weights `i16 [K][768][N]` (bucket-, then feature-major),
//! feature biases `i16 [N]`, output weights `i16 [B][2N]` (each bucket first the side to
//! move's half, then the other side's), output biases `i32 [B]`. Float values are quantised
//! as weight * QA (feature layer), weight * QB (output weights) and bias * QA * QB (output
//! biases).

use thiserror::Error;

pub const MAGIC: [u8; 4] = *b"ZWNN";
/// The newest format version (version 1 is still read).
pub const FORMAT_VERSION: u32 = 2;
pub const HEADER_BYTES: usize = 48;
pub const ACTIVATION_SCRELU: u32 = 1;
/// The architecture block at the start of a version 2 payload.
const ARCHITECTURE_BYTES: usize = 16 + 64;
/// Limits on the bucket counts a file may declare.
pub const MAX_KING_BUCKETS: usize = 32;
pub const MAX_OUTPUT_BUCKETS: usize = 16;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum NetError {
    #[error("the file is {0} bytes, shorter than the 48-byte header")]
    TooShort(usize),
    #[error("not a Zwischen network (bad magic)")]
    BadMagic,
    #[error("format version {0} is not supported (want 1 or {FORMAT_VERSION})")]
    BadVersion(u32),
    #[error(
        "architecture {inputs}->{hidden} (activation {activation}) does not match this build's {want_inputs}->{want_hidden}"
    )]
    WrongArchitecture {
        inputs: u32,
        hidden: u32,
        activation: u32,
        want_inputs: u32,
        want_hidden: u32,
    },
    #[error("bad bucket layout: {0}")]
    BadBuckets(String),
    #[error("quantisation scale {scale}, QA {qa}, QB {qb} is not supported")]
    BadQuantisation { scale: u32, qa: u32, qb: u32 },
    #[error("payload is {actual} bytes, the header says {expected}")]
    WrongLength { expected: u64, actual: u64 },
    #[error("payload hash does not match the header: the file is corrupt")]
    BadHash,
}

/// How the inputs and outputs are bucketed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Buckets {
    /// The king bucket of each square, seen from the perspective's side (a1 = 0).
    pub king_map: [u8; 64],
    /// Whether a perspective whose king is on files e-h sees the board mirrored left-right.
    pub mirrored: bool,
    /// Output buckets, chosen by the number of pieces on the board.
    pub output: usize,
}

impl Buckets {
    /// One king bucket, no mirroring, one output: the plain (768 -> N) x 2 -> 1 net.
    pub const NONE: Buckets = Buckets { king_map: [0; 64], mirrored: false, output: 1 };

    /// The number of king buckets (the highest bucket in the map, plus one).
    pub fn king_buckets(&self) -> usize {
        usize::from(self.king_map.iter().copied().max().unwrap_or(0)) + 1
    }

    /// The king bucket and the square flip (7 when mirrored left-right, else 0) of a
    /// perspective whose king stands on `relative_king`, seen from its own side.
    #[inline(always)]
    pub fn king_slot(&self, relative_king: u8) -> (u8, u8) {
        let horizontal = if self.mirrored && relative_king % 8 >= 4 { 7 } else { 0 };
        (self.king_map[usize::from(relative_king ^ horizontal)], horizontal)
    }

    /// The output bucket of a position with `pieces` pieces (kings included): the 2..=32
    /// pieces split into `output` equal ranges.
    #[inline(always)]
    pub fn output_bucket(&self, pieces: u32) -> usize {
        ((pieces.saturating_sub(2) as usize * self.output) / 32).min(self.output - 1)
    }

    fn check(&self) -> Result<(), NetError> {
        let kings = self.king_buckets();
        if kings > MAX_KING_BUCKETS {
            return Err(NetError::BadBuckets(format!("{kings} king buckets")));
        }
        if self.output == 0 || self.output > MAX_OUTPUT_BUCKETS {
            return Err(NetError::BadBuckets(format!("{} output buckets", self.output)));
        }
        Ok(())
    }
}

/// A network as stored: plain vectors, no alignment; the engine copies it into its own layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuantisedNet {
    pub inputs: usize,
    pub hidden: usize,
    pub buckets: Buckets,
    pub scale: u32,
    pub qa: u32,
    pub qb: u32,
    /// `[king bucket][input][hidden]`.
    pub feature_weights: Vec<i16>,
    pub feature_bias: Vec<i16>,
    /// `[output bucket][2 * hidden]`.
    pub output_weights: Vec<i16>,
    /// `[output bucket]`.
    pub output_bias: Vec<i32>,
}

/// FNV-1a, 64 bits: enough to catch a damaged file.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Where the header keeps the output scale (a little-endian u32), for tools that rewrite it.
pub const SCALE_OFFSET: usize = 20;

const fn read_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

const fn has_magic(bytes: &[u8]) -> bool {
    bytes.len() >= 4
        && bytes[0] == MAGIC[0]
        && bytes[1] == MAGIC[1]
        && bytes[2] == MAGIC[2]
        && bytes[3] == MAGIC[3]
}

/// The hidden width a net file's header declares (`None` without a header). A const fn, so
/// that the build takes its width from the embedded net.
pub const fn declared_hidden(bytes: &[u8]) -> Option<usize> {
    if bytes.len() < HEADER_BYTES || !has_magic(bytes) {
        return None;
    }
    Some(read_u32(bytes, 12) as usize)
}

impl QuantisedNet {
    fn parameter_bytes(inputs: usize, hidden: usize, buckets: &Buckets) -> usize {
        let (kings, outputs) = (buckets.king_buckets(), buckets.output);
        2 * (kings * inputs * hidden + hidden + outputs * 2 * hidden) + 4 * outputs
    }

    /// Version 1 for nets without buckets (so older builds read them), version 2 otherwise.
    fn version(&self) -> u32 {
        if self.buckets == Buckets::NONE { 1 } else { FORMAT_VERSION }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut payload = Vec::new();
        if self.version() >= 2 {
            let b = &self.buckets;
            for field in [b.king_buckets() as u32, b.output as u32, u32::from(b.mirrored), 0] {
                payload.extend_from_slice(&field.to_le_bytes());
            }
            payload.extend_from_slice(&b.king_map);
        }
        for value in
            self.feature_weights.iter().chain(&self.feature_bias).chain(&self.output_weights)
        {
            payload.extend_from_slice(&value.to_le_bytes());
        }
        for bias in &self.output_bias {
            payload.extend_from_slice(&bias.to_le_bytes());
        }
        let mut bytes = Vec::with_capacity(HEADER_BYTES + payload.len());
        bytes.extend_from_slice(&MAGIC);
        for field in [
            self.version(),
            self.inputs as u32,
            self.hidden as u32,
            ACTIVATION_SCRELU,
            self.scale,
            self.qa,
            self.qb,
        ] {
            bytes.extend_from_slice(&field.to_le_bytes());
        }
        bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&fnv1a(&payload).to_le_bytes());
        bytes.extend_from_slice(&payload);
        bytes
    }

    /// Reads a file made for `inputs -> hidden` (any buckets), checking every header field
    /// and the hash.
    pub fn from_bytes(
        bytes: &[u8],
        inputs: usize,
        hidden: usize,
    ) -> Result<QuantisedNet, NetError> {
        if bytes.len() < HEADER_BYTES {
            return Err(NetError::TooShort(bytes.len()));
        }
        if !has_magic(bytes) {
            return Err(NetError::BadMagic);
        }
        let version = read_u32(bytes, 4);
        if version != 1 && version != FORMAT_VERSION {
            return Err(NetError::BadVersion(version));
        }
        let (file_inputs, file_hidden, activation) =
            (read_u32(bytes, 8), read_u32(bytes, 12), read_u32(bytes, 16));
        if file_inputs as usize != inputs
            || file_hidden as usize != hidden
            || activation != ACTIVATION_SCRELU
        {
            return Err(NetError::WrongArchitecture {
                inputs: file_inputs,
                hidden: file_hidden,
                activation,
                want_inputs: inputs as u32,
                want_hidden: hidden as u32,
            });
        }
        let (scale, qa, qb) =
            (read_u32(bytes, SCALE_OFFSET), read_u32(bytes, 24), read_u32(bytes, 28));
        if scale == 0 || qa == 0 || qb == 0 || qa > 32767 || qb > 32767 || scale > 100_000 {
            return Err(NetError::BadQuantisation { scale, qa, qb });
        }
        let expected = u64::from_le_bytes(bytes[32..40].try_into().expect("8 bytes"));
        let payload = &bytes[HEADER_BYTES..];
        if expected != payload.len() as u64 {
            return Err(NetError::WrongLength { expected, actual: payload.len() as u64 });
        }
        let hash = u64::from_le_bytes(bytes[40..48].try_into().expect("8 bytes"));
        if fnv1a(payload) != hash {
            return Err(NetError::BadHash);
        }
        let (buckets, parameters) = if version == 1 {
            (Buckets::NONE, payload)
        } else {
            if payload.len() < ARCHITECTURE_BYTES {
                return Err(NetError::WrongLength {
                    expected: ARCHITECTURE_BYTES as u64,
                    actual: payload.len() as u64,
                });
            }
            let king_map: [u8; 64] = payload[16..80].try_into().expect("64 bytes");
            let buckets = Buckets {
                king_map,
                mirrored: read_u32(payload, 8) != 0,
                output: read_u32(payload, 4) as usize,
            };
            buckets.check()?;
            if read_u32(payload, 0) as usize != buckets.king_buckets() {
                return Err(NetError::BadBuckets(format!(
                    "{} king buckets declared, the map uses {}",
                    read_u32(payload, 0),
                    buckets.king_buckets()
                )));
            }
            (buckets, &payload[ARCHITECTURE_BYTES..])
        };
        let want = Self::parameter_bytes(inputs, hidden, &buckets);
        if parameters.len() != want {
            return Err(NetError::WrongLength {
                expected: want as u64,
                actual: parameters.len() as u64,
            });
        }
        let mut values =
            parameters.chunks_exact(2).map(|pair| i16::from_le_bytes([pair[0], pair[1]]));
        let mut take = |n: usize| values.by_ref().take(n).collect::<Vec<i16>>();
        let feature_weights = take(buckets.king_buckets() * inputs * hidden);
        let feature_bias = take(hidden);
        let output_weights = take(buckets.output * 2 * hidden);
        let biases = &parameters[parameters.len() - 4 * buckets.output..];
        let output_bias = biases
            .chunks_exact(4)
            .map(|four| i32::from_le_bytes(four.try_into().expect("4 bytes")))
            .collect();
        Ok(QuantisedNet {
            inputs,
            hidden,
            buckets,
            scale,
            qa,
            qb,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small_net() -> QuantisedNet {
        QuantisedNet {
            inputs: 4,
            hidden: 3,
            buckets: Buckets::NONE,
            scale: 400,
            qa: 255,
            qb: 64,
            feature_weights: (0..12).map(|i| i * 7 - 40).collect(),
            feature_bias: vec![1, -2, 3],
            output_weights: vec![5, -6, 7, -8, 9, -10],
            output_bias: vec![-12345],
        }
    }

    #[test]
    fn round_trip() {
        let net = small_net();
        assert_eq!(QuantisedNet::from_bytes(&net.to_bytes(), 4, 3), Ok(net));
    }

    #[test]
    fn damaged_files_are_refused() {
        let bytes = small_net().to_bytes();
        let load = |b: &[u8]| QuantisedNet::from_bytes(b, 4, 3);
        assert_eq!(load(&bytes[..10]), Err(NetError::TooShort(10)));
        let mut truncated = bytes.clone();
        truncated.pop();
        assert!(matches!(load(&truncated), Err(NetError::WrongLength { .. })));
        let mut oversized = bytes.clone();
        oversized.push(0);
        assert!(matches!(load(&oversized), Err(NetError::WrongLength { .. })));
        let mut magic = bytes.clone();
        magic[0] = b'X';
        assert_eq!(load(&magic), Err(NetError::BadMagic));
        let mut version = bytes.clone();
        version[4] = 9;
        assert_eq!(load(&version), Err(NetError::BadVersion(9)));
        assert!(matches!(
            QuantisedNet::from_bytes(&bytes, 4, 5),
            Err(NetError::WrongArchitecture { .. })
        ));
        let mut corrupt = bytes.clone();
        corrupt[HEADER_BYTES + 3] ^= 1;
        assert_eq!(load(&corrupt), Err(NetError::BadHash));
        let mut quantisation = bytes;
        quantisation[24..28].copy_from_slice(&0u32.to_le_bytes());
        assert!(matches!(load(&quantisation), Err(NetError::BadQuantisation { .. })));
    }

    fn bucketed_net() -> QuantisedNet {
        let mut king_map = [0u8; 64];
        for (square, bucket) in king_map.iter_mut().enumerate() {
            *bucket = (square / 16) as u8;
        }
        let buckets = Buckets { king_map, mirrored: true, output: 3 };
        QuantisedNet {
            inputs: 4,
            hidden: 2,
            buckets,
            scale: 400,
            qa: 255,
            qb: 256,
            feature_weights: (0..4 * 4 * 2).map(|i| i * 3 - 50).collect(),
            feature_bias: vec![7, -7],
            output_weights: (0..3 * 4).map(|i| 10 - i).collect(),
            output_bias: vec![1, -2, 300_000],
        }
    }

    #[test]
    fn bucketed_nets_round_trip_as_version_2_and_plain_ones_stay_version_1() {
        let net = bucketed_net();
        let bytes = net.to_bytes();
        assert_eq!(read_u32(&bytes, 4), 2);
        assert_eq!(QuantisedNet::from_bytes(&bytes, 4, 2), Ok(net));
        assert_eq!(read_u32(&small_net().to_bytes(), 4), 1);
    }

    #[test]
    fn bad_bucket_layouts_are_refused() {
        let rewrite = |edit: &dyn Fn(&mut Vec<u8>)| {
            let mut bytes = bucketed_net().to_bytes();
            let mut payload = bytes.split_off(HEADER_BYTES);
            edit(&mut payload);
            bytes[32..40].copy_from_slice(&(payload.len() as u64).to_le_bytes());
            bytes[40..48].copy_from_slice(&fnv1a(&payload).to_le_bytes());
            bytes.extend_from_slice(&payload);
            QuantisedNet::from_bytes(&bytes, 4, 2)
        };
        assert!(matches!(rewrite(&|p| p[0] = 5), Err(NetError::BadBuckets(_))));
        assert!(matches!(rewrite(&|p| p[4] = 0), Err(NetError::BadBuckets(_))));
        assert!(matches!(rewrite(&|p| p[16] = 200), Err(NetError::BadBuckets(_))));
        assert!(matches!(rewrite(&|p| p.truncate(30)), Err(NetError::WrongLength { .. })));
        assert!(matches!(rewrite(&|p| p.push(0)), Err(NetError::WrongLength { .. })));
    }
}
