//! `bashni annotate GAME.pdn`: replay every game of a PDN file, search each
//! position, and write the games again with what the engine thinks of every
//! move. This is how players study their games.
//!
//! After each move the comment holds the score after it, from White's view
//! in pawns with the search depth (`+0.35/8`, `-M3/8` for a mate). When the
//! move played loses `--mistake` centipawns or more against the engine's
//! best move (scores from the mover's view, mates counted as 1000), the
//! move gets `?` (`??` from `--blunder`) and the comment adds the best move,
//! its score and the engine's line. Before the first move a comment sums
//! the game up: mistakes, blunders and average loss per side.

use crate::search_args::{Networks, SearchArgs};
use anyhow::Context;
use bashni_engine::nnue::Network;
use bashni_engine::search::{self, Config, Limits, MATE, is_mate_score};
use bashni_engine::tt::{LockFreeTable, Table};
use bashni_host::info::Score;
use bashni_host::pdn::{PdnGame, parse_pdn};
use bashni_rules::{Colour, Game, GameEnd, KingLanding, Move, Position, RuleSet, Variant};
use std::path::PathBuf;
use std::sync::Arc;

/// The depth of each search when no limit is given.
const DEFAULT_DEPTH: u32 = 8;

/// The loss in centipawns from which a move is a mistake (`?`), unless
/// `--mistake` says otherwise.
const DEFAULT_MISTAKE: i32 = 100;

/// The loss from which a move is a blunder (`??`).
const DEFAULT_BLUNDER: i32 = 300;

/// Options of `bashni annotate`.
#[derive(clap::Args, Debug)]
pub struct AnnotateArgs {
    /// The PDN file to annotate.
    pub file: PathBuf,
    /// Write the annotated games here instead of standard output.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    /// How long to search each move.
    pub search: SearchArgs,
    /// A loss of this many centipawns or more marks a mistake (`?`).
    #[arg(long, default_value_t = DEFAULT_MISTAKE)]
    pub mistake: i32,
    /// A loss of this many centipawns or more marks a blunder (`??`).
    #[arg(long, default_value_t = DEFAULT_BLUNDER)]
    pub blunder: i32,
}

/// Mates count as this many centipawns when losses are measured, so that
/// a slower mate is not a blunder.
const MATE_CP: i32 = 1000;

/// What the engine found in one position.
struct Verdict {
    best: Option<Move>,
    /// From the side to move's view, in search units.
    score: i32,
    depth: u32,
    pv: Vec<Move>,
}

/// Per side: mistakes, blunders, total loss, moves.
#[derive(Default, Clone, Copy)]
struct SideSummary {
    mistakes: u32,
    blunders: u32,
    loss: i64,
    moves: u32,
}

struct Annotator {
    limits: Limits,
    threads: usize,
    tt: LockFreeTable,
    thresholds: Thresholds,
    description: String,
    networks: Networks,
}

/// Run `bashni annotate`.
pub fn run(args: AnnotateArgs) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let games = parse_pdn(&text).map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?;
    if args.blunder < args.mistake || args.mistake <= 0 {
        anyhow::bail!("--mistake must be above 0 and at most --blunder");
    }
    let annotator = Annotator {
        limits: args.search.limits(DEFAULT_DEPTH),
        threads: args.search.threads as usize,
        tt: args.search.table()?,
        thresholds: Thresholds {
            mistake: args.mistake,
            blunder: args.blunder,
        },
        description: args.search.describe(DEFAULT_DEPTH),
        networks: Networks::new(&args.search.eval_file),
    };
    let mut out = String::new();
    for (i, game) in games.iter().enumerate() {
        let annotated = annotator
            .annotate(game)
            .with_context(|| format!("game {}", i + 1))?;
        out += &annotated.to_pdn();
    }
    match &args.output {
        Some(path) => {
            std::fs::write(path, out).with_context(|| format!("cannot write {}", path.display()))?
        }
        None => print!("{out}"),
    }
    Ok(())
}

/// What the engine says of one move played.
struct Judged {
    /// Who played it.
    side: Colour,
    /// The score after it, White's view, in search units.
    white_view: i32,
    /// The depth the score comes from.
    depth: u32,
    /// Centipawns lost against the engine's best move (mover's view).
    loss: i32,
    /// `?` or `??`, with the engine's verdict on the position before it.
    mark: Option<(&'static str, Verdict)>,
}

/// One move of a game as the play server's analysis shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveNote {
    /// `?`, `??` or none.
    pub mark: Option<&'static str>,
    /// The score after the move, White's view, in centipawns (mates
    /// counted as ±1000).
    pub white_cp: i32,
}

