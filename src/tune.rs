//! Texel tuning: fit the evaluation's weights to positions labelled with
//! game results (docs/tuning.md).
//!
//! The score is linear in the weights (src/eval: a weighted sum of counts,
//! blended by a phase that does not depend on them), so each position is
//! read once into its sparse counts and phase, and the tuner works on
//! those. The error is the mean squared difference between the result and
//! `sigmoid(K * score)`; K is fitted first with the weights as they are,
//! then Adam moves every weight (midgame and endgame part) with K held.
//! The data is read by `data` (lines of [`crate::selfplay::record`]),
//! and each fitted variant's weights file is written by `output`.

mod data;
pub(crate) mod output;

use anyhow::bail;
use bashni_engine::eval::weights_file::WeightsFile;
use bashni_engine::eval::{self, PARAMS, Param, Tuning, WEIGHT_LIMIT, Weights};
use bashni_rules::{Position, Variant};
use data::{DataSet, read_data};
use output::FitReport;
use rayon::prelude::*;
use std::path::PathBuf;

/// `bashni tune`.
#[derive(clap::Args, Debug)]
pub struct TuneArgs {
    /// Data files written by `bashni selfplay`.
    #[arg(required = true)]
    pub data: Vec<PathBuf>,
    /// Full passes over the data.
    #[arg(long, default_value_t = 400)]
    pub epochs: u32,
    /// Adam's step size in centi-men.
    #[arg(long, default_value_t = 1.0)]
    pub learning_rate: f64,
    /// Every n-th game (by index) is held out to measure the error on
    /// positions the fit never saw; 0 holds none out.
    #[arg(long, default_value_t = 10)]
    pub holdout_every: u64,
    /// Fit only this variant (by default every variant the data holds).
    /// A variant not fitted keeps its weights file untouched.
    #[arg(long)]
    pub variant: Option<Variant>,
    /// The directory of the weights files: each fitted variant's table
    /// goes to `<out>/<variant>.txt`.
    #[arg(long, default_value = "crates/engine/src/eval/weights")]
    pub out: PathBuf,
    /// Overwrite a variant's file if it exists (otherwise the table is
    /// printed).
    #[arg(long)]
    pub write: bool,
    /// After the fit, refit with each parameter held at 0 in turn and
    /// print how much the held-out error rises: a parameter whose removal
    /// costs no more than the noise of the held-out games is noise. Then
    /// eliminate backwards, cheapest first, while the removed set stays
    /// noise together, and name that set: candidates to refit with
    /// `--drop` and to confirm by a match, since a rise within the margin
    /// is no proof of none (docs/tuning.md).
    #[arg(long)]
    pub ablation: bool,
    /// Adam steps of each ablation refit (started from the full fit).
    #[arg(long, default_value_t = 100)]
    pub ablation_epochs: u32,
    /// Hold this parameter at 0 (by its name in the weights files),
    /// to fit without it; repeat for several.
    #[arg(long = "drop", value_name = "PARAMETER")]
    pub dropped: Vec<String>,
}

/// Parameters held at their current weight: those the declaration marks
/// [`Tuning::Pinned`], because their counts are tied to others' and the
/// data could not tell their weights apart (the reasons are there).
fn pinned() -> Vec<usize> {
    (0..Param::COUNT)
        .filter(|&p| PARAMS[p].tuning == Tuning::Pinned)
        .collect()
}

/// One position as the tuner sees it.
#[derive(Clone, Debug)]
pub struct Sample {
    /// (parameter, White's count minus Black's), non-zero counts only.
    pub counts: Vec<(u8, i16)>,
    /// Midgame share, 0..=1.
    pub phase: f64,
    /// Game result from White's view: 1, 0.5 or 0 (or a probability).
    pub result: f64,
    /// The game it comes from (positions of one game are not independent).
    pub game: u64,
}

impl Sample {
    /// The counts and phase of `pos`, labelled with `result` (game 0).
    pub fn new(pos: &Position, result: f64) -> Sample {
        let f = eval::features(pos);
        let counts = (0..Param::COUNT)
            .filter(|&p| f.counts[p] != 0)
            .map(|p| (p as u8, f.counts[p] as i16))
            .collect();
        Sample {
            counts,
            phase: f64::from(f.phase) / f64::from(eval::PHASE_MAX),
            result,
            game: 0,
        }
    }

