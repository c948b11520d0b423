//! Engine-vs-engine matches over the text protocol (`bashni match`).
//!
//! The runner never links an engine: it starts each one as a child process
//! and talks the protocol of `protocol.md` to it, so any build (or any other
//! program that speaks the protocol) can be measured against any other.
//! Everything an engine sends is untrusted input: a crash, a hang or a bad
//! move loses that game, the engine is restarted and the match goes on.

pub mod adjudication;
pub mod engine;
pub mod game;
pub mod merge;
pub mod openings;
pub mod pdn;
pub mod report;
pub mod runner;
pub mod schedule;
pub mod stats;

use bashni_rules::{KingLanding, ParseRuleError, Variant};
use std::path::PathBuf;

/// Options of `bashni match`, boxed so that the command-line enum stays
/// small (clippy's `large_enum_variant`).
#[derive(clap::Args, Debug)]
pub struct MatchArgs {
    #[command(flatten)]
    pub options: Box<MatchOptions>,
}

/// The options themselves.
#[derive(clap::Args, Debug)]
pub struct MatchOptions {
    /// An engine: `cmd=PATH[,name=NAME][,arg=ARG...][,option.NAME=VALUE...]`,
    /// or a bare PATH. Give two, or more for a tournament.
    #[arg(long = "engine", required = true, value_parser = parse_engine_spec)]
    pub engines: Vec<EngineSpec>,
    /// Settings for every engine: `[arg=ARG...][,option.NAME=VALUE...]`,
    /// applied before each engine's own (cutechess's `-each`).
    #[arg(long, value_parser = parse_each)]
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
    #[arg(long, value_parser = parse_time_control, conflicts_with_all = ["movetime", "depth", "nodes"])]
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
    #[arg(long, default_value = "bashni", value_parser = parse_variant)]
    pub variant: Variant,
    /// Sent to both engines as `KingLanding` (Bashni only).
    #[arg(long, value_parser = parse_king_landing)]
    pub king_landing: Option<KingLanding>,
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
    RoundRobin,
    Gauntlet,
}

/// One engine of the match, as given on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    pub name: String,
    pub cmd: PathBuf,
    pub args: Vec<String>,
    /// `setoption` pairs, sent in the order given after `UCI_Variant`.
    pub options: Vec<(String, String)>,
}

/// Parse an engine given on the command line (also used by `gui`).
pub fn parse_engine_spec(text: &str) -> Result<EngineSpec, String> {
    let keyed = ["cmd=", "name=", "arg=", "option."]
        .iter()
        .any(|k| text.starts_with(k));
    if !keyed {
        // A bare path.
        return Ok(EngineSpec {
            name: default_engine_name(text),
            cmd: PathBuf::from(text),
            args: Vec::new(),
            options: Vec::new(),
        });
    }
    let mut cmd = None;
    let mut name = None;
    let mut args = Vec::new();
    let mut options = Vec::new();
    for field in text.split(',') {
        let (key, value) = field
            .split_once('=')
            .ok_or_else(|| format!("engine field '{field}' is not KEY=VALUE"))?;
        match key {
            "cmd" => cmd = Some(value.to_string()),
            "name" => name = Some(value.to_string()),
            "arg" => args.push(value.to_string()),
            _ => match key.strip_prefix("option.") {
                Some(option) if !option.is_empty() => {
                    options.push((option.to_string(), value.to_string()))
                }
                _ => return Err(format!("unknown engine field '{key}'")),
            },
        }
    }
    let cmd = cmd.ok_or("an engine needs cmd=PATH")?;
    if cmd.is_empty() {
        return Err("an engine needs cmd=PATH".into());
    }
    Ok(EngineSpec {
        name: name.unwrap_or_else(|| default_engine_name(&cmd)),
        cmd: PathBuf::from(cmd),
        args,
        options,
    })
}

/// `--each`: the fields of `--engine` that make sense for all engines.
fn parse_each(text: &str) -> Result<EngineSpec, String> {
    if !text
        .split(',')
        .all(|f| f.starts_with("arg=") || f.starts_with("option."))
    {
        return Err("--each takes only arg= and option. fields".into());
    }
    parse_engine_spec(&format!("cmd=each,{text}"))
}

fn default_engine_name(cmd: &str) -> String {
    std::path::Path::new(cmd)
        .file_stem()
        .map_or_else(|| cmd.to_string(), |s| s.to_string_lossy().into_owned())
}

