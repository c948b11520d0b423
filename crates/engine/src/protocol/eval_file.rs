//! The `EvalFile` option: which evaluation the searches use.

use crate::nnue::{self, Network, NetworkError};
use bashni_rules::Variant;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// Why the network an `EvalFile` value names did not load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalFileError {
    /// `embedded`, but this build carries no network for the variant.
    NoEmbeddedNetwork(Variant),
    /// The file named did not load as a network for the variant.
    Network {
        /// The value given.
        value: String,
        /// What is wrong with the file.
        error: NetworkError,
    },
}

impl fmt::Display for EvalFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalFileError::NoEmbeddedNetwork(variant) => write!(
                f,
                "option EvalFile: this build has no network for {}",
                variant.name()
            ),
            EvalFileError::Network { value, error } => {
                write!(f, "option EvalFile: {value}: {error}")
            }
        }
    }
}

impl std::error::Error for EvalFileError {}

/// The `EvalFile` value naming the network built into the binary: the
/// default, since both networks beat the linear evaluation at equal time
/// (docs/strength.md).
pub const EMBEDDED: &str = "embedded";

/// The `EvalFile` value naming the linear evaluation, kept for comparison
/// (an empty value means the same).
pub const LINEAR: &str = "linear";

/// The network `value` names for `variant`: `None` for the linear
/// evaluation; an error says why a network did not load.
pub fn load(value: &str, variant: Variant) -> Result<Option<Arc<Network>>, EvalFileError> {
    if value.is_empty() || value == LINEAR {
        return Ok(None);
    }
    let net = if value == EMBEDDED {
        nnue::embedded(variant).ok_or(EvalFileError::NoEmbeddedNetwork(variant))?
    } else {
        Network::load(Path::new(value), variant)
    };
    net.map(|net| Some(Arc::new(net)))
        .map_err(|error| EvalFileError::Network {
            value: value.to_string(),
            error,
        })
}

/// The evaluation in force: the `EvalFile` value that loaded and its
/// network (`None`: the linear evaluation).
#[derive(Debug)]
pub struct Evaluation {
    value: String,
    network: Option<Arc<Network>>,
}

impl Evaluation {
    /// The default, `embedded`, for `variant`. Every variant ships a
    /// network and a test loads each; should one still fail to load, the
    /// value says `linear`, which is then what is in force.
    pub fn embedded(variant: Variant) -> Evaluation {
        match load(EMBEDDED, variant) {
            Ok(network) => Evaluation {
                value: EMBEDDED.to_string(),
                network,
            },
            Err(_) => Evaluation {
                value: LINEAR.to_string(),
                network: None,
            },
        }
    }

    /// Load what `value` names; on error nothing changes.
    pub fn set(&mut self, value: &str, variant: Variant) -> Result<(), EvalFileError> {
        self.network = load(value, variant)?;
        self.value = value.to_string();
        Ok(())
    }

    /// The `EvalFile` value in force.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// The network the searches use, if any.
    pub fn network(&self) -> Option<Arc<Network>> {
        self.network.clone()
    }

    /// The variant changed: load the value again for it. If that fails
    /// (a network is for one variant), the linear evaluation takes over.
    pub fn reload(&mut self, variant: Variant) -> Result<(), EvalFileError> {
        load(&self.value, variant)
            .map(|net| self.network = net)
            .inspect_err(|_| self.network = None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_is_linear_and_failures_say_why() {
        assert_eq!(load("", Variant::Bashni), Ok(None));
        assert_eq!(load(LINEAR, Variant::Lasca), Ok(None));
        let missing = load("/nonexistent/net.nnue", Variant::Bashni).unwrap_err();
        assert!(missing.to_string().contains("cannot read"), "{missing}");
        let embedded = EvalFileError::NoEmbeddedNetwork(Variant::Lasca);
        assert!(
            embedded.to_string().contains("no network for lasca"),
            "{embedded}"
        );
    }

    /// Both variants ship a network (docs/train-network.sh): it loads,
    /// is its variant's, and says how it was made.
    #[test]
    fn embedded_networks_load_with_their_provenance() {
        for variant in Variant::ALL {
            let net = load(EMBEDDED, variant)
                .expect("the embedded network loads")
                .expect("a network, not the linear evaluation");
            assert_eq!(net.variant(), variant);
            let provenance = net.provenance();
            assert!(provenance.contains("train"), "{provenance}");
            assert!(
                provenance.contains("made by `bashni selfplay"),
                "{provenance}"
            );
            assert!(provenance.contains("held-out loss"), "{provenance}");
            let default = Evaluation::embedded(variant);
            assert_eq!(default.value(), EMBEDDED);
            assert!(default.network().is_some_and(|n| n.variant() == variant));
        }
    }
}
