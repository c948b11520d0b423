//! Engine-vs-engine matches over the text protocol (`bashni match`).
//!
//! The runner never links an engine: it starts each one as a child process
//! and talks the protocol of `protocol.md` to it, so any build (or any other
//! program that speaks the protocol) can be measured against any other.
//! Everything an engine sends is untrusted input: a crash, a hang or a bad
//! move loses that game, the engine is restarted and the match goes on.

pub mod adjudication;
pub mod game;
pub mod merge;
pub mod report;
pub mod runner;
pub mod schedule;
pub mod stats;

use bashni_host::clock::TimeControl;
use bashni_host::spec::EngineSpec;
use bashni_rules::{KingLanding, Variant};
use std::path::PathBuf;

/// Options of `bashni match`, boxed so that the command-line enum stays
/// small (clippy's `large_enum_variant`).
#[derive(clap::Args, Debug)]
pub struct MatchArgs {
    #[command(flatten)]
    /// The options of `bashni match`.
    pub options: Box<MatchOptions>,
}

/// The options themselves.
#[derive(clap::Args, Debug)]
pub struct MatchOptions {
    /// An engine: `cmd=PATH[,name=NAME][,tc=TC][,arg=ARG...][,option.NAME=VALUE...]`,
    /// or a bare PATH. Give two, or more for a tournament. `tc=` gives the
    /// engine its own clock in a `--tc` match (time odds).
    #[arg(long = "engine", required = true, value_parser = EngineSpec::parse)]
    pub engines: Vec<EngineSpec>,
    /// Settings for every engine: `[arg=ARG...][,option.NAME=VALUE...]`,
    /// applied before each engine's own (cutechess's `-each`).
    #[arg(long, value_parser = EngineSpec::parse_each)]
    pub each: Vec<EngineSpec>,
    /// With more than two engines: `round-robin` (every pair plays) or
    /// `gauntlet` (the first engine plays each of the others).
    #[arg(long, value_enum, default_value_t = TournamentKind::RoundRobin)]
    pub tournament: TournamentKind,
    /// Games per pairing and round; each opening is played twice, colours
    /// swapped.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
    pub games: u32,
    /// How many times the round of `--games` games is played.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub rounds: u32,
    /// Game clock `[moves/]base+inc`, seconds (`40/60+0.6`, `10+0.1`, `5`).
    /// The default when no other limit is given is `10+0.1`.
    #[arg(long, value_parser = str::parse::<TimeControl>, conflicts_with_all = ["movetime", "depth", "nodes"])]
    pub tc: Option<TimeControl>,
    /// Fixed time per move in milliseconds (`go movetime MS`).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), conflicts_with_all = ["depth", "nodes"])]
    pub movetime: Option<u64>,
    /// Fixed depth per move (`go depth N`).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..), conflicts_with = "nodes")]
    pub depth: Option<u32>,
    /// Fixed node count per move (`go nodes N`).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    /// How long to wait for a `bestmove` under `--movetime`, `--depth` or
    /// `--nodes` before the engine counts as hung (default: 2 x movetime +
    /// 5 s, or 60 s for depth and nodes).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout_ms: Option<u64>,
    /// Grace beyond an empty clock before a time forfeit, in milliseconds.
    #[arg(long, default_value_t = 50)]
    pub time_margin_ms: u64,
    /// Games played at the same time (one thread and two engines each).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub concurrency: u32,
    /// Opening positions, one per line (`#` comments); default: the start
    /// position.
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Append every finished game to this PDN file.
    #[arg(long)]
    pub pdn: Option<PathBuf>,
    /// Continue the match whose games are in the `--pdn` file: play only
    /// the games of the schedule it does not hold yet (the same options
    /// give the same schedule).
    #[arg(long, requires = "pdn")]
    pub resume: bool,
    /// Play only slice K of N of the schedule (`--shard 2/8`): game pairs
    /// are dealt out in turn, so shards are disjoint and together make
    /// the whole match. Merge their PDN files with `bashni stats`.
    #[arg(long, value_parser = parse_shard)]
    pub shard: Option<(u32, u32)>,
    /// Sequential test `elo0=0,elo1=5,alpha=0.05,beta=0.05[,model=M]`;
    /// stops the match once it decides. `model=pentanomial` (the default,
    /// as fastchess) counts game pairs, `model=trinomial` single games.
    #[arg(long, value_parser = parse_sprt)]
    pub sprt: Option<stats::Sprt>,
    #[arg(long, default_value = "bashni")]
    /// The variant every game is played in.
    pub variant: Variant,
    /// Sent to both engines as `KingLanding` (Bashni only).
    #[arg(long)]
    pub king_landing: Option<KingLanding>,
    /// `false`: a side may make a plain move even when it can capture
    /// (docs/rules.md, ForcedCapture). The referee plays by it and both
    /// engines get `ForcedCapture`.
    #[arg(long, action = clap::ArgAction::Set)]
    pub forced_capture: Option<bool>,
    /// Shuffle the openings with this seed (file order without it).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Score adjudication: `movecount=N,score=CP[,twosided=BOOL]` ends a
    /// game as lost once the loser's engine reported -CP or worse on N
    /// moves in a row and (two-sided, the default) the winner's +CP or
    /// better on its last N. Off by default.
    #[arg(long, value_parser = adjudication::parse_resign)]
    pub resign: Option<adjudication::ResignRule>,
    /// Score adjudication: `movenumber=P,movecount=N,score=CP` draws a
    /// game once 2N plies in a row came with |score| <= CP and P full moves
    /// have been played. Off by default.
    #[arg(long, value_parser = adjudication::parse_draw)]
    pub draw: Option<adjudication::DrawRule>,
    /// Adjudicate a draw once the game has this many plies (default 250 for
    /// Bashni, 300 for Lasca; 0 = no limit).
    #[arg(long)]
    pub max_plies: Option<u32>,
}

