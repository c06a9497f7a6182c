//! Training checkpoints: the float parameters, the optimiser state and the epoch count, so a
//! run can continue where it stopped (`--resume`).
//!
//! Format, little-endian: a 48-byte header, then the body.
//!
//! | bytes  | field |
//! |--------|-------|
//! | 0..4   | magic `ZWTC` |
//! | 4..8   | format version ([`VERSION`]) |
//! | 8..12  | inputs (768) |
//! | 12..16 | hidden width H |
//! | 16..20 | epochs completed |
//! | 20..24 | flags: bit 0 set if the optimiser moments follow the parameters |
//! | 24..32 | optimiser steps taken (u64) |
//! | 32..40 | parameter count P (u64) |
//! | 40..48 | FNV-1a 64 hash of the body |
//!
//! Body (version 2): the architecture in 80 bytes (king buckets, output buckets, mirrored,
//! factoriser as u32 each, then the 64-byte king bucket map; see `eval::file`), the
//! parameters as `f32 [P]` in the network's layout (see `network.rs`), then, with flag bit 0,
//! AdamW's first moments `f32 [P]` and second moments `f32 [P]`. Version 1 had no
//! architecture block (a plain network) and is still read.

use thiserror::Error;

use super::adamw::AdamW;
use super::network::{Architecture, Network};
use crate::eval::INPUTS;
use crate::eval::file::{Buckets, MAX_KING_BUCKETS, MAX_OUTPUT_BUCKETS, fnv1a};

pub const MAGIC: [u8; 4] = *b"ZWTC";
pub const VERSION: u32 = 2;
const ARCHITECTURE_BYTES: usize = 16 + 64;
const HEADER_BYTES: usize = 48;
const HAS_MOMENTS: u32 = 1;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum CheckpointError {
    #[error("not a Zwischen training checkpoint")]
    BadMagic,
    #[error("checkpoint format version {0} is not supported (want 1 or {VERSION})")]
    BadVersion(u32),
    #[error("checkpoint is for {inputs} inputs and {hidden} hidden units, which does not fit")]
    BadShape { inputs: u32, hidden: u32 },
    #[error("checkpoint is {actual} bytes, its header says {expected}")]
    WrongLength { expected: u64, actual: u64 },
    #[error("checkpoint hash does not match: the file is corrupt")]
    BadHash,
}

/// What a checkpoint holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    pub network: Network,
    /// The optimiser moments and step count; without them a resumed run starts fresh moments.
    pub optimiser: Option<(Vec<f32>, Vec<f32>, u64)>,
    pub epoch: u32,
}

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

fn read_u64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

