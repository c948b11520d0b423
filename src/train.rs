//! `bashni train`: fit the learned evaluation (crates/engine/src/nnue)
//! to self-play data on the CPU and write the quantised network file with
//! its provenance (docs/tuning.md, "Learned evaluation").
//!
//! The data is read by [`data`] (lines of [`crate::selfplay::record`]);
//! [`model`] holds the f32 network's forward and backward passes and Adam.
//! Mini-batches are shared out over rayon's threads, each summing the
//! gradient of its part.

pub mod data;
pub mod model;

use crate::tune::output::{current_commit, this_command};
use anyhow::bail;
use bashni_engine::nnue::FloatNetwork;
use bashni_rules::Variant;
use indicatif::ProgressBar;
use model::{Adam, Sample};
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;
use rayon::prelude::*;
use std::path::PathBuf;

/// `bashni train`.
#[derive(clap::Args, Debug)]
pub struct TrainArgs {
    /// Data files written by `bashni selfplay`.
    #[arg(required = true)]
    pub data: Vec<PathBuf>,
    /// The variant to fit (positions of the other are skipped).
    #[arg(long, default_value = "bashni")]
    pub variant: Variant,
    /// The network file to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Full passes over the data.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    pub epochs: u32,
    /// Positions per Adam step.
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..))]
    pub batch: u64,
    /// Adam's step size.
    #[arg(long, default_value_t = 0.001, value_parser = parse_step)]
    pub learning_rate: f32,
    /// Anneal: the step size falls along a half cosine from
    /// `--learning-rate` at the first step to this at the last (default:
    /// a constant step size).
    #[arg(long, value_parser = parse_rate)]
    pub final_learning_rate: Option<f32>,
    /// The weight of the game result in the target; the rest goes to the
    /// search score's win probability (data without scores: result only).
    #[arg(long, default_value_t = 0.5, value_parser = parse_fraction)]
    pub lambda: f32,
    /// Decoupled (AdamW) weight decay: each step shrinks every weight
    /// (not the biases) by learning rate x this of itself; 0 for none.
    #[arg(long, default_value_t = 0.0, value_parser = parse_weight_decay)]
    pub weight_decay: f32,
    /// Every n-th game (by index) is held out; 0 holds none out (1 would
    /// hold out every game).
    #[arg(long, default_value_t = 10, value_parser = parse_holdout_every)]
    pub holdout_every: u64,
    /// Seeds the initial weights and the order of the positions.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// No progress bar (for logs).
    #[arg(long)]
    pub quiet: bool,
}

/// A step size: finite and not negative.
fn parse_rate(text: &str) -> Result<f32, String> {
    parse_non_negative(text, "learning rate")
}

/// The first step size: finite and above 0 (a NaN one wrote a network
/// of NaNs, which the engine read as a score of 0 everywhere).
fn parse_step(text: &str) -> Result<f32, String> {
    match parse_rate(text)? {
        0.0 => Err(format!("learning rate '{text}' is not a number > 0")),
        step => Ok(step),
    }
}

/// A weight between the result and the score: 0 to 1.
fn parse_fraction(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(value) if (0.0..=1.0).contains(&value) => Ok(value),
        _ => Err(format!("'{text}' is not a number from 0 to 1")),
    }
}

/// How often a game is held out: 0 (never) or every 2nd game or rarer.
fn parse_holdout_every(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(n) if n != 1 => Ok(n),
        _ => Err(format!(
            "'{text}' is not 0 (none held out) or a whole number from 2 up"
        )),
    }
}

/// A weight decay: finite and not negative.
fn parse_weight_decay(text: &str) -> Result<f32, String> {
    parse_non_negative(text, "weight decay")
}

/// A finite number >= 0, or an error naming `what` was given.
fn parse_non_negative(text: &str, what: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(value) if value.is_finite() && value >= 0.0 => Ok(value),
        _ => Err(format!("{what} '{text}' is not a number >= 0")),
    }
}

