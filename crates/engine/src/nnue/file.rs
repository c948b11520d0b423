//! The network file: reading and writing, with a typed error naming what
//! is wrong with a file that does not load (docs/tuning.md, "The network
//! file").
//!
//! ```text
//! "BSNN" | version u32 | variant u8 | features u32 | l1 u32 | l2 u32
//! | provenance length u32 | provenance UTF-8
//! | ft weights i16 | ft bias i16 | l1 weights i16 | l1 bias i32
//! | out weights i16 | out bias i32 | FNV-1a 64 of everything before
//! ```
//!
//! Everything little-endian.

use super::features::feature_count;
use super::kernels::{Backend, pair_major};
use super::network::{L1, L2, Network};
use bashni_rules::Variant;
use std::fmt;
use std::path::Path;

const MAGIC: &[u8; 4] = b"BSNN";
/// The format version this build reads and writes.
pub const VERSION: u32 = 1;

/// Why a network file does not load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetworkError {
    /// The file could not be read (the message says why).
    Io(String),
    /// The file does not start with `BSNN`: not a network file.
    Magic,
    /// A format version this build does not read.
    Version {
        /// The file's version.
        found: u32,
    },
    /// The variant byte names no variant.
    UnknownVariant(u8),
    /// The network is for another variant than the one wanted.
    WrongVariant {
        /// The file's variant.
        found: Variant,
        /// The variant asked for.
        wanted: Variant,
    },
    /// A layer size differs from this build's network.
    Size {
        /// Which size ("features", "l1", "l2").
        what: &'static str,
        /// The file's value.
        found: u32,
        /// This build's value.
        expected: u32,
    },
    /// The file ends inside a section.
    Truncated {
        /// The section being read.
        section: &'static str,
    },
    /// The provenance text is not UTF-8.
    Provenance,
    /// The checksum does not match: the weights are corrupt.
    Checksum {
        /// The checksum in the file.
        stored: u64,
        /// The checksum of the bytes read.
        computed: u64,
    },
    /// Bytes follow the checksum.
    TrailingBytes(usize),
}

impl fmt::Display for NetworkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetworkError::Io(message) => write!(f, "cannot read the network file: {message}"),
            NetworkError::Magic => f.write_str("not a bashni network file (no BSNN magic)"),
            NetworkError::Version { found } => write!(
                f,
                "network file format version {found}, this build reads version {VERSION}"
            ),
            NetworkError::UnknownVariant(code) => write!(f, "unknown variant code {code}"),
            NetworkError::WrongVariant { found, wanted } => write!(
                f,
                "the network is for {}, not {}",
                found.name(),
                wanted.name()
            ),
            NetworkError::Size {
                what,
                found,
                expected,
            } => write!(
                f,
                "wrong network size: {what} is {found}, this build expects {expected}"
            ),
            NetworkError::Truncated { section } => {
                write!(f, "the network file ends inside its {section}")
            }
            NetworkError::Provenance => f.write_str("the provenance text is not UTF-8"),
            NetworkError::Checksum { stored, computed } => write!(
                f,
                "corrupt network file: checksum {stored:016x}, contents give {computed:016x}"
            ),
            NetworkError::TrailingBytes(n) => {
                write!(f, "{n} unexpected bytes after the network's checksum")
            }
        }
    }
}

impl std::error::Error for NetworkError {}

fn variant_code(variant: Variant) -> u8 {
    match variant {
        Variant::Bashni => 0,
        Variant::Lasca => 1,
    }
}

fn variant_of(code: u8) -> Result<Variant, NetworkError> {
    Variant::ALL
        .into_iter()
        .find(|&v| variant_code(v) == code)
        .ok_or(NetworkError::UnknownVariant(code))
}

/// FNV-1a, 64 bits: enough to catch a damaged file.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xCBF2_9CE4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