/// An engine's answer in one position of a game: its best move (in the
/// rules' notation, as the engine sent it) and its score.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineAnswer {
    /// The move.
    pub best: String,
    /// The score, from the side to move's view, if the engine gave one
    /// (an engine may play a forced move without a search to report).
    pub score: Option<Score>,
}

/// The positions of a game that need an engine's answer to be judged:
/// every one the rules have not ended, in order, each with its ply (0:
/// the start). The play server asks its engines for these, then hands the
/// answers to [`judge_answers`].
pub fn positions_to_search(
    rules: RuleSet,
    fen: &str,
    moves: &[String],
) -> anyhow::Result<Vec<(usize, Position)>> {
    let mut game = Game::from_fen(rules, fen).map_err(|e| anyhow::anyhow!("FEN: {e}"))?;
    let mut positions = Vec::with_capacity(moves.len() + 1);
    for (i, text) in moves.iter().enumerate() {
        if game.result().is_none() {
            positions.push((i, game.position().clone()));
        }
        game.play_text(text)
            .map_err(|e| anyhow::anyhow!("move {} '{text}': {e}", i + 1))?;
    }
    if game.result().is_none() {
        positions.push((moves.len(), game.position().clone()));
    }
    Ok(positions)
}

/// Judge every move of a game (start `fen`, `moves` in the rules'
/// notation) from an engine's `answers` for the positions
/// [`positions_to_search`] lists, in order, with the default thresholds
/// of `bashni annotate`: what the play server shows after a game. A
/// position answered without a score keeps the score of the one before
/// (the move into it loses nothing). Answers fewer or more than the
/// positions, or a best move not legal in its position, are an error.
pub fn judge_answers(
    rules: RuleSet,
    fen: &str,
    moves: &[String],
    answers: Vec<EngineAnswer>,
) -> anyhow::Result<Vec<MoveNote>> {
    let game = Game::from_fen(rules, fen).map_err(|e| anyhow::anyhow!("FEN: {e}"))?;
    let mut answers = answers.into_iter();
    let thresholds = Thresholds {
        mistake: DEFAULT_MISTAKE,
        blunder: DEFAULT_BLUNDER,
    };
    // The score of the position before, from its side to move's view.
    let mut last = 0;
    let judged = judge_moves(game, moves, thresholds, |game| {
        let answer = answers
            .next()
            .context("fewer answers than positions to judge")?;
        let best = game
            .position()
            .parse_move(&answer.best)
            .map_err(|e| anyhow::anyhow!("the engine's best move '{}': {e}", answer.best))?;
        last = answer.score.map_or(-last, search_score);
        Ok(Verdict {
            best: Some(best),
            score: last,
            depth: 0,
            pv: Vec::new(),
        })
    })?;
    anyhow::ensure!(
        answers.next().is_none(),
        "more answers than positions to judge"
    );
    Ok(judged
        .into_iter()
        .map(|j| MoveNote {
            mark: j.mark.map(|(mark, _)| mark),
            white_cp: capped(j.white_view),
        })
        .collect())
}

/// A protocol score as a search score: a mate in `n` moves is a mate
/// `2n - 1` plies away, a mated side's `2n`.
fn search_score(score: Score) -> i32 {
    let plies = |n: u32, odd: u32| i32::try_from((2 * n).saturating_sub(odd)).unwrap_or(MATE);
    match score {
        Score::Cp(cp) => cp.clamp(-(MATE_CP * 10), MATE_CP * 10),
        Score::Mates(n) => MATE - plies(n, 1),
        Score::Mated(n) => plies(n, 0) - MATE,
    }
}

/// From what loss in centipawns a move is a mistake (`?`) and a blunder
/// (`??`).
#[derive(Clone, Copy, Debug)]
struct Thresholds {
    mistake: i32,
    blunder: i32,
}

