//! The search limits `analyse` and `annotate` take on the command line:
//! one set of flags, checked the same way, for every command that searches
//! positions one after another.

use anyhow::Context;
use bashni_engine::nnue::Network;
use bashni_engine::protocol::{EMBEDDED, load_eval_file};
use bashni_engine::search::Limits;
use bashni_engine::tt::{LockFreeTable, Table};
use bashni_rules::Variant;
use std::sync::{Arc, Mutex};

/// How long to search each position, and with what.
#[derive(clap::Args, Debug, Clone)]
pub struct SearchArgs {
    /// Search depth per position (when no limit is given: 10 for
    /// `analyse`, 8 for `annotate`).
    #[arg(long, conflicts_with_all = ["movetime", "nodes"], value_parser = clap::value_parser!(u32).range(1..=100))]
    pub depth: Option<u32>,
    /// Milliseconds per position.
    #[arg(long, conflicts_with = "nodes", value_parser = clap::value_parser!(u64).range(1..))]
    pub movetime: Option<u64>,
    /// Nodes per position.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    /// Search threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: u32,
    /// Hash table size in MiB.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub hash: u32,
    /// The evaluation, as the engine's `EvalFile`: `embedded` (each
    /// variant's built-in network, the engine's default), `linear`, or a
    /// network file.
    #[arg(long, default_value = EMBEDDED)]
    pub eval_file: String,
}

impl SearchArgs {
    /// The depth searched: the one given, or `default_depth` when no
    /// limit at all was given.
    fn depth(&self, default_depth: u32) -> Option<u32> {
        let unlimited = self.movetime.is_none() && self.nodes.is_none();
        self.depth.or(unlimited.then_some(default_depth))
    }

    /// The limits of each search.
    pub fn limits(&self, default_depth: u32) -> Limits {
        Limits {
            depth: self.depth(default_depth),
            movetime: self.movetime,
            nodes: self.nodes,
            ..Limits::default()
        }
    }

    /// The limit as words (`depth 8`, `movetime 100`, `nodes 5000`).
    pub fn describe(&self, default_depth: u32) -> String {
        match (self.movetime, self.nodes) {
            (Some(ms), _) => format!("movetime {ms}"),
            (None, Some(n)) => format!("nodes {n}"),
            (None, None) => format!("depth {}", self.depth.unwrap_or(default_depth)),
        }
    }

    /// The hash table of `--hash` MiB.
    pub fn table(&self) -> anyhow::Result<LockFreeTable> {
        LockFreeTable::try_with_megabytes(self.hash as usize)
            .with_context(|| format!("cannot allocate a {} MiB table", self.hash))
    }
}

/// The networks an `EvalFile` value names, each variant's loaded the first
/// time a position of that variant is searched (a network file is for one
/// variant, so it is an error only when a position of another turns up).
pub struct Networks {
    value: String,
    loaded: Mutex<Vec<(Variant, Option<Arc<Network>>)>>,
}

impl Networks {
    /// The networks `value` names (`embedded`, `linear` or a file).
    pub fn new(value: &str) -> Networks {
        Networks {
            value: value.to_string(),
            loaded: Mutex::new(Vec::new()),
        }
    }

    /// The network for `variant` (`None`: the linear evaluation).
    pub fn for_variant(&self, variant: Variant) -> anyhow::Result<Option<Arc<Network>>> {
        let mut loaded = self.loaded.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, network)) = loaded.iter().find(|(v, _)| *v == variant) {
            return Ok(network.clone());
        }
        let network = load_eval_file(&self.value, variant).context("--eval-file")?;
        loaded.push((variant, network.clone()));
        Ok(network)
    }
}
