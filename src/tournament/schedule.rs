//! The plan of a match: its engines and their setup, the openings, the
//! limits, and the schedule of every game (who plays whom, with which
//! opening and colours). The schedule is a pure function of the command
//! line, so every process given the same options (a shard, a resumed run)
//! agrees on what game N is.

use super::adjudication::Adjudication;
use super::game::{GameSettings, SearchLimit};
use super::stats::Sprt;
use super::{MatchOptions, TournamentKind};
use anyhow::bail;
use bashni_host::clock::TimeControl;
use bashni_host::openings::order;
use bashni_host::pdn::PdnGame;
use bashni_host::protocol::HANDSHAKE_TIMEOUT;
use bashni_host::spec::EngineSpec;
use bashni_rules::{DrawRules, RuleSet, Variant};
use std::time::Duration;

/// Default draw adjudication by ply count for Lasca, whose own rules have
/// none; a few times a normal game's length.
pub const LASCA_MAX_PLIES: u32 = 300;
/// Default `--timeout-ms` for `--depth` and `--nodes`.
pub const FIXED_WORK_TIMEOUT: Duration = Duration::from_secs(60);

/// One game of the schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scheduled {
    /// Its place in the whole schedule, from 0.
    pub index: usize,
    /// Which pairing (index into `Plan::pairings`).
    pub pairing: usize,
    /// The pair of games it belongs to within its pairing: the same
    /// opening, colours swapped.
    pub pair: usize,
    /// Index into `Plan::openings`.
    pub opening: usize,
    /// Whether the pairing's first engine has White.
    pub first_is_white: bool,
    /// The PDN `[Round]` tag: `round.game`.
    pub round: String,
}

/// What every worker needs to know; read-only.
pub struct Plan {
    /// The engines, with `--each` applied.
    pub engines: Vec<EngineSpec>,
    /// `setoption` (name, value) pairs per engine, in the order sent.
    pub setup: Vec<Vec<(String, String)>>,
    /// Engine indices of each pairing, the first engine's view first.
    pub pairings: Vec<[usize; 2]>,
    /// The opening positions, in playing order.
    pub openings: Vec<String>,
    /// Every game to play.
    pub schedule: Vec<Scheduled>,
    /// What every game is played with.
    pub settings: GameSettings,
    /// The limit as the report shows it.
    pub limit_text: String,
    /// The sequential test, if any.
    pub sprt: Option<Sprt>,
    /// The limit on the engines' `uciok` and `readyok`.
    pub handshake: Duration,
}

impl Plan {
    /// The plan the options describe, or why they describe none.
    pub fn from_args(args: &MatchOptions) -> anyhow::Result<Plan> {
        let engines = engines(args)?;
        if args.sprt.is_some() && engines.len() != 2 {
            bail!("--sprt needs exactly two engines");
        }
        let openings = openings(args)?;
        let limit = limit(args);
        let pairings = pairings(engines.len(), args.tournament);
        let schedule = schedule(&pairings, args, openings.len());
        let limit_text = match limit {
            SearchLimit::Clock(tc) => format!("tc {tc}{}", odds_text(&engines)),
            SearchLimit::MoveTime(ms) => format!("movetime {ms}"),
            SearchLimit::Depth(d) => format!("depth {d}"),
            SearchLimit::Nodes(n) => format!("nodes {n}"),
        };
        Ok(Plan {
            setup: setup_lines(args, &engines),
            engines,
            pairings,
            openings,
            schedule,
            settings: settings(args, limit),
            limit_text,
            sprt: args.sprt,
            handshake: args
                .timeout_ms
                .map_or(HANDSHAKE_TIMEOUT, Duration::from_millis),
        })
    }

    /// The engine indices of a game as (white, black).
    pub fn colours(&self, game: &Scheduled) -> (usize, usize) {
        let [first, second] = self.pairings[game.pairing];
        match game.first_is_white {
            true => (first, second),
            false => (second, first),
        }
    }

    /// An engine's name.
    pub fn name(&self, engine: usize) -> &str {
        &self.engines[engine].name
    }