/// Who plays whom.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TournamentKind {
    /// Every engine plays every other.
    RoundRobin,
    /// The first engine plays each of the others.
    Gauntlet,
}

fn parse_sprt(text: &str) -> Result<stats::Sprt, String> {
    let mut sprt = stats::Sprt {
        elo0: 0.0,
        elo1: 5.0,
        alpha: 0.05,
        beta: 0.05,
        model: stats::SprtModel::Pentanomial,
    };
    for field in text.split(',').filter(|f| !f.is_empty()) {
        let (key, value) = field
            .split_once('=')
            .ok_or_else(|| format!("sprt field '{field}' is not KEY=VALUE"))?;
        if key == "model" {
            sprt.model = match value {
                "pentanomial" => stats::SprtModel::Pentanomial,
                "trinomial" => stats::SprtModel::Trinomial,
                _ => {
                    return Err(format!(
                        "sprt model '{value}' is not pentanomial or trinomial"
                    ));
                }
            };
            continue;
        }
        let value: f64 = value
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| format!("sprt {key} '{value}' is not a number"))?;
        match key {
            "elo0" => sprt.elo0 = value,
            "elo1" => sprt.elo1 = value,
            "alpha" => sprt.alpha = value,
            "beta" => sprt.beta = value,
            _ => return Err(format!("unknown sprt field '{key}'")),
        }
    }
    if sprt.elo1 <= sprt.elo0 {
        return Err("sprt needs elo1 > elo0".into());
    }
    let probability = 0.0..0.5;
    if !probability.contains(&sprt.alpha)
        || !probability.contains(&sprt.beta)
        || sprt.alpha == 0.0
        || sprt.beta == 0.0
    {
        return Err("sprt alpha and beta must lie strictly between 0 and 0.5".into());
    }
    Ok(sprt)
}

fn parse_shard(text: &str) -> Result<(u32, u32), String> {
    let bad = || format!("shard '{text}' is not K/N with 1 <= K <= N");
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (k, n): (u32, u32) = (k.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
    if k == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

/// Run a match and print its result.
pub fn run_match(args: MatchArgs) -> anyhow::Result<()> {
    runner::run(*args.options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_forms() {
        assert_eq!(parse_shard("2/8"), Ok((2, 8)));
        assert_eq!(parse_shard("1/1"), Ok((1, 1)));
        for bad in ["0/3", "4/3", "x/2", "2", "1/0", "-1/2"] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sprt_forms() {
        let s = parse_sprt("elo0=-2,elo1=3,alpha=0.1,beta=0.2").unwrap();
        assert_eq!((s.elo0, s.elo1, s.alpha, s.beta), (-2.0, 3.0, 0.1, 0.2));
        let default = parse_sprt("").unwrap();
        assert_eq!((default.elo0, default.elo1), (0.0, 5.0));
        assert_eq!(default.model, stats::SprtModel::Pentanomial);
        let tri = parse_sprt("model=trinomial").unwrap();
        assert_eq!(tri.model, stats::SprtModel::Trinomial);
        for bad in [
            "elo0=5,elo1=0",
            "alpha=0",
            "beta=0.7",
            "gamma=1",
            "elo1=x",
            "model=x",
        ] {
            assert!(parse_sprt(bad).is_err(), "{bad}");
        }
    }
}
