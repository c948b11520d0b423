//! `bashni stats FILE.pdn...`: one report from the games of one or more
//! PDN files, such as the shards of a match run on many machines.
//!
//! Games are taken in `[GameNumber]` order (file order without it). The
//! engines are numbered as they first appear, and each pairing is seen from
//! the engine that had White in its first game, which for a `bashni match`
//! file is the engine given first. The two games of a pair are joined by
//! their `[Pair]` tag together with the opening and the game settings, so
//! the shards of one match join up, while games of different matches that
//! happen to carry the same pair number stay apart.

use super::game::{GameResult, Termination};
use super::report::{Scoreboard, SprtStatus};
use super::stats::{Sprt, SprtDecision};
use anyhow::{Context, bail};
use bashni_host::pdn::{PdnGame, parse_pdn};
use std::path::PathBuf;

/// Options of `bashni stats`.
#[derive(clap::Args, Debug)]
pub struct StatsArgs {
    /// PDN files written by `bashni match` (or any PDN with White, Black
    /// and a result).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Also run this sequential test on the games (two engines only), as
    /// `--sprt` of `bashni match` takes it.
    #[arg(long, value_parser = super::parse_sprt)]
    pub sprt: Option<Sprt>,
}

/// Print the report of the games in `args.files`.
pub fn run(args: StatsArgs) -> anyhow::Result<()> {
    let mut games = Vec::new();
    let mut read = Vec::new();
    for path in &args.files {
        // One file twice would count its games twice, as shards do not.
        let same = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
        if read.contains(&same) {
            bail!(
                "'{}' is given twice: its games would count twice",
                path.display()
            );
        }
        read.push(same);
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read '{}'", path.display()))?;
        let found = parse_pdn(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        games.extend(found);
    }
    // A stable sort: games without a number keep their file order.
    games.sort_by_key(|g| {
        g.tag("GameNumber")
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or(u64::MAX)
    });
    let board = scoreboard(&games)?;
    if args.sprt.is_some() && board.names.len() != 2 {
        bail!(
            "--sprt needs exactly two engines, the files have {}",
            board.names.len()
        );
    }
    bashni_engine::outln!("Games: {} from {} file(s)", games.len(), args.files.len());
    let status = args.sprt.map(|sprt| {
        let decision = sprt.decide(board.llr(&sprt));
        SprtStatus {
            sprt,
            decided: (decision != SprtDecision::Continue).then_some((decision, games.len())),
        }
    });
    board.print(status.as_ref());
    Ok(())
}

/// Count every game.
pub fn scoreboard(games: &[PdnGame]) -> anyhow::Result<Scoreboard> {
    let mut names: Vec<String> = Vec::new();
    let mut pairings: Vec<[usize; 2]> = Vec::new();
    let mut counted = Vec::new();
    for (i, game) in games.iter().enumerate() {
        let what = |tag: &str| {
            game.tag(tag)
                .map(str::to_string)
                .ok_or_else(|| anyhow::anyhow!("game {} has no {tag} tag", i + 1))
        };
        let [white, black] = [what("White")?, what("Black")?].map(|name| {
            names.iter().position(|n| *n == name).unwrap_or_else(|| {
                names.push(name);
                names.len() - 1
            })
        });
        let pairing = pairings
            .iter()
            .position(|p| *p == [white, black] || *p == [black, white])
            .unwrap_or_else(|| {
                pairings.push([white, black]);
                pairings.len() - 1
            });
        let result = GameResult::from_pdn(&game.result).ok_or_else(|| {
            anyhow::anyhow!(
                "game {}: result '{}' is not 2-0, 0-2 or 1-1",
                i + 1,
                game.result
            )
        })?;
        let first_is_white = pairings[pairing][0] == white;
        counted.push((pairing, first_is_white, result, game));
    }
    let mut board = Scoreboard::new(names, pairings);
    for (pairing, first_is_white, result, game) in counted {
        let half_points = match (result, first_is_white) {
            (GameResult::Draw, _) => 1,
            (GameResult::WhiteWins, true) | (GameResult::BlackWins, false) => 2,
            _ => 0,
        };
        board.scores[pairing].add(&pair_key(game), half_points);
        let kind = match game.tag("Termination").map(str::parse::<Termination>) {
            Some(Ok(termination)) => termination.kind(),
            Some(Err(_)) | None => game.tag("Termination").unwrap_or("unknown").to_string(),
        };
        *board.terminations.entry(kind).or_insert(0) += 1;
    }
    Ok(board)
}

/// What the two games of one pair share: the `[Pair]` number (as a shard
/// of the match wrote it), the opening and the settings. Pair numbers
/// restart in every match, so the number alone would join games of
/// different matches into pairs that were never played.
fn pair_key(game: &PdnGame) -> String {
    [
        "Pair",
        "FEN",
        "Variant",
        "KingLanding",
        "ForcedCapture",
        "TimeControl",
        "SearchLimit",
    ]
    .map(|tag| game.tag(tag).unwrap_or(""))
    .join("\u{1f}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(white: &str, black: &str, result: &str, pair: &str) -> PdnGame {
        opened(white, black, result, pair, "")
    }

    fn opened(white: &str, black: &str, result: &str, pair: &str, fen: &str) -> PdnGame {
        let tags = [
            ("White", white),
            ("Black", black),
            ("Pair", pair),
            ("FEN", fen),
            ("Termination", "normal"),
        ];
        PdnGame::new(
            tags.iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            Vec::new(),
            result,
        )
    }

    #[test]
    fn pairings_take_the_first_white_view_and_pairs_join_by_tag() {
        let games = [
            game("a", "b", "2-0", "1"),
            game("b", "a", "2-0", "1"), // a lost: pair 1 is one point of two
            game("a", "b", "1-1", "2"),
            game("c", "a", "0-2", "1"),
            game("b", "a", "0-2", "2"), // a won: pair 2 a win and a draw
        ];
        let board = scoreboard(&games).unwrap();
        assert_eq!(board.names, ["a", "b", "c"]);
        assert_eq!(board.pairings, [[0, 1], [2, 0]]);
        let ab = &board.scores[0];
        assert_eq!((ab.wdl.wins, ab.wdl.draws, ab.wdl.losses), (2, 1, 1));
        assert_eq!(ab.penta.counts, [0, 0, 1, 1, 0]);
        assert_eq!(board.scores[1].wdl.losses, 1);
        assert_eq!(board.terminations["normal"], 5);
        assert!(scoreboard(&[game("a", "b", "*", "1")]).is_err());
    }

    #[test]
    fn pairs_of_different_matches_stay_apart() {
        // Two matches merged in game-number order: a won both games of
        // the first one's pair 1 and drew both of the second one's. Joined
        // by number alone they would read as two pairs of a win and a draw.
        let games = [
            opened("a", "b", "2-0", "1", "W:W21:B9"),
            opened("a", "b", "1-1", "1", "W:W22:B10"),
            opened("b", "a", "0-2", "1", "W:W21:B9"),
            opened("b", "a", "1-1", "1", "W:W22:B10"),
        ];
        let board = scoreboard(&games).unwrap();
        assert_eq!(board.scores[0].penta.counts, [0, 0, 1, 0, 1]);
    }
}
