//! Engine-vs-engine matches over the text protocol (being written).

/// Options of `bashni match` (filled in by the tournament work).
#[derive(clap::Args, Debug)]
pub struct MatchArgs {}

/// Run a match; the tournament work replaces this.
pub fn run_match(_args: MatchArgs) -> anyhow::Result<()> {
    anyhow::bail!("match is not built yet")
}