    /// The score from White's view under `theta` (see [`theta_of`]).
    fn score(&self, theta: &[f64]) -> f64 {
        let (mg, eg) = self.counts.iter().fold((0.0, 0.0), |(mg, eg), &(p, c)| {
            let p = p as usize;
            (
                mg + theta[2 * p] * f64::from(c),
                eg + theta[2 * p + 1] * f64::from(c),
            )
        });
        mg * self.phase + eg * (1.0 - self.phase)
    }

    /// The squared error of the prediction under `theta` and `k`.
    fn error(&self, theta: &[f64], k: f64) -> f64 {
        (self.result - sigmoid(k, self.score(theta))).powi(2)
    }
}

/// The weights as one vector: midgame and endgame part of each parameter.
pub fn theta_of(w: &Weights) -> Vec<f64> {
    w.params
        .iter()
        .flat_map(|p| [f64::from(p.mg), f64::from(p.eg)])
        .collect()
}

/// The vector back as a table (rounded to whole centi-men; every weight
/// is already within [`WEIGHT_LIMIT`], see [`adam`]).
pub fn weights_of(theta: &[f64], template: &Weights) -> Weights {
    let mut w = template.clone();
    for (p, weight) in w.params.iter_mut().enumerate() {
        *weight = eval::pair(theta[2 * p].round() as i32, theta[2 * p + 1].round() as i32);
    }
    w
}

/// Win probability for White at `score` centi-men.
fn sigmoid(k: f64, score: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * score / 400.0))
}

/// Mean squared error of the predictions against the results.
pub fn error(samples: &[Sample], theta: &[f64], k: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let sum: f64 = samples.par_iter().map(|s| s.error(theta, k)).sum();
    sum / samples.len() as f64
}

/// The K that minimises the error with the weights fixed: a scan, then
/// finer scans around the best (the error is smooth and single-dipped in K).
pub fn fit_k(samples: &[Sample], theta: &[f64]) -> f64 {
    let scores: Vec<f64> = samples.par_iter().map(|s| s.score(theta)).collect();
    let err = |k: f64| -> f64 {
        samples
            .par_iter()
            .zip(&scores)
            .map(|(s, &e)| (s.result - sigmoid(k, e)).powi(2))
            .sum()
    };
    let (mut best, mut step) = (1.0, 0.5);
    for _ in 0..6 {
        let candidates = (-10..=10).map(|i| best + f64::from(i) * step / 5.0);
        best = candidates
            .filter(|&k| k > 0.0)
            .min_by(|&a, &b| err(a).total_cmp(&err(b)))
            .unwrap_or(best);
        step /= 5.0;
    }
    best
}

/// The error's gradient with respect to every weight.
fn gradient(samples: &[Sample], theta: &[f64], k: f64) -> Vec<f64> {
    let scale = k * std::f64::consts::LN_10 / 400.0;
    let mut grad = samples
        .par_iter()
        .fold(
            || vec![0.0; theta.len()],
            |mut g, s| {
                let p = sigmoid(k, s.score(theta));
                let d = -2.0 * (s.result - p) * p * (1.0 - p) * scale;
                for &(param, c) in &s.counts {
                    let c = f64::from(c) * d;
                    g[2 * param as usize] += c * s.phase;
                    g[2 * param as usize + 1] += c * (1.0 - s.phase);
                }
                g
            },
        )
        .reduce(
            || vec![0.0; theta.len()],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        );
    let n = samples.len().max(1) as f64;
    grad.iter_mut().for_each(|g| *g /= n);
    grad
}

/// Adam over the weights, `epochs` full-batch steps; `report` gets each
/// epoch's number and training error. The `frozen` parameters do not move;
/// the others stay within [`WEIGHT_LIMIT`] (the range a weights file may
/// hold), clamped after each step.
pub fn adam(
    samples: &[Sample],
    theta: &mut [f64],
    k: f64,
    (epochs, learning_rate): (u32, f64),
    frozen: &[usize],
    report: &mut dyn FnMut(u32, f64),
) {
    let (beta1, beta2, epsilon): (f64, f64, f64) = (0.9, 0.999, 1e-12);
    let mut m = vec![0.0; theta.len()];
    let mut v = vec![0.0; theta.len()];
    for epoch in 1..=epochs {
        let mut grad = gradient(samples, theta, k);
        for &p in frozen {
            grad[2 * p] = 0.0;
            grad[2 * p + 1] = 0.0;
        }
        let (c1, c2) = (
            1.0 - beta1.powi(epoch as i32),
            1.0 - beta2.powi(epoch as i32),
        );
        for i in 0..theta.len() {
            m[i] = beta1 * m[i] + (1.0 - beta1) * grad[i];
            v[i] = beta2 * v[i] + (1.0 - beta2) * grad[i] * grad[i];
            theta[i] -= learning_rate * (m[i] / c1) / ((v[i] / c2).sqrt() + epsilon);
            theta[i] = theta[i].clamp(-f64::from(WEIGHT_LIMIT), f64::from(WEIGHT_LIMIT));
        }
        report(epoch, error(samples, theta, k));
    }
}