/// The losses of one epoch.
#[derive(Clone, Copy, Debug)]
pub struct EpochLoss {
    /// The mean loss over the fit set during the epoch.
    pub train: f32,
    /// The mean loss over the held-out set after it (NaN if none).
    pub held_out: f32,
}

/// The mean loss of `net` over `samples` (NaN for none).
pub fn mean_loss(net: &FloatNetwork, samples: &[Sample]) -> f32 {
    let sum: f64 = samples.par_iter().map(|s| model::loss(net, s) as f64).sum();
    (sum / samples.len() as f64) as f32
}

/// The mean gradient of one mini-batch (summed over rayon's threads) and
/// its summed loss.
fn batch_gradient(net: &FloatNetwork, batch: &[Sample]) -> (FloatNetwork, f64) {
    let part = batch.len().div_ceil(rayon::current_num_threads()).max(1);
    let zeros = || model::zeros_like(net);
    let (mut grad, loss) = batch
        .par_chunks(part)
        .map(|chunk| {
            let mut grad = zeros();
            let loss: f64 = chunk
                .iter()
                .map(|s| model::backward(net, s, &mut grad) as f64)
                .sum();
            (grad, loss)
        })
        .reduce(
            || (zeros(), 0.0),
            |(mut a, la), (b, lb)| {
                model::add_into(&mut a, &b);
                (a, la + lb)
            },
        );
    model::scale(&mut grad, 1.0 / batch.len() as f32);
    (grad, loss)
}

/// Fit `net` to `fit` for `epochs`, reporting each epoch's losses to
/// `each_epoch` and the samples done to `progress`.
pub fn fit(
    net: &mut FloatNetwork,
    fit: &mut [Sample],
    held_out: &[Sample],
    args: &FitOptions,
    mut each_epoch: impl FnMut(u32, EpochLoss),
    progress: &ProgressBar,
) {
    let mut adam = Adam::new(net, args.learning_rate, args.weight_decay);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(args.seed);
    let steps = fit.len().div_ceil(args.batch) * args.epochs as usize;
    let mut step = 0;
    for epoch in 1..=args.epochs {
        fit.shuffle(&mut rng);
        let mut total = 0.0;
        for batch in fit.chunks(args.batch) {
            adam.set_rate(args.rate_at(step, steps));
            step += 1;
            let (grad, loss) = batch_gradient(net, batch);
            adam.step(net, &grad);
            total += loss;
            progress.inc(batch.len() as u64);
        }
        let train = (total / fit.len().max(1) as f64) as f32;
        let held_out = mean_loss(net, held_out);
        each_epoch(epoch, EpochLoss { train, held_out });
    }
}

/// What [`fit`] needs of the command line.
#[derive(Clone, Copy, Debug)]
pub struct FitOptions {
    /// Full passes.
    pub epochs: u32,
    /// Positions per step.
    pub batch: usize,
    /// Adam's step size.
    pub learning_rate: f32,
    /// Where a cosine schedule ends (None: constant step size).
    pub final_learning_rate: Option<f32>,
    /// AdamW's decoupled weight decay.
    pub weight_decay: f32,
    /// Seeds the shuffles.
    pub seed: u64,
}

impl FitOptions {
    /// The step size of step `step` of `steps` (counted from 0).
    fn rate_at(&self, step: usize, steps: usize) -> f32 {
        let Some(last) = self.final_learning_rate else {
            return self.learning_rate;
        };
        let done = step as f64 / steps.saturating_sub(1).max(1) as f64;
        let cosine = 0.5 * (1.0 + (std::f64::consts::PI * done).cos());
        (last as f64 + (self.learning_rate - last) as f64 * cosine) as f32
    }
}

/// A line above the progress bar, or on stderr when there is none (a
/// hidden bar prints nothing).
fn say(bar: &ProgressBar, line: &str) {
    if bar.is_hidden() {
        eprintln!("{line}");
    } else {
        bar.println(line);
    }
}

