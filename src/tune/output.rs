//! What `bashni tune` leaves behind: one variant's weights file with the
//! fit's provenance, written over the old one only when asked, and never
//! touching another variant's file.

use anyhow::Context;
use bashni_engine::eval::weights_file::{Provenance, WeightsFile};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The errors of a fit: (fitted positions, held-out positions) before and
/// after, with the K they were measured at.
pub struct FitReport {
    /// The sigmoid's scale.
    pub k: f64,
    /// Full passes over the data.
    pub epochs: u32,
    /// Positions fitted and held out.
    pub positions: (usize, usize),
    /// Every n-th game held out (0: none).
    pub holdout_every: u64,
    /// Error on the fitted and held-out positions before the fit.
    pub before: (f64, f64),
    /// The same after it (with the rounded weights).
    pub after: (f64, f64),
}

impl FitReport {
    /// The `loss` lines of the provenance.
    pub fn loss_lines(&self) -> Vec<String> {
        let mut lines = vec![format!(
            "fit {} positions, K = {:.4}, {} epochs: error {:.6} -> {:.6}",
            self.positions.0, self.k, self.epochs, self.before.0, self.after.0
        )];
        if self.positions.1 > 0 {
            lines.push(format!(
                "held out {} positions (the games whose index is a multiple of {}): error {:.6} -> {:.6}",
                self.positions.1, self.holdout_every, self.before.1, self.after.1
            ));
        }
        lines
    }
}

/// The command line this process was started with, each argument quoted
/// when it holds a blank or a quote, so it can be pasted back.
pub fn this_command() -> String {
    let quote = |arg: String| {
        if arg.is_empty() || arg.contains(|c: char| c.is_whitespace() || c == '\'' || c == '"') {
            format!("'{}'", arg.replace('\'', r"'\''"))
        } else {
            arg
        }
    };
    std::env::args().map(quote).collect::<Vec<_>>().join(" ")
}

/// The commit of the working tree (`git rev-parse HEAD`), marked when
/// tracked files differ from it; a sentence when git cannot say.
pub fn current_commit() -> String {
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git").args(args).output().ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    match git(&["rev-parse", "HEAD"]) {
        Some(head) if !head.is_empty() => {
            match git(&["status", "--porcelain", "--untracked-files=no"]) {
                Some(changes) if !changes.is_empty() => {
                    format!("{head} with uncommitted changes")
                }
                _ => head,
            }
        }
        _ => "unknown (git rev-parse HEAD failed)".to_string(),
    }
}

/// A variant's file in the weights directory `dir`.
pub fn weights_path(dir: &Path, variant: &str) -> PathBuf {
    dir.join(format!("{variant}.txt"))
}

/// Write `file` as its variant's file in `dir`; an existing file is only
/// overwritten with `overwrite` (otherwise the text is printed). Returns
/// whether it was written.
pub fn write_or_print(dir: &Path, file: &WeightsFile, overwrite: bool) -> anyhow::Result<bool> {
    let path = weights_path(dir, &file.variant);
    let text = file.to_string();
    if path.exists() && !overwrite {
        println!("{text}");
        eprintln!(
            "{} exists: the table is printed above; pass --write to overwrite it",
            path.display()
        );
        return Ok(false);
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    eprintln!("wrote {}", path.display());
    Ok(true)
}

/// Provenance of a fresh fit: the sources, this command, the commit, the
/// errors and the parameters held at 0.
pub fn provenance(
    sources: &[String],
    command: &str,
    report: &FitReport,
    dropped: &[&str],
) -> Provenance {
    let mut notes =
        vec!["Started from the weights compiled into the binary that ran the command.".to_string()];
    if !dropped.is_empty() {
        notes.push(format!("Held at 0: {}.", dropped.join(", ")));
    }
    Provenance {
        data: sources.iter().map(|s| Provenance::line(s)).collect(),
        command: Provenance::line(command),
        commit: current_commit(),
        losses: report.loss_lines(),
        notes,
    }
}