    /// The schedule indices of shard `k` of `n` (1-based): the game pairs
    /// in schedule order, dealt out in turn, so a pair never straddles
    /// shards.
    pub fn shard(&self, k: u32, n: u32) -> Vec<usize> {
        let mut units: Vec<(usize, usize)> = Vec::new();
        let mut chosen = Vec::new();
        for game in &self.schedule {
            let unit = (game.pairing, game.pair);
            let number = units.iter().position(|u| *u == unit).unwrap_or_else(|| {
                units.push(unit);
                units.len() - 1
            });
            if number % n as usize == (k - 1) as usize {
                chosen.push(game.index);
            }
        }
        chosen
    }

    /// The schedule game a PDN game records, checked against the schedule
    /// (players and opening), from its `[GameNumber]` tag.
    pub fn game_of(&self, pdn: &PdnGame) -> Result<&Scheduled, String> {
        let number = pdn.tag("GameNumber").unwrap_or("?");
        let game = number
            .parse::<usize>()
            .ok()
            .and_then(|n| self.schedule.get(n.checked_sub(1)?))
            .ok_or_else(|| format!("game number '{number}' is not in this match's schedule"))?;
        let (white, black) = self.colours(game);
        let expected = [
            ("White", self.name(white)),
            ("Black", self.name(black)),
            ("FEN", self.openings[game.opening].as_str()),
        ];
        for (tag, value) in expected {
            if pdn.tag(tag) != Some(value) {
                return Err(format!(
                    "game {number} has {tag} '{}', but this match's game {number} has '{value}': \
                     not the same match (engines, openings, --games, --rounds, --seed)",
                    pdn.tag(tag).unwrap_or("")
                ));
            }
        }
        Ok(game)
    }
}

/// The engines with `--each` applied and names made distinct.
fn engines(args: &MatchOptions) -> anyhow::Result<Vec<EngineSpec>> {
    if args.engines.len() < 2 {
        bail!(
            "a match needs at least two --engine, got {}",
            args.engines.len()
        );
    }
    let each_args: Vec<String> = args.each.iter().flat_map(|e| e.args.clone()).collect();
    let each_options: Vec<(String, String)> =
        args.each.iter().flat_map(|e| e.options.clone()).collect();
    let mut engines = args.engines.clone();
    for engine in &mut engines {
        engine.args.splice(0..0, each_args.iter().cloned());
        engine.options.splice(0..0, each_options.iter().cloned());
    }
    if let Some(engine) = engines.iter().find(|e| e.tc.is_some())
        && args.tc.is_none()
    {
        bail!(
            "engine '{}': tc= gives an engine time odds in a clock match; add --tc for the others",
            engine.name
        );
    }
    let names: Vec<String> = engines.iter().map(|e| e.name.clone()).collect();
    for (i, engine) in engines.iter_mut().enumerate() {
        if names.iter().filter(|n| **n == engine.name).count() > 1 {
            engine.name = format!("{}-{}", engine.name, i + 1);
        }
    }
    Ok(engines)
}

/// The engines' own clocks for the report, ` (NAME tc TC, ...)`; empty
/// without time odds.
fn odds_text(engines: &[EngineSpec]) -> String {
    let odds: Vec<String> = engines
        .iter()
        .filter_map(|e| Some(format!("{} tc {}", e.name, e.tc?)))
        .collect();
    if odds.is_empty() {
        String::new()
    } else {
        format!(" ({})", odds.join(", "))
    }
}

/// The book, or the variant's start position.
fn openings(args: &MatchOptions) -> anyhow::Result<Vec<String>> {
    let Some(path) = &args.openings else {
        return Ok(vec![args.variant.start_fen().to_string()]);
    };
    crate::selfplay::read_book(args.variant, path)
}

fn limit(args: &MatchOptions) -> SearchLimit {
    if let Some(ms) = args.movetime {
        SearchLimit::MoveTime(ms)
    } else if let Some(depth) = args.depth {
        SearchLimit::Depth(depth)
    } else if let Some(nodes) = args.nodes {
        SearchLimit::Nodes(nodes)
    } else {
        SearchLimit::Clock(args.tc.unwrap_or(TimeControl {
            moves: 0,
            base_ms: 10_000,
            increment_ms: 100,
        }))
    }
}