/// Play `moves` from `game`, judging each by the verdicts before and after
/// it: a position the rules ended scores itself, and `search` is asked
/// for every other, in order.
fn judge_moves(
    mut game: Game,
    moves: &[String],
    thresholds: Thresholds,
    mut search: impl FnMut(&Game) -> anyhow::Result<Verdict>,
) -> anyhow::Result<Vec<Judged>> {
    let mut judged = Vec::with_capacity(moves.len());
    let mut before = verdict_of(&game, &mut search)?;
    for (i, text) in moves.iter().enumerate() {
        let side = game.position().side_to_move();
        let played = game
            .play_text(text)
            .map_err(|e| anyhow::anyhow!("move {} '{text}': {e}", i + 1))?;
        let after = verdict_of(&game, &mut search)?;
        let value = -capped(after.score);
        let loss = match before.best == Some(played) {
            true => 0,
            false => (capped(before.score) - value).max(0),
        };
        let white_view = if side == Colour::White {
            -after.score
        } else {
            after.score
        };
        let depth = after.depth.max(before.depth);
        let mark = match () {
            _ if loss >= thresholds.blunder && before.best.is_some() => Some("??"),
            _ if loss >= thresholds.mistake && before.best.is_some() => Some("?"),
            _ => None,
        };
        let previous = std::mem::replace(&mut before, after);
        judged.push(Judged {
            side,
            white_view,
            depth,
            loss,
            mark: mark.map(|m| (m, previous)),
        });
    }
    Ok(judged)
}

/// The verdict on `game`'s position: a finished game scores itself (lost
/// for the side to move with no legal move, level for a draw), any other
/// is searched.
fn verdict_of(
    game: &Game,
    search: &mut impl FnMut(&Game) -> anyhow::Result<Verdict>,
) -> anyhow::Result<Verdict> {
    let ended = |score| Verdict {
        best: None,
        score,
        depth: 0,
        pv: Vec::new(),
    };
    match game.result() {
        Some(GameEnd::NoLegalMove { .. }) => Ok(ended(-MATE)),
        Some(GameEnd::Draw(_)) => Ok(ended(0)),
        None => search(game),
    }
}

impl Annotator {
    /// The game with comments, marks, a summary and an `[Annotator]` tag.
    fn annotate(&self, pdn: &PdnGame) -> anyhow::Result<PdnGame> {
        let rules = rules_of(pdn)?;
        let fen = pdn
            .tag("FEN")
            .map_or_else(|| rules.variant.start_fen().to_string(), str::to_string);
        let game = Game::from_fen(rules, &fen).map_err(|e| anyhow::anyhow!("FEN: {e}"))?;
        let mut out = pdn.clone();
        let mut summary = [SideSummary::default(); 2];
        for (i, judged) in self.judge(game, &pdn.moves)?.into_iter().enumerate() {
            let s = &mut summary[judged.side.index()];
            s.moves += 1;
            s.loss += i64::from(judged.loss);
            let mut comment = format!("{}/{}", pawns(judged.white_view), judged.depth);
            if let Some((mark, before)) = &judged.mark {
                *if *mark == "??" {
                    &mut s.blunders
                } else {
                    &mut s.mistakes
                } += 1;
                out.marks[i] = Some(mark.to_string());
                let line: Vec<String> = before.pv.iter().map(Move::to_string).collect();
                let best_white = if judged.side == Colour::White {
                    before.score
                } else {
                    -before.score
                };
                if let Some(best) = before.best {
                    comment += &format!(
                        " loses {:.2}; best {best} {} line {}",
                        f64::from(judged.loss) / 100.0,
                        pawns(best_white),
                        line.join(" ")
                    );
                }
            }
            out.comments[i] = Some(comment);
        }
        out.preface = Some(self.summary_text(&summary));
        out.tags.retain(|(name, _)| name != "Annotator");
        out.tags.push((
            "Annotator".into(),
            format!("bashni annotate {}", self.description),
        ));
        Ok(out)
    }

    /// Play `moves` from `game`, searching before and after each: what
    /// each move lost and the score after it.
    fn judge(&self, game: Game, moves: &[String]) -> anyhow::Result<Vec<Judged>> {
        let network = self.networks.for_variant(game.rules().variant)?;
        judge_moves(game, moves, self.thresholds, |game| {
            Ok(self.search(game, &network))
        })
    }

    /// Search the game's current position (one the rules have not ended).
    fn search(&self, game: &Game, network: &Option<Arc<Network>>) -> Verdict {
        let config = Config {
            threads: self.threads,
            draw_rules: game.rules().draw,
            network: network.clone(),
            ..Config::default()
        };
        self.tt.clear();
        let mut pv = Vec::new();
        let outcome = search::Searcher::new(&self.tt, config).search(
            game.position(),
            game.repetition_keys(),
            &self.limits,
            &mut |r| {
                if r.multipv == 1 {
                    pv = r.pv.clone();
                }
            },
        );
        Verdict {
            best: outcome.best,
            score: outcome.score,
            depth: outcome.depth,
            pv,
        }
    }