impl Network {
    /// The network as file bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(16 + self.ft_weights.len() * 2 + 4096);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.push(variant_code(self.variant));
        for size in [feature_count(self.variant), L1, L2] {
            out.extend_from_slice(&(size as u32).to_le_bytes());
        }
        out.extend_from_slice(&(self.provenance.len() as u32).to_le_bytes());
        out.extend_from_slice(self.provenance.as_bytes());
        self.ft_weights
            .iter()
            .for_each(|w| out.extend(w.to_le_bytes()));
        self.ft_bias
            .iter()
            .for_each(|w| out.extend(w.to_le_bytes()));
        self.l1_weights
            .iter()
            .for_each(|w| out.extend(w.to_le_bytes()));
        self.l1_bias
            .iter()
            .for_each(|w| out.extend(w.to_le_bytes()));
        self.out_weights
            .iter()
            .for_each(|w| out.extend(w.to_le_bytes()));
        out.extend(self.out_bias.to_le_bytes());
        let checksum = fnv1a(&out);
        out.extend(checksum.to_le_bytes());
        out
    }

    /// Read a network from file bytes, for any variant.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetworkError> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(4, "magic").ok() != Some(&MAGIC[..]) {
            return Err(NetworkError::Magic);
        }
        let found = r.u32("header")?;
        if found != VERSION {
            return Err(NetworkError::Version { found });
        }
        let variant = variant_of(r.take(1, "header")?[0])?;
        for (what, expected) in [("features", feature_count(variant)), ("l1", L1), ("l2", L2)] {
            let found = r.u32("header")?;
            if found != expected as u32 {
                let expected = expected as u32;
                return Err(NetworkError::Size {
                    what,
                    found,
                    expected,
                });
            }
        }
        let length = r.u32("provenance")? as usize;
        let provenance = std::str::from_utf8(r.take(length, "provenance")?)
            .map_err(|_| NetworkError::Provenance)?
            .to_string();
        let features = feature_count(variant);
        let ft_weights = r.array(features * L1, "first layer's weights", i16::from_le_bytes)?;
        let ft_bias = r.array(L1, "first layer's biases", i16::from_le_bytes)?;
        let l1_weights = r.array(L2 * 2 * L1, "second layer's weights", i16::from_le_bytes)?;
        let net = Network {
            variant,
            provenance,
            ft_weights: ft_weights.into(),
            ft_bias,
            l1_pairs: pair_major(&l1_weights).into(),
            l1_weights: l1_weights.into(),
            l1_bias: r.array(L2, "second layer's biases", i32::from_le_bytes)?,
            out_weights: r.array(L2, "output weights", i16::from_le_bytes)?,
            out_bias: r.array(1, "output bias", i32::from_le_bytes)?[0],
            backend: Backend::detect(),
        };
        let computed = fnv1a(&bytes[..r.at]);
        let stored = u64::from_le_bytes(r.fixed("checksum")?);
        if stored != computed {
            return Err(NetworkError::Checksum { stored, computed });
        }
        match bytes.len() - r.at {
            0 => Ok(net),
            extra => Err(NetworkError::TrailingBytes(extra)),
        }
    }

    /// Read a network file and check that it evaluates `variant`.
    pub fn load(path: &Path, variant: Variant) -> Result<Network, NetworkError> {
        let bytes = std::fs::read(path)
            .map_err(|e| NetworkError::Io(format!("{}: {e}", path.display())))?;
        let net = Network::from_bytes(&bytes)?;
        if net.variant != variant {
            return Err(NetworkError::WrongVariant {
                found: net.variant,
                wanted: variant,
            });
        }
        Ok(net)
    }

    /// Write the network file.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        std::fs::write(path, self.to_bytes())
    }
}

/// A cursor over the file's bytes that names the section it runs out in.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, section: &'static str) -> Result<&'a [u8], NetworkError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or(NetworkError::Truncated { section })?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn fixed<const N: usize>(&mut self, section: &'static str) -> Result<[u8; N], NetworkError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N, section)?);
        Ok(out)
    }

    fn u32(&mut self, section: &'static str) -> Result<u32, NetworkError> {
        Ok(u32::from_le_bytes(self.fixed(section)?))
    }

    fn array<T, const N: usize>(
        &mut self,
        count: usize,
        section: &'static str,
        decode: fn([u8; N]) -> T,
    ) -> Result<Vec<T>, NetworkError> {
        (0..count)
            .map(|_| self.fixed(section).map(decode))
            .collect()
    }
}