impl Checkpoint {
    pub fn new(network: &Network, adam: &AdamW, epoch: u32) -> Checkpoint {
        Checkpoint {
            network: network.clone(),
            optimiser: Some((adam.m.clone(), adam.v.clone(), adam.steps)),
            epoch,
        }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let params = self.network.params();
        let mut body = Vec::with_capacity(ARCHITECTURE_BYTES + params.len() * 12);
        let architecture = self.network.architecture();
        let buckets = &architecture.buckets;
        for field in [
            buckets.king_buckets() as u32,
            buckets.output as u32,
            u32::from(buckets.mirrored),
            u32::from(architecture.factoriser),
        ] {
            body.extend_from_slice(&field.to_le_bytes());
        }
        body.extend_from_slice(&buckets.king_map);
        let mut put = |values: &[f32]| {
            for value in values {
                body.extend_from_slice(&value.to_le_bytes());
            }
        };
        put(params);
        let (flags, steps) = match &self.optimiser {
            Some((m, v, steps)) => {
                put(m);
                put(v);
                (HAS_MOMENTS, *steps)
            }
            None => (0, 0),
        };
        let mut bytes = Vec::with_capacity(HEADER_BYTES + body.len());
        bytes.extend_from_slice(&MAGIC);
        for field in [VERSION, INPUTS as u32, self.network.hidden() as u32, self.epoch, flags] {
            bytes.extend_from_slice(&field.to_le_bytes());
        }
        bytes.extend_from_slice(&steps.to_le_bytes());
        bytes.extend_from_slice(&(params.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&fnv1a(&body).to_le_bytes());
        bytes.extend_from_slice(&body);
        bytes
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Checkpoint, CheckpointError> {
        if bytes.len() < HEADER_BYTES {
            return Err(CheckpointError::WrongLength {
                expected: HEADER_BYTES as u64,
                actual: bytes.len() as u64,
            });
        }
        if bytes[0..4] != MAGIC {
            return Err(CheckpointError::BadMagic);
        }
        let version = read_u32(bytes, 4);
        if version != 1 && version != VERSION {
            return Err(CheckpointError::BadVersion(version));
        }
        let (inputs, hidden) = (read_u32(bytes, 8), read_u32(bytes, 12));
        let bad_shape = Err(CheckpointError::BadShape { inputs, hidden });
        let body = &bytes[HEADER_BYTES..];
        let (architecture, values) = if version == 1 {
            (Architecture::plain(hidden as usize), body)
        } else {
            if body.len() < ARCHITECTURE_BYTES {
                return Err(CheckpointError::WrongLength {
                    expected: (HEADER_BYTES + ARCHITECTURE_BYTES) as u64,
                    actual: bytes.len() as u64,
                });
            }
            let buckets = Buckets {
                king_map: body[16..80].try_into().expect("64 bytes"),
                mirrored: read_u32(body, 8) != 0,
                output: read_u32(body, 4) as usize,
            };
            if buckets.king_buckets() != read_u32(body, 0) as usize
                || buckets.king_buckets() > MAX_KING_BUCKETS
                || !(1..=MAX_OUTPUT_BUCKETS).contains(&buckets.output)
            {
                return bad_shape;
            }
            let factoriser = read_u32(body, 12) != 0;
            let architecture = Architecture { hidden: hidden as usize, buckets, factoriser };
            (architecture, &body[ARCHITECTURE_BYTES..])
        };
        let count = read_u64(bytes, 32);
        if inputs as usize != INPUTS
            || hidden == 0
            || hidden > 1 << 16
            || count != architecture.param_count() as u64
        {
            return bad_shape;
        }
        let (epoch, flags, steps) = (read_u32(bytes, 16), read_u32(bytes, 20), read_u64(bytes, 24));
        let vectors = if flags & HAS_MOMENTS != 0 { 3 } else { 1 };
        let expected = (bytes.len() - values.len()) as u64 + 4 * count * vectors;
        if bytes.len() as u64 != expected {
            return Err(CheckpointError::WrongLength { expected, actual: bytes.len() as u64 });
        }
        if fnv1a(body) != read_u64(bytes, 40) {
            return Err(CheckpointError::BadHash);
        }
        let mut floats = values
            .chunks_exact(4)
            .map(|chunk| f32::from_le_bytes(chunk.try_into().expect("4 bytes")));
        let mut take = || floats.by_ref().take(count as usize).collect::<Vec<f32>>();
        let network = Network::from_parts(architecture, take()).expect("length checked");
        let optimiser = (vectors == 3).then(|| (take(), take(), steps));
        Ok(Checkpoint { network, optimiser, epoch })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let buckets = Buckets { output: 4, ..crate::tools::train::king_layout(4).unwrap() };
        let architecture = Architecture { hidden: 8, buckets, factoriser: true };
        let network = Network::with_architecture(architecture, 11);
        let mut adam = AdamW::new(network.params().len(), 0.01);
        adam.m.iter_mut().enumerate().for_each(|(i, m)| *m = i as f32 * 1e-3);
        adam.v.iter_mut().enumerate().for_each(|(i, v)| *v = i as f32 * 2e-6);
        adam.steps = 1234;
        let checkpoint = Checkpoint::new(&network, &adam, 7);
        let bytes = checkpoint.to_bytes();
        assert_eq!(Checkpoint::from_bytes(&bytes), Ok(checkpoint.clone()));
        let bare = Checkpoint { optimiser: None, ..checkpoint };
        assert_eq!(Checkpoint::from_bytes(&bare.to_bytes()), Ok(bare));

        let mut corrupt = bytes.clone();
        corrupt[HEADER_BYTES + ARCHITECTURE_BYTES + 5] ^= 0x10;
        assert_eq!(Checkpoint::from_bytes(&corrupt), Err(CheckpointError::BadHash));
        assert!(matches!(
            Checkpoint::from_bytes(&bytes[..bytes.len() - 1]),
            Err(CheckpointError::WrongLength { .. })
        ));
        let mut magic = bytes.clone();
        magic[0] = b'X';
        assert_eq!(Checkpoint::from_bytes(&magic), Err(CheckpointError::BadMagic));
        let mut shape = bytes;
        shape[12] = 9;
        assert!(matches!(Checkpoint::from_bytes(&shape), Err(CheckpointError::BadShape { .. })));
    }
}