/// The parameters that do not move in this run: the tied ones and those
/// named by `--drop` (held at 0).
fn held_parameters(args: &TuneArgs) -> anyhow::Result<(Vec<usize>, Vec<usize>)> {
    let dropped = args
        .dropped
        .iter()
        .map(|name| {
            Param::by_name(name).ok_or_else(|| {
                anyhow::anyhow!(
                    "--drop {name}: no such parameter (one of: {})",
                    Param::names().collect::<Vec<_>>().join(", ")
                )
            })
        })
        .collect::<anyhow::Result<Vec<usize>>>()?;
    let pinned = pinned();
    if let Some(&p) = dropped.iter().find(|p| pinned.contains(p)) {
        bail!(
            "--drop {}: it pins the scale and cannot be dropped",
            Param::name(p)
        );
    }
    let frozen = pinned.iter().chain(&dropped).copied().collect();
    Ok((frozen, dropped))
}

/// Fit one variant's weights, starting from the compiled-in table;
/// returns the table and the errors before and after.
fn tune_variant(
    variant: Variant,
    set: &DataSet,
    args: &TuneArgs,
    (frozen, dropped): (&[usize], &[usize]),
) -> (Weights, FitReport) {
    let start = eval::weights(variant);
    let mut theta = theta_of(start);
    for &p in dropped {
        theta[2 * p..2 * p + 2].fill(0.0);
    }
    let k = fit_k(&set.fit, &theta);
    let before = (error(&set.fit, &theta, k), error(&set.held_out, &theta, k));
    println!(
        "{variant}: {} positions to fit, {} held out; K = {k:.4}; error {:.6} (held out {:.6})",
        set.fit.len(),
        set.held_out.len(),
        before.0,
        before.1
    );
    adam(
        &set.fit,
        &mut theta,
        k,
        (args.epochs, args.learning_rate),
        frozen,
        &mut |epoch, err| {
            println!("{variant} epoch {epoch:>4}: error {err:.6}");
        },
    );
    let weights = weights_of(&theta, start);
    let after = (
        error(&set.fit, &theta_of(&weights), k),
        error(&set.held_out, &theta_of(&weights), k),
    );
    println!(
        "{variant}: error {:.6} -> {:.6}, held out {:.6} -> {:.6}",
        before.0, after.0, before.1, after.1
    );
    if args.ablation {
        ablation(variant, set, &theta_of(&weights), k, (args, frozen));
    }
    let report = FitReport {
        k,
        epochs: args.epochs,
        positions: (set.fit.len(), set.held_out.len()),
        holdout_every: args.holdout_every,
        before,
        after,
    };
    (weights, report)
}

