#![deny(missing_docs)]
//! The `bashni` command line and its tools: matches and tournaments,
//! statistics, `analyse`, `annotate`, `selfplay`, `tune` and the board in
//! the browser. The game model is `bashni-rules`, the engine
//! `bashni-engine`, and everything that drives an engine over the text
//! protocol `bashni-host`.

pub mod analyse;
pub mod annotate;
pub mod cli;
pub mod gui;
pub mod openings;
pub mod search_args;
pub mod selfplay;
pub mod serve;
pub mod tournament;
pub mod train;
pub mod tune;

use indicatif::{ProgressBar, ProgressStyle};

/// A bar counting `len` things named `unit` (hidden when `quiet`).
pub(crate) fn progress_bar(len: u64, unit: &str, quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    let template = format!("{{elapsed_precise}} [{{bar:30}}] {{pos}}/{{len}} {unit} {{msg}}");
    bar.set_style(
        ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// A subcommand's arguments parsed from `argv` (the subcommand's name
/// first), as the command line would parse them: for unit tests.
#[cfg(test)]
fn parse_args<A: clap::Args + clap::FromArgMatches>(argv: &[&str]) -> A {
    let command = A::augment_args(clap::Command::new("test"));
    A::from_arg_matches(&command.get_matches_from(argv)).expect("arguments parse")
}