/// `bashni train`.
pub fn run(args: TrainArgs) -> anyhow::Result<()> {
    // A network that cannot be written is found before the training.
    let folder = args.out.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(folder) = folder.filter(|folder| !folder.is_dir()) {
        bail!(
            "cannot write {}: no folder {}",
            args.out.display(),
            folder.display()
        );
    }
    let mut set = data::read_data(&args.data, args.variant, args.lambda, args.holdout_every)?;
    if set.fit.is_empty() {
        bail!("no {} positions to fit in the data", args.variant.name());
    }
    eprintln!(
        "{} positions to fit, {} held out",
        set.fit.len(),
        set.held_out.len()
    );
    let mut net = FloatNetwork::random(args.variant, args.seed);
    let options = FitOptions {
        epochs: args.epochs,
        batch: args.batch as usize,
        learning_rate: args.learning_rate,
        final_learning_rate: args.final_learning_rate,
        weight_decay: args.weight_decay,
        seed: args.seed,
    };
    let bar = crate::progress_bar(
        set.fit.len() as u64 * args.epochs as u64,
        "positions, epoch",
        args.quiet,
    );
    bar.set_message("1");
    let mut losses = Vec::new();
    let start = mean_loss(&net, &set.held_out);
    say(&bar, &format!("epoch 0: held-out loss {start:.6}"));
    fit(
        &mut net,
        &mut set.fit,
        &set.held_out,
        &options,
        |epoch, loss| {
            let line = format!(
                "epoch {epoch}: train loss {:.6}, held-out loss {:.6}",
                loss.train, loss.held_out
            );
            say(&bar, &line);
            bar.set_message((epoch + 1).to_string());
            losses.push(line);
        },
        &bar,
    );
    bar.finish_and_clear();
    let provenance = provenance(&args, &set.sources, &losses);
    let quantised = net.quantise(args.variant, &provenance);
    quantised
        .save(&args.out)
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", args.out.display()))?;
    eprintln!("wrote {}", args.out.display());
    Ok(())
}