/// Refit with each free parameter held at 0 in turn, starting from the
/// fit, and print the rise of the held-out error with its 95 % margin;
/// then eliminate (see [`eliminate`]), since terms that stand in for each
/// other each look like noise alone. The margin is taken over held-out
/// games, not positions: the positions of one game share its result. A
/// parameter the data never counts is reported as such, not refitted.
fn ablation(
    variant: Variant,
    set: &DataSet,
    fitted: &[f64],
    k: f64,
    (args, held): (&TuneArgs, &[usize]),
) {
    let base = error(&set.held_out, fitted, k);
    println!("{variant} ablation: held-out error {base:.6} with every free parameter");
    let steps = (args.ablation_epochs, args.learning_rate);
    let mut singles = Vec::new();
    for p in (0..Param::COUNT).filter(|p| !held.contains(p)) {
        let name = Param::name(p);
        let counted = |s: &Sample| s.counts.iter().any(|&(q, _)| q as usize == p);
        if !set.fit.iter().any(counted) {
            println!("{variant} without {name:<24} never counted in this variant's data");
            continue;
        }
        let (rise, margin) = refit_without(set, fitted, k, steps, held, &[p]);
        singles.push((rise, p));
        let verdict = if rise <= margin { "  noise" } else { "" };
        println!(
            "{variant} without {name:<24} held out {:.6}: {rise:+.6} +/- {margin:.6}{verdict}",
            base + rise
        );
    }
    let refit = |removed: &[usize]| refit_without(set, fitted, k, steps, held, removed);
    let removed = eliminate(singles, refit, &mut |name, (rise, margin), dropped| {
        let verdict = if dropped {
            "dropped"
        } else {
            "kept: it matters"
        };
        println!(
            "{variant} eliminate {name:<24} held out {:.6}: {rise:+.6} +/- {margin:.6}  {verdict}",
            base + rise
        );
    });
    let names: Vec<&str> = removed.iter().map(|&p| Param::name(p)).collect();
    println!(
        "{variant} noise together ({} parameters): {}",
        names.len(),
        names.join(" ")
    );
}

/// A held-out error rise and its 95 % margin (see `paired_rise`).
type RiseAndMargin = (f64, f64);

/// Backward elimination in the order of the single rises: each parameter,
/// the cheapest first, joins the removed set if the refit without the
/// whole set still costs no more than its margin, so the set is noise
/// together, not only one by one. `refit` gives (rise, margin) for a set;
/// `report` gets each try. Returns the removed set.
fn eliminate(
    mut singles: Vec<(f64, usize)>,
    mut refit: impl FnMut(&[usize]) -> RiseAndMargin,
    report: &mut dyn FnMut(&str, RiseAndMargin, bool),
) -> Vec<usize> {
    singles.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut removed = Vec::new();
    for (_, p) in singles {
        removed.push(p);
        let (rise, margin) = refit(&removed);
        let noise = rise <= margin;
        if !noise {
            removed.pop();
        }
        report(Param::name(p), (rise, margin), noise);
    }
    removed
}

/// Refit from `fitted` with `removed` held at 0 (and `held` fixed);
/// returns the held-out error's rise and its margin (see `paired_rise`).
fn refit_without(
    set: &DataSet,
    fitted: &[f64],
    k: f64,
    steps: (u32, f64),
    held: &[usize],
    removed: &[usize],
) -> (f64, f64) {
    let mut theta = fitted.to_vec();
    for &p in removed {
        theta[2 * p..2 * p + 2].fill(0.0);
    }
    let frozen: Vec<usize> = held.iter().chain(removed).copied().collect();
    adam(&set.fit, &mut theta, k, steps, &frozen, &mut |_, _| {});
    paired_rise(&set.held_out, fitted, &theta, k)
}

/// The mean rise of the squared error from `with` to `without` over the
/// samples, and 1.96 standard errors of it, with the games as the units.
fn paired_rise(samples: &[Sample], with: &[f64], without: &[f64], k: f64) -> (f64, f64) {
    let mut by_game: std::collections::HashMap<u64, f64> = std::collections::HashMap::new();
    for s in samples {
        *by_game.entry(s.game).or_default() += s.error(without, k) - s.error(with, k);
    }
    let (n, games) = (samples.len().max(1) as f64, by_game.len() as f64);
    let total: f64 = by_game.values().sum();
    let mean_per_game = total / games.max(1.0);
    let variance = by_game
        .values()
        .map(|d| (d - mean_per_game).powi(2))
        .sum::<f64>()
        / (games - 1.0).max(1.0);
    (total / n, 1.96 * (games * variance).sqrt() / n)
}

/// `bashni tune`: fit the chosen variant, or every variant the data
/// holds, and write (or print) each one's weights file; variants not
/// fitted keep their file untouched.
pub fn run(args: TuneArgs) -> anyhow::Result<()> {
    tune_and_write(&args, &output::this_command()).map(|_| ())
}

