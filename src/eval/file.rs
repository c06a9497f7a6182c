//! The network file: a 48-byte header and the quantised parameters, all little-endian.
//!
//! | bytes  | field |
//! |--------|-------|
//! | 0..4   | magic `ZWNN` |
//! | 4..8   | format version ([`FORMAT_VERSION`]) |
//! | 8..12  | inputs (768) |
//! | 12..16 | hidden width N |
//! | 16..20 | activation (1 = squared clipped ReLU) |
//! | 20..24 | output scale (centipawns per unit of the float output) |
//! | 24..28 | QA, the feature-layer quantisation |
//! | 28..32 | QB, the output-layer quantisation |
//! | 32..40 | payload length in bytes |
//! | 40..48 | FNV-1a 64 hash of the payload |
//!
//! Payload: feature weights `i16 [768][N]` (feature-major), feature biases `i16 [N]`, output
//! weights `i16 [2N]` (first the side to move's half, then the other side's), output bias `i32`.
//! Float values are quantised as weight * QA (feature layer), weight * QB (output weights) and
//! bias * QA * QB (output bias).

use thiserror::Error;

pub const MAGIC: [u8; 4] = *b"ZWNN";
pub const FORMAT_VERSION: u32 = 1;
pub const HEADER_BYTES: usize = 48;
pub const ACTIVATION_SCRELU: u32 = 1;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum NetError {
    #[error("the file is {0} bytes, shorter than the 48-byte header")]
    TooShort(usize),
    #[error("not a Zwischen network (bad magic)")]
    BadMagic,
    #[error("format version {0} is not supported (want {FORMAT_VERSION})")]
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
    #[error("quantisation scale {scale}, QA {qa}, QB {qb} is not supported")]
    BadQuantisation { scale: u32, qa: u32, qb: u32 },
    #[error("payload is {actual} bytes, the header says {expected}")]
    WrongLength { expected: u64, actual: u64 },
    #[error("payload hash does not match the header: the file is corrupt")]
    BadHash,
}

/// A network as stored: plain vectors, no alignment; the engine copies it into its own layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuantisedNet {
    pub inputs: usize,
    pub hidden: usize,
    pub scale: u32,
    pub qa: u32,
    pub qb: u32,
    pub feature_weights: Vec<i16>,
    pub feature_bias: Vec<i16>,
    pub output_weights: Vec<i16>,
    pub output_bias: i32,
}

/// FNV-1a, 64 bits: enough to catch a damaged file.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

impl QuantisedNet {
    fn payload_bytes(inputs: usize, hidden: usize) -> usize {
        2 * (inputs * hidden + hidden + 2 * hidden) + 4
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut payload = Vec::with_capacity(Self::payload_bytes(self.inputs, self.hidden));
        for value in
            self.feature_weights.iter().chain(&self.feature_bias).chain(&self.output_weights)
        {
            payload.extend_from_slice(&value.to_le_bytes());
        }
        payload.extend_from_slice(&self.output_bias.to_le_bytes());
        let mut bytes = Vec::with_capacity(HEADER_BYTES + payload.len());
        bytes.extend_from_slice(&MAGIC);
        for field in [
            FORMAT_VERSION,
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

    /// Reads a file made for `inputs -> hidden`, checking every header field and the hash.
    pub fn from_bytes(
        bytes: &[u8],
        inputs: usize,
        hidden: usize,
    ) -> Result<QuantisedNet, NetError> {
        if bytes.len() < HEADER_BYTES {
            return Err(NetError::TooShort(bytes.len()));
        }
        if bytes[0..4] != MAGIC {
            return Err(NetError::BadMagic);
        }
        let version = read_u32(bytes, 4);
        if version != FORMAT_VERSION {
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
        let (scale, qa, qb) = (read_u32(bytes, 20), read_u32(bytes, 24), read_u32(bytes, 28));
        if scale == 0 || qa == 0 || qb == 0 || qa > 32767 || qb > 32767 || scale > 100_000 {
            return Err(NetError::BadQuantisation { scale, qa, qb });
        }
        let expected = u64::from_le_bytes(bytes[32..40].try_into().expect("8 bytes"));
        let payload = &bytes[HEADER_BYTES..];
        let want = Self::payload_bytes(inputs, hidden) as u64;
        if expected != want || payload.len() as u64 != want {
            return Err(NetError::WrongLength { expected: want, actual: payload.len() as u64 });
        }
        let hash = u64::from_le_bytes(bytes[40..48].try_into().expect("8 bytes"));
        if fnv1a(payload) != hash {
            return Err(NetError::BadHash);
        }
        let mut values = payload.chunks_exact(2).map(|pair| i16::from_le_bytes([pair[0], pair[1]]));
        let mut take = |n: usize| values.by_ref().take(n).collect::<Vec<i16>>();
        let feature_weights = take(inputs * hidden);
        let feature_bias = take(hidden);
        let output_weights = take(2 * hidden);
        let tail = payload.len() - 4;
        let output_bias = i32::from_le_bytes(payload[tail..].try_into().expect("4 bytes"));
        Ok(QuantisedNet {
            inputs,
            hidden,
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
            scale: 400,
            qa: 255,
            qb: 64,
            feature_weights: (0..12).map(|i| i * 7 - 40).collect(),
            feature_bias: vec![1, -2, 3],
            output_weights: vec![5, -6, 7, -8, 9, -10],
            output_bias: -12345,
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
}