    fn summary_text(&self, summary: &[SideSummary; 2]) -> String {
        let side = |name: &str, s: &SideSummary| {
            let average = s.loss as f64 / f64::from(s.moves.max(1));
            format!(
                "{name} {} mistake(s), {} blunder(s), average loss {average:.0} cp",
                s.mistakes, s.blunders
            )
        };
        format!(
            "bashni annotate {}: {}; {}",
            self.description,
            side("White", &summary[0]),
            side("Black", &summary[1])
        )
    }
}

/// The rules a PDN game was played under, from its tags.
fn rules_of(pdn: &PdnGame) -> anyhow::Result<RuleSet> {
    let variant: Variant = pdn
        .tag("Variant")
        .unwrap_or("bashni")
        .parse()
        .map_err(anyhow::Error::msg)?;
    let landing: KingLanding = pdn
        .tag("KingLanding")
        .unwrap_or("continue")
        .parse()
        .map_err(anyhow::Error::msg)?;
    Ok(RuleSet::new(variant).with_king_landing(landing))
}

/// A search score in centipawns with mates capped, for losses.
fn capped(score: i32) -> i32 {
    if is_mate_score(score) {
        MATE_CP * score.signum()
    } else {
        score.clamp(-MATE_CP, MATE_CP)
    }
}

/// `+0.35`, or `+M3` / `-M2` for mates (moves).
fn pawns(score: i32) -> String {
    if is_mate_score(score) {
        let moves = (MATE - score.abs() + 1) / 2;
        let sign = if score > 0 { '+' } else { '-' };
        format!("{sign}M{moves}")
    } else {
        format!("{:+.2}", f64::from(score) / 100.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_answers_mark_the_moves_that_lose() {
        let rules = RuleSet::new(Variant::Bashni);
        let fen = Variant::Bashni.start_fen();
        let moves = vec!["c3-d4".to_string(), "f6-g5".to_string()];
        let plies: Vec<usize> = positions_to_search(rules, fen, &moves)
            .expect("positions")
            .into_iter()
            .map(|(ply, _)| ply)
            .collect();
        assert_eq!(plies, [0, 1, 2]);
        let answer = |best: &str, score| EngineAnswer {
            best: best.into(),
            score,
        };
        // White plays c3-d4, not the engine's a3-b4, and goes from level
        // to 5 men down; Black then plays the best move, and a mate is
        // found after it.
        let answers = vec![
            answer("a3-b4", Some(Score::Cp(0))),
            answer("f6-g5", Some(Score::Cp(500))),
            answer("g3-h4", Some(Score::Mated(3))),
        ];
        let notes = judge_answers(rules, fen, &moves, answers.clone()).expect("judged");
        assert_eq!(
            notes,
            vec![
                MoveNote {
                    mark: Some("??"),
                    white_cp: -500
                },
                MoveNote {
                    mark: None,
                    white_cp: -MATE_CP
                },
            ]
        );
        let short = judge_answers(rules, fen, &moves, answers[..2].to_vec());
        assert!(short.is_err(), "an answer missing");
        let mut long = answers.clone();
        long.push(answers[0].clone());
        assert!(
            judge_answers(rules, fen, &moves, long).is_err(),
            "one too many"
        );
        // Black's answer came without a score: its position keeps the
        // level score of the one before, and White's move into it is no
        // longer marked.
        let mut unscored = answers.clone();
        unscored[1].score = None;
        let notes = judge_answers(rules, fen, &moves, unscored).expect("judged");
        assert_eq!(
            notes[0],
            MoveNote {
                mark: None,
                white_cp: 0
            }
        );
        let mut illegal = answers;
        illegal[1].best = "e1-f2".into();
        let illegal = judge_answers(rules, fen, &moves, illegal).map_err(|e| e.to_string());
        assert!(illegal.is_err_and(|e| e.contains("e1-f2")));
    }

    #[test]
    fn scores_and_caps() {
        assert_eq!(pawns(35), "+0.35");
        assert_eq!(pawns(-120), "-1.20");
        assert_eq!(pawns(MATE - 5), "+M3");
        assert_eq!(pawns(-(MATE - 2)), "-M1");
        assert_eq!(capped(MATE - 9), MATE_CP);
        assert_eq!(capped(-5000), -MATE_CP);
        assert_eq!(capped(42), 42);
    }
}