/// The text stored in the network file: how to make it again and how
/// well it fitted.
fn provenance(args: &TrainArgs, sources: &[String], losses: &[String]) -> String {
    let mut lines = vec![
        format!("variant {}", args.variant.name()),
        format!("command {}", this_command()),
        format!("commit {}", current_commit()),
        format!("seed {}", args.seed),
    ];
    // Only when used, so networks trained without it keep their files.
    if args.weight_decay > 0.0 {
        lines.push(format!("weight decay {}", args.weight_decay));
    }
    if let Some(rate) = args.final_learning_rate {
        let first = args.learning_rate;
        lines.push(format!("learning rate {first} to {rate} (cosine)"));
    }
    lines.extend(sources.iter().map(|s| format!("data {s}")));
    lines.extend(losses.iter().map(|l| format!("loss {l}")));
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use bashni_engine::nnue::{Accumulator, QA, QW};
    use rand::RngExt;

    /// Samples with random features where only whether feature 5 is on
    /// for the side to move decides the target.
    fn synthetic(count: usize, seed: u64) -> Vec<Sample> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let features = |rng: &mut Xoshiro256PlusPlus| -> Vec<u16> {
            let mut f: Vec<u16> = (0..8).map(|_| rng.random_range(0..200)).collect();
            f.sort_unstable();
            f.dedup();
            f
        };
        (0..count)
            .map(|_| {
                let stm = features(&mut rng);
                let other = features(&mut rng);
                let target = model::sigmoid(if stm.contains(&5) { 1.5 } else { -1.0 });
                Sample { stm, other, target }
            })
            .collect()
    }

    /// Settings that would train nothing, or a network of NaNs, are
    /// refused before any data is read, naming the option.
    #[test]
    fn settings_that_train_nothing_are_refused() {
        let refused = |flag: &str, value: &str| {
            let command = clap::Command::new("train").allow_negative_numbers(true);
            let command = <TrainArgs as clap::Args>::augment_args(command);
            let argv = ["train", "data.txt", "--out", "net.nnue", flag, value];
            let error = command.try_get_matches_from(argv).expect_err("refused");
            assert!(error.to_string().contains(flag), "{flag} {value}: {error}");
        };
        for (flag, value) in [
            ("--learning-rate", "nan"),
            ("--learning-rate", "inf"),
            ("--learning-rate", "0"),
            ("--lambda", "2"),
            ("--lambda", "-0.5"),
            ("--epochs", "0"),
            ("--holdout-every", "1"),
        ] {
            refused(flag, value);
        }
        let args: TrainArgs = crate::parse_args(&["train", "d", "--out", "n", "--lambda", "1"]);
        assert_eq!((args.lambda, args.holdout_every), (1.0, 10));
        let out = std::env::temp_dir().join("bashni-no-such-folder/net.nnue");
        let error = run(TrainArgs { out, ..args }).expect_err("no folder");
        assert!(error.to_string().contains("no folder"), "{error}");
    }

    /// The cosine schedule starts at the learning rate, ends at the final
    /// one, passes their mean half way and never rises; without a final
    /// rate the step size stays put.
    #[test]
    fn the_cosine_schedule_falls_from_first_to_final_rate() {
        let mut options = FitOptions {
            epochs: 1,
            batch: 1,
            learning_rate: 0.001,
            final_learning_rate: Some(0.0001),
            weight_decay: 0.0,
            seed: 1,
        };
        let rates: Vec<f32> = (0..101).map(|step| options.rate_at(step, 101)).collect();
        assert!((rates[0] - 0.001).abs() < 1e-9, "{}", rates[0]);
        assert!((rates[100] - 0.0001).abs() < 1e-9, "{}", rates[100]);
        assert!((rates[50] - 0.00055).abs() < 1e-7, "{}", rates[50]);
        assert!(rates.windows(2).all(|w| w[1] <= w[0]));
        options.final_learning_rate = None;
        assert!((0..101).all(|step| options.rate_at(step, 101) == 0.001));
    }

    /// Trained on the synthetic set, the network predicts the targets of
    /// samples it never saw, in f32 and once quantised, and the held-out
    /// loss falls.
    #[test]
    fn training_recovers_a_known_function_of_one_feature() {
        let mut fit_set = synthetic(3000, 1);
        // Half the samples with feature 5, so both targets are learned.
        for (i, s) in fit_set.iter_mut().enumerate() {
            if i % 2 == 0 && !s.stm.contains(&5) {
                s.stm.push(5);
                s.target = model::sigmoid(1.5);
            }
        }
        let held_out = synthetic(500, 2);
        let mut net = FloatNetwork::random(Variant::Lasca, 1);
        let before = mean_loss(&net, &held_out);
        let options = FitOptions {
            epochs: 30,
            batch: 64,
            learning_rate: 0.003,
            final_learning_rate: None,
            weight_decay: 0.0,
            seed: 1,
        };
        let mut last = None;
        fit(
            &mut net,
            &mut fit_set,
            &held_out,
            &options,
            |_, loss| last = Some(loss),
            &ProgressBar::hidden(),
        );
        let last = last.expect("epochs ran");
        assert!(last.held_out < before / 10.0, "{before} -> {last:?}");
        let quantised = net.quantise(Variant::Lasca, "test");
        for sample in synthetic(200, 3) {
            let wanted = sample.target;
            let float = model::sigmoid(model::predict(&net, &sample));
            assert!((float - wanted).abs() < 0.05, "f32 {float} for {wanted}");
            let acc = Accumulator::from_features(&quantised, [&sample.stm, &sample.other]);
            let raw = quantised.raw_output(&acc, bashni_rules::Colour::White);
            let int = model::sigmoid(raw as f32 / (QA * QW) as f32);
            assert!((int - wanted).abs() < 0.05, "quantised {int} for {wanted}");
        }
    }
}