/// [`run`] with the command to record; returns the files it made (written
/// or printed).
fn tune_and_write(args: &TuneArgs, command: &str) -> anyhow::Result<Vec<WeightsFile>> {
    let (frozen, dropped) = held_parameters(args)?;
    let sets = read_data(&args.data, args.holdout_every)?;
    let chosen: Vec<&(Variant, DataSet)> = sets
        .iter()
        .filter(|(v, set)| args.variant.is_none_or(|c| c == *v) && !set.fit.is_empty())
        .collect();
    if chosen.is_empty() {
        match args.variant {
            Some(v) => bail!("the data files hold no {v} position to fit"),
            None => bail!("the data files hold no position"),
        }
    }
    let dropped_names: Vec<&str> = dropped.iter().map(|&p| Param::name(p)).collect();
    let mut files = Vec::new();
    for (variant, set) in chosen {
        let (weights, report) = tune_variant(*variant, set, args, (&frozen, &dropped));
        let file = WeightsFile {
            variant: variant.name().to_string(),
            weights,
            provenance: output::provenance(&set.sources, command, &report, &dropped_names),
        };
        output::write_or_print(&args.out, &file, args.write)?;
        files.push(file);
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bashni_engine::eval::{BASHNI_WEIGHTS, LASCA_WEIGHTS, features, white_score_with};
    use bashni_rules::RuleSet;
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};
    use std::path::Path;

    /// Positions of random games, a few plies apart.
    fn random_positions(count: usize, seed: u64) -> Vec<Position> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let rules = RuleSet::new(Variant::Bashni);
        let mut out = Vec::new();
        while out.len() < count {
            let mut pos = Position::start(&rules);
            for ply in 0..120 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                if ply % 3 == 0 && !pos.has_capture() {
                    out.push(pos.clone());
                }
                pos.make(&moves[rng.random_range(0..moves.len())]);
            }
        }
        out.truncate(count);
        out
    }

    #[test]
    fn samples_score_as_the_evaluation_does() {
        for pos in random_positions(300, 5) {
            let white = white_score_with(&features(&pos), &BASHNI_WEIGHTS);
            let sample = Sample::new(&pos, 0.5);
            let tuned = sample.score(&theta_of(&BASHNI_WEIGHTS));
            // Only the integer rounding of the blend differs.
            assert!((tuned - f64::from(white)).abs() < 1.0, "{tuned} vs {white}");
            let side = if pos.side_to_move() == bashni_rules::Colour::White {
                1
            } else {
                -1
            };
            assert_eq!(eval::evaluate(&pos), side * white);
        }
    }

    /// Data labelled with known weights (the win probability itself, so
    /// the known weights are the exact minimum): the tuner must find K and,
    /// from weights pushed far off, the weights again.
    #[test]
    fn tuner_recovers_the_weights_the_data_was_made_with() {
        let truth = theta_of(&BASHNI_WEIGHTS);
        let true_k = 0.3;
        let samples: Vec<Sample> = random_positions(3000, 11)
            .iter()
            .map(|pos| {
                let mut s = Sample::new(pos, 0.0);
                s.result = sigmoid(true_k, s.score(&truth));
                s
            })
            .collect();
        let k = fit_k(&samples, &truth);
        assert!((k - true_k).abs() < 0.002, "K {k}");

        // Start every free weight at 0 or at twice its value.
        let pinned = pinned();
        let mut theta: Vec<f64> = truth
            .iter()
            .enumerate()
            .map(|(i, &t)| {
                let frozen = pinned.contains(&(i / 2));
                if frozen {
                    t
                } else if i % 3 == 0 {
                    0.0
                } else {
                    2.0 * t
                }
            })
            .collect();
        let start_error = error(&samples, &theta, k);
        adam(
            &samples,
            &mut theta,
            k,
            (3000, 2.0),
            &pinned,
            &mut |_, _| {},
        );
        let end_error = error(&samples, &theta, k);
        assert!(
            end_error < start_error / 100.0,
            "{start_error} -> {end_error}"
        );
        // Every weight whose count is non-zero in a tenth of the positions
        // comes back within a few centi-men.
        for p in 0..Param::COUNT {
            let support = samples
                .iter()
                .filter(|s| s.counts.iter().any(|&(q, _)| q as usize == p))
                .count();
            if support * 10 < samples.len() {
                continue;
            }
            for part in 0..2 {
                let (got, want) = (theta[2 * p + part], truth[2 * p + part]);
                assert!(
                    (got - want).abs() < 3.0,
                    "{} part {part}: {got:.1} vs {want}",
                    Param::name(p)
                );
            }
        }
    }

    #[test]
    fn ablation_rise_is_measured_over_games() {
        let start = Position::start(&RuleSet::new(Variant::Bashni));
        let mut samples = Vec::new();
        for game in 0..10 {
            let mut s = Sample::new(&start, if game < 5 { 1.0 } else { 0.75 });
            s.counts = vec![(Param::TEMPO as u8, 1)];
            s.game = game;
            samples.extend([s.clone(), s]);
        }
        let mut with = vec![0.0; 2 * Param::COUNT];
        with[2 * Param::TEMPO..2 * Param::TEMPO + 2].fill(50.0);
        let without = vec![0.0; 2 * Param::COUNT];
        let (rise, margin) = paired_rise(&samples, &with, &without, 1.0);
        let predicted = sigmoid(1.0, 50.0);
        let rise_of = |r: f64| (r - 0.5_f64).powi(2) - (r - predicted).powi(2);
        assert!((rise - (rise_of(1.0) + rise_of(0.75)) / 2.0).abs() < 1e-12);
        // Two kinds of game: the margin is 1.96 of their spread over 10.
        let per_game = [rise_of(1.0) * 2.0, rise_of(0.75) * 2.0];
        let mean = (per_game[0] + per_game[1]) / 2.0;
        let variance = 10.0 * (per_game[0] - mean).powi(2) / 9.0;
        let expected = 1.96 * (10.0 * variance).sqrt() / 20.0;
        assert!((margin - expected).abs() < 1e-12, "{margin} {expected}");
        assert_eq!(paired_rise(&samples, &with, &with, 1.0), (0.0, 0.0));
    }

    #[test]
    fn elimination_drops_a_set_that_is_noise_together() {
        let (a, b, c, d) = (Param::CENTRE, Param::TEMPO, Param::KING, Param::ATTACKED);
        // a and b stand in for each other: either alone costs nothing,
        // both together cost 0.5; c costs 0.1 and d 0.4 on top. Margin 0.3.
        let cost = |set: &[usize]| {
            let has = |p| set.contains(&p);
            let pair = if has(a) && has(b) { 0.5 } else { 0.0 };
            let own = if has(c) { 0.1 } else { 0.0 } + if has(d) { 0.4 } else { 0.0 };
            (pair + own, 0.3)
        };
        let singles = vec![(0.4, d), (0.0, b), (0.1, c), (0.0, a)];
        let mut tries = Vec::new();
        let removed = eliminate(singles, cost, &mut |name, _, dropped| {
            tries.push((name.to_string(), dropped))
        });
        // Cheapest first (ties keep their order): b, a, c, d.
        assert_eq!(removed, [b, c]);
        let names = |p: usize| Param::name(p).to_string();
        let expected = [
            (names(b), true),
            (names(a), false),
            (names(c), true),
            (names(d), false),
        ];
        assert_eq!(tries, expected);
    }

    #[test]
    fn dropped_parameters_are_named_and_checked() {
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            tune: TuneArgs,
        }
        let args = |extra: &[&str]| {
            let argv = ["tune", "data.txt"].iter().chain(extra).copied();
            Cli::try_parse_from(argv).expect("arguments parse").tune
        };
        let (frozen, dropped) =
            held_parameters(&args(&["--drop", "centre", "--drop", "tempo"])).expect("known names");
        assert_eq!(dropped, [Param::CENTRE, Param::TEMPO]);
        assert!(pinned().iter().chain(&dropped).all(|p| frozen.contains(p)));
        let unknown = held_parameters(&args(&["--drop", "centr"])).unwrap_err();
        assert!(
            unknown
                .to_string()
                .contains("--drop centr: no such parameter")
        );
        let tied = held_parameters(&args(&["--drop", "commander"])).unwrap_err();
        assert!(tied.to_string().contains("pins the scale"), "{tied}");
    }

    /// A temporary directory of this test process, removed when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(name: &str) -> TempDir {
            let dir = std::env::temp_dir().join(format!("bashni-{name}-{}", std::process::id()));
            std::fs::create_dir_all(&dir).expect("make a temporary directory");
            TempDir(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A data file in `dir` with `games` games of each variant, the
    /// positions of random games labelled by the game's parity, as
    /// `selfplay` writes them; and how many positions each variant has.
    fn data_file(dir: &Path, games: u64) -> (PathBuf, [usize; 2]) {
        use crate::selfplay::record::{SelfplayRecord, origin_line};
        let mut text = origin_line("bashni selfplay --seed 9") + "\n";
        let mut counts = [0; 2];
        for (variant, count) in Variant::ALL.into_iter().zip(&mut counts) {
            let rules = RuleSet::new(variant);
            for game in 0..games {
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(game);
                let mut pos = Position::start(&rules);
                for _ in 0..30 {
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    pos.make(&moves[rng.random_range(0..moves.len())]);
                    let result = (game % 2) as f64;
                    let record = SelfplayRecord {
                        position: pos.clone(),
                        result,
                        game,
                        score: None,
                    };
                    text += &format!("{record}\n");
                    *count += 1;
                }
            }
        }
        let path = dir.join("data.txt");
        std::fs::write(&path, text).expect("write the data");
        (path, counts)
    }

    #[test]
    fn data_is_split_by_variant_and_game_and_bad_lines_name_file_and_line() {
        let dir = TempDir::new("tune-data");
        let (path, counts) = data_file(&dir.0, 10);
        let sets = read_data(std::slice::from_ref(&path), 5).expect("the data reads");
        for ((variant, set), count) in sets.iter().zip(counts) {
            assert_eq!(set.fit.len() + set.held_out.len(), count, "{variant}");
            assert!(set.held_out.iter().all(|s| s.game % 5 == 0));
            assert!(set.held_out.len() > count / 10, "games 0 and 5 of 10");
            let source = format!(
                "{}: {count} positions of 10 games, made by `bashni selfplay --seed 9`",
                path.display()
            );
            assert_eq!(set.sources, [source]);
        }
        std::fs::write(&path, "# made by: x\nW:c3w,f6b 0 1\t2\tbashni\t7\n").unwrap();
        let error = read_data(std::slice::from_ref(&path), 5)
            .err()
            .expect("a bad result");
        let expected = format!("{}:2: bad result '2'", path.display());
        assert!(error.to_string().starts_with(&expected), "{error}");
    }

    /// `--write` for one variant: its file is rewritten with the fit and
    /// where it came from, and reads back as what was written; the other
    /// variant's file is left as it was.
    #[test]
    fn writing_one_variant_leaves_the_other_file_alone() {
        use bashni_engine::eval::weights_file::parse;
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            tune: TuneArgs,
        }
        let dir = TempDir::new("tune-write");
        let shipped = [
            (
                "bashni",
                include_str!("../crates/engine/src/eval/weights/bashni.txt"),
            ),
            (
                "lasca",
                include_str!("../crates/engine/src/eval/weights/lasca.txt"),
            ),
        ];
        for (variant, text) in shipped {
            std::fs::write(output::weights_path(&dir.0, variant), text).unwrap();
        }
        let (data, counts) = data_file(&dir.0, 10);
        let out = dir.0.display().to_string();
        let data_arg = data.display().to_string();
        let argv = ["tune", &data_arg, "--variant", "lasca", "--epochs", "3"];
        let argv = argv
            .into_iter()
            .chain(["--write", "--out", &out, "--drop", "centre"]);
        let args = Cli::try_parse_from(argv).expect("arguments parse").tune;
        let files = tune_and_write(&args, "bashni tune (test)").expect("the tune runs");

        let read =
            |variant| std::fs::read_to_string(output::weights_path(&dir.0, variant)).unwrap();
        assert_eq!(
            read("bashni"),
            shipped[0].1,
            "the other variant's file is untouched"
        );
        let [written] = &files[..] else {
            panic!("one variant fitted: {files:?}")
        };
        assert_eq!(parse(&read("lasca")).as_ref(), Ok(written));
        let p = &written.provenance;
        assert_eq!(p.command, "bashni tune (test)");
        let lasca = format!("{data_arg}: {} positions of 10 games, made by", counts[1]);
        assert!(p.data[0].starts_with(&lasca), "{:?}", p.data);
        assert!(!p.commit.is_empty());
        assert!(p.losses[0].starts_with("fit "), "{:?}", p.losses);
        assert!(p.losses[1].starts_with("held out "), "{:?}", p.losses);
        let held = p.notes.iter().any(|n| n == "Held at 0: centre.");
        assert!(held, "{:?}", p.notes);
        assert_eq!(written.weights.params[Param::CENTRE], eval::pair(0, 0));
        assert_ne!(
            written.weights, LASCA_WEIGHTS,
            "three epochs move the weights"
        );
    }
}
