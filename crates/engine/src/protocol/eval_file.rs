//! The `EvalFile` option: which evaluation the searches use.

use crate::nnue::{self, Network};
use bashni_rules::Variant;
use std::path::Path;
use std::sync::Arc;

/// The `EvalFile` value naming the network built into the binary.
pub const EMBEDDED: &str = "embedded";

/// The network `value` names for `variant`: `None` for the linear
/// evaluation (an empty value); an error says why a network did not load.
pub fn load(value: &str, variant: Variant) -> Result<Option<Arc<Network>>, String> {
    if value.is_empty() {
        return Ok(None);
    }
    let net = if value == EMBEDDED {
        nnue::embedded(variant).ok_or_else(|| {
            format!(
                "option EvalFile: this build has no network for {}",
                variant.name()
            )
        })?
    } else {
        Network::load(Path::new(value), variant)
    };
    net.map(|net| Some(Arc::new(net)))
        .map_err(|e| format!("option EvalFile: {value}: {e}"))
}

/// The evaluation in force: the `EvalFile` value that loaded and its
/// network (`None`: the linear evaluation).
#[derive(Debug, Default)]
pub struct Evaluation {
    value: String,
    network: Option<Arc<Network>>,
}

impl Evaluation {
    /// Load what `value` names; on error nothing changes.
    pub fn set(&mut self, value: &str, variant: Variant) -> Result<(), String> {
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
    /// (a network is for one variant), the linear evaluation takes over
    /// and the message says so.
    pub fn reload(&mut self, variant: Variant) -> Result<(), String> {
        load(&self.value, variant)
            .map(|net| self.network = net)
            .map_err(|e| {
                self.network = None;
                format!(
                    "{e}; evaluating {} with the linear evaluation",
                    variant.name()
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_is_linear_and_failures_say_why() {
        assert_eq!(load("", Variant::Bashni), Ok(None));
        let missing = load("/nonexistent/net.nnue", Variant::Bashni).unwrap_err();
        assert!(missing.contains("cannot read"), "{missing}");
        let embedded = load(EMBEDDED, Variant::Lasca).unwrap_err();
        assert!(embedded.contains("no network for lasca"), "{embedded}");
    }
}