fn settings(args: &MatchOptions, limit: SearchLimit) -> GameSettings {
    let hang_timeout = match (args.timeout_ms, limit) {
        (Some(ms), _) => Duration::from_millis(ms),
        (None, SearchLimit::MoveTime(ms)) => Duration::from_millis(2 * ms + 5_000),
        (None, _) => FIXED_WORK_TIMEOUT,
    };
    // The variant's own draw rules; Lasca has none, so the runner
    // adjudicates with a ply limit of its own and threefold repetition.
    let own = DrawRules::for_variant(args.variant);
    let default_max_plies = match own.max_plies {
        0 => LASCA_MAX_PLIES,
        plies => plies,
    };
    let rules = RuleSet::new(args.variant)
        .with_king_landing(args.king_landing.unwrap_or_default())
        .with_forced_capture(args.forced_capture.unwrap_or(true))
        .with_draw_rules(DrawRules {
            max_plies: args.max_plies.unwrap_or(default_max_plies),
            repetitions: 3,
            ..own
        });
    GameSettings {
        rules,
        limit,
        hang_timeout,
        time_margin: Duration::from_millis(args.time_margin_ms),
        adjudication: Adjudication {
            resign: args.resign,
            draw: args.draw,
        },
    }
}

/// The options to set in each engine: the variant first (setting it
/// resets the draw options), the match's rules, then the engine's own.
fn setup_lines(args: &MatchOptions, engines: &[EngineSpec]) -> Vec<Vec<(String, String)>> {
    let variant: Variant = args.variant;
    let mut common = vec![("UCI_Variant".to_string(), variant.to_string())];
    if let Some(rule) = args.king_landing {
        common.push(("KingLanding".to_string(), rule.to_string()));
    }
    if let Some(forced) = args.forced_capture {
        common.push(("ForcedCapture".to_string(), forced.to_string()));
    }
    if let Some(plies) = args.max_plies {
        common.push(("MaxPlies".to_string(), plies.to_string()));
    }
    engines
        .iter()
        .map(|spec| [common.clone(), spec.options.clone()].concat())
        .collect()
}

/// Who plays whom: every pair of engines, or the first against each other.
pub fn pairings(engines: usize, kind: TournamentKind) -> Vec<[usize; 2]> {
    match kind {
        TournamentKind::Gauntlet => (1..engines).map(|j| [0, j]).collect(),
        TournamentKind::RoundRobin => (0..engines)
            .flat_map(|i| (i + 1..engines).map(move |j| [i, j]))
            .collect(),
    }
}