/// A game clock: `base` for the first `moves` moves (0 = the whole game),
/// plus `increment` after every move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    pub moves: u32,
    pub base_ms: u64,
    pub increment_ms: u64,
}

impl std::fmt::Display for TimeControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.moves > 0 {
            write!(f, "{}/", self.moves)?;
        }
        write!(f, "{}", self.base_ms as f64 / 1000.0)?;
        if self.increment_ms > 0 {
            write!(f, "+{}", self.increment_ms as f64 / 1000.0)?;
        }
        Ok(())
    }
}

fn parse_seconds(text: &str, what: &str) -> Result<u64, String> {
    let secs: f64 = text
        .parse()
        .map_err(|_| format!("{what} '{text}' is not a number of seconds"))?;
    if !secs.is_finite() || !(0.0..=1e9).contains(&secs) {
        return Err(format!("{what} '{text}' is out of range"));
    }
    Ok((secs * 1000.0).round() as u64)
}

fn parse_time_control(text: &str) -> Result<TimeControl, String> {
    let (moves, rest) = match text.split_once('/') {
        Some((m, rest)) => (
            m.parse::<u32>()
                .ok()
                .filter(|&m| m > 0)
                .ok_or_else(|| format!("moves per period '{m}' must be a positive integer"))?,
            rest,
        ),
        None => (0, text),
    };
    let (base, increment) = match rest.split_once('+') {
        Some((b, i)) => (b, i),
        None => (rest, "0"),
    };
    let base_ms = parse_seconds(base, "base time")?;
    if base_ms == 0 {
        return Err("base time must be above zero".into());
    }
    Ok(TimeControl {
        moves,
        base_ms,
        increment_ms: parse_seconds(increment, "increment")?,
    })
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

fn parse_variant(s: &str) -> Result<Variant, ParseRuleError> {
    s.parse()
}

fn parse_king_landing(s: &str) -> Result<KingLanding, ParseRuleError> {
    s.parse()
}

/// Run a match and print its result.
pub fn run_match(args: MatchArgs) -> anyhow::Result<()> {
    runner::run(*args.options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_spec_forms() {
        let bare = parse_engine_spec("target/release/bashni").unwrap();
        assert_eq!(bare.name, "bashni");
        assert_eq!(bare.cmd, PathBuf::from("target/release/bashni"));

        let full =
            parse_engine_spec("cmd=./eng,name=Old,arg=-q,option.Hash=16,option.Move Overhead=30")
                .unwrap();
        assert_eq!(full.name, "Old");
        assert_eq!(full.args, vec!["-q".to_string()]);
        assert_eq!(
            full.options,
            vec![
                ("Hash".to_string(), "16".to_string()),
                ("Move Overhead".to_string(), "30".to_string())
            ]
        );
        assert!(parse_engine_spec("name=x").is_err());
        assert!(parse_engine_spec("cmd=x,colour=red").is_err());
        assert!(parse_engine_spec("cmd=x,option.=3").is_err());
        let each = parse_each("option.Hash=64,arg=-v").unwrap();
        assert_eq!(each.options, vec![("Hash".to_string(), "64".to_string())]);
        assert_eq!(each.args, vec!["-v".to_string()]);
        assert!(parse_each("cmd=y").is_err());
        assert!(parse_each("name=y").is_err());
    }

    #[test]
    fn time_control_forms() {
        assert_eq!(
            parse_time_control("40/60+0.6").unwrap(),
            TimeControl {
                moves: 40,
                base_ms: 60_000,
                increment_ms: 600
            }
        );
        assert_eq!(
            parse_time_control("10+0.1").unwrap(),
            TimeControl {
                moves: 0,
                base_ms: 10_000,
                increment_ms: 100
            }
        );
        assert_eq!(
            parse_time_control("5").unwrap(),
            TimeControl {
                moves: 0,
                base_ms: 5_000,
                increment_ms: 0
            }
        );
        assert_eq!(
            parse_time_control("40/60+0.6").unwrap().to_string(),
            "40/60+0.6"
        );
        for bad in ["", "0", "x+1", "10+y", "0/10", "-5", "10+-1", "a/10"] {
            assert!(parse_time_control(bad).is_err(), "{bad}");
        }
    }

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