/// Every game: round by round, pairing by pairing, `--games` games each.
/// Within a pairing the k-th game (counted across rounds) uses opening
/// k / 2 of the (possibly shuffled) book, wrapping around, and the first
/// engine has White when k is even.
fn schedule(pairings: &[[usize; 2]], args: &MatchOptions, openings: usize) -> Vec<Scheduled> {
    let opening_order = order(openings, args.seed);
    let games = args.games as usize;
    let mut schedule = Vec::new();
    for round in 0..args.rounds as usize {
        for pairing in 0..pairings.len() {
            for game in 0..games {
                let k = round * games + game;
                schedule.push(Scheduled {
                    index: schedule.len(),
                    pairing,
                    pair: k / 2,
                    opening: opening_order[(k / 2) % openings],
                    first_is_white: k.is_multiple_of(2),
                    round: format!("{}.{}", round + 1, pairing * games + game + 1),
                });
            }
        }
    }
    schedule
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        options: MatchOptions,
    }

    fn plan(args: &[&str]) -> Plan {
        let cli =
            Cli::try_parse_from(std::iter::once("match").chain(args.iter().copied())).unwrap();
        Plan::from_args(&cli.options).unwrap()
    }

    #[test]
    fn schedule_pairs_openings_swaps_colours_and_numbers_rounds() {
        let book = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/bench-positions/openings-bashni.txt"
        );
        let p = plan(&[
            "--engine",
            "a",
            "--engine",
            "b",
            "--games",
            "3",
            "--rounds",
            "2",
            "--openings",
            book,
        ]);
        assert_eq!(p.schedule.len(), 6);
        let slots: Vec<usize> = p.schedule.iter().map(|g| g.opening).collect();
        assert_eq!(slots, [0, 0, 1, 1, 2, 2]);
        let whites: Vec<bool> = p.schedule.iter().map(|g| g.first_is_white).collect();
        assert_eq!(whites, [true, false, true, false, true, false]);
        let rounds: Vec<&str> = p.schedule.iter().map(|g| g.round.as_str()).collect();
        assert_eq!(rounds, ["1.1", "1.2", "1.3", "2.1", "2.2", "2.3"]);
        let pairs: Vec<usize> = p.schedule.iter().map(|g| g.pair).collect();
        assert_eq!(pairs, [0, 0, 1, 1, 2, 2]);
        assert_eq!(
            p.settings.limit,
            SearchLimit::Clock(TimeControl {
                moves: 0,
                base_ms: 10_000,
                increment_ms: 100
            })
        );
        let draw = p.settings.rules.draw;
        assert_eq!(
            (draw.max_plies, draw.no_progress_plies, draw.repetitions),
            (250, 50, 3)
        );
    }

    #[test]
    fn shards_deal_out_whole_pairs_and_cover_the_schedule() {
        let p = plan(&[
            "--engine", "a", "--engine", "b", "--engine", "c", "--games", "3",
        ]);
        // Per pairing games 0,1 form pair 0 and game 2 pair 1: six units
        // of 2,1,2,1,2,1 games, dealt out in turn.
        assert_eq!(p.shard(1, 2), [0, 1, 3, 4, 6, 7]);
        assert_eq!(p.shard(2, 2), [2, 5, 8]);
        let mut all: Vec<usize> = (1..=4).flat_map(|k| p.shard(k, 4)).collect();
        all.sort();
        assert_eq!(all, (0..9).collect::<Vec<_>>());
        assert_eq!(p.shard(1, 1), (0..9).collect::<Vec<_>>());
    }

    #[test]
    fn round_robin_and_gauntlet_pairings() {
        assert_eq!(
            pairings(4, TournamentKind::RoundRobin),
            [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
        );
        assert_eq!(
            pairings(4, TournamentKind::Gauntlet),
            [[0, 1], [0, 2], [0, 3]]
        );
        assert_eq!(pairings(2, TournamentKind::Gauntlet), [[0, 1]]);
        let p = plan(&[
            "--engine", "a", "--engine", "b", "--engine", "c", "--games", "2",
        ]);
        assert_eq!(p.schedule.len(), 6);
        let rounds: Vec<&str> = p.schedule.iter().map(|g| g.round.as_str()).collect();
        assert_eq!(rounds, ["1.1", "1.2", "1.3", "1.4", "1.5", "1.6"]);
        let (white, black) = p.colours(&p.schedule[3]);
        assert_eq!((p.name(white), p.name(black)), ("c", "a"));
    }

    #[test]
    fn setup_sends_the_variant_first_and_names_stay_apart() {
        let p = plan(&[
            "--engine",
            "cmd=x/eng,option.Hash=8",
            "--engine",
            "x/eng",
            "--engine",
            "other",
            "--each",
            "option.Threads=1",
            "--variant",
            "lasca",
            "--max-plies",
            "90",
            "--depth",
            "3",
        ]);
        let names: Vec<&str> = (0..3).map(|e| p.name(e)).collect();
        assert_eq!(names, ["eng-1", "eng-2", "other"]);
        let pair = |n: &str, v: &str| (n.to_string(), v.to_string());
        assert_eq!(
            p.setup[0],
            [
                pair("UCI_Variant", "lasca"),
                pair("MaxPlies", "90"),
                pair("Threads", "1"),
                pair("Hash", "8")
            ]
        );
        assert_eq!(p.setup[1].len(), 3);
        let draw = p.settings.rules.draw;
        assert_eq!(
            (draw.max_plies, draw.no_progress_plies, draw.repetitions),
            (90, 0, 3)
        );
        assert_eq!(p.settings.hang_timeout, FIXED_WORK_TIMEOUT);
        let p = plan(&[
            "--engine",
            "a",
            "--engine",
            "b",
            "--movetime",
            "100",
            "--variant",
            "lasca",
        ]);
        assert_eq!(p.settings.hang_timeout, Duration::from_millis(5_200));
        assert_eq!(p.settings.rules.draw.max_plies, LASCA_MAX_PLIES);
    }
}
