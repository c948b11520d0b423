//! Adjudication by the engines' scores, as cutechess-cli's `-resign` and
//! `-draw` do it: the runner watches the score each engine reports with its
//! move and ends a game both engines already agree on.
//!
//! - Resign (`--resign movecount=N,score=X`): after a move whose engine
//!   reported a score of -X centipawns or worse for the `N`th time in a row
//!   (its own moves), while the opponent reported +X or better on its last
//!   `N` moves, the side that moved loses. `twosided=false` drops the
//!   opponent's half (cutechess's default; ours is two-sided because a lone
//!   pessimistic engine should not decide a game).
//! - Draw (`--draw movenumber=P,movecount=N,score=Y`): once `2 N`
//!   consecutive moves (plies, both engines) came with |score| <= Y and at
//!   least `P` full moves (`2 P` plies) have been played in the game, it is
//!   drawn.
//!
//! A move that came without a score resets the counts, as a book move does
//! in cutechess.

use bashni_host::info::Score;
use bashni_rules::Colour;

/// The thresholds; `None` leaves a rule off (the default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Adjudication {
    /// Adjudicate a loss on scores (`--resign`).
    pub resign: Option<ResignRule>,
    /// Adjudicate a draw on scores (`--draw`).
    pub draw: Option<DrawRule>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
/// `--resign movecount=N,score=CP[,twosided=BOOL]`.
pub struct ResignRule {
    /// Moves in a row the scores must hold.
    pub move_count: u32,
    /// Centipawns, positive.
    pub score: i32,
    /// Whether the winner's engine must agree.
    pub two_sided: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
/// `--draw movenumber=P,movecount=N,score=CP`.
pub struct DrawRule {
    /// Full moves played before a draw may be adjudicated.
    pub move_number: u32,
    /// Moves in a row (each side) the scores must hold.
    pub move_count: u32,
    /// Centipawns, positive.
    pub score: i32,
}

/// What the scores decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Both engines agree the game is drawn.
    Draw,
    /// This side lost.
    Lost(Colour),
}

/// The running counts of one game.
#[derive(Debug)]
pub struct Adjudicator {
    rules: Adjudication,
    /// Per side: its own consecutive moves scored at -X or worse.
    losing: [u32; 2],
    /// Per side: its own consecutive moves scored at +X or better.
    winning: [u32; 2],
    /// Consecutive plies with |score| <= Y.
    level: u32,
    plies: u32,
}

impl Adjudicator {
    /// An adjudicator with no scores seen yet.
    pub fn new(rules: Adjudication) -> Adjudicator {
        Adjudicator {
            rules,
            losing: [0; 2],
            winning: [0; 2],
            level: 0,
            plies: 0,
        }
    }

    /// Count the move `side` just made with the score it reported.
    pub fn after_move(&mut self, side: Colour, score: Option<Score>) -> Option<Verdict> {
        self.plies += 1;
        let i = side.index();
        let Some(score) = score.map(Score::centipawns) else {
            self.level = 0;
            self.losing[i] = 0;
            self.winning[i] = 0;
            return None;
        };
        if let Some(rule) = self.rules.draw {
            self.level = if score.abs() <= rule.score {
                self.level + 1
            } else {
                0
            };
            if self.plies / 2 >= rule.move_number && self.level >= 2 * rule.move_count {
                return Some(Verdict::Draw);
            }
        }
        let rule = self.rules.resign?;
        let streak = |hit: bool, count: u32| if hit { count + 1 } else { 0 };
        self.losing[i] = streak(score <= -rule.score, self.losing[i]);
        self.winning[i] = streak(score >= rule.score, self.winning[i]);
        let opponent_agrees = !rule.two_sided || self.winning[1 - i] >= rule.move_count;
        (self.losing[i] >= rule.move_count && opponent_agrees).then_some(Verdict::Lost(side))
    }
}

/// `movecount=N,score=X[,twosided=BOOL]`.
pub fn parse_resign(text: &str) -> Result<ResignRule, String> {
    let mut rule = ResignRule {
        move_count: 0,
        score: 0,
        two_sided: true,
    };
    for (key, value) in fields(text, "resign")? {
        match key {
            "movecount" => rule.move_count = positive(key, value)?,
            "score" => rule.score = positive(key, value)? as i32,
            "twosided" => {
                rule.two_sided = value
                    .parse()
                    .map_err(|_| format!("resign twosided '{value}' is not true or false"))?
            }
            _ => return Err(format!("unknown resign field '{key}'")),
        }
    }
    if rule.move_count == 0 || rule.score == 0 {
        return Err("resign needs movecount=N and score=CP".into());
    }
    Ok(rule)
}

/// `movenumber=P,movecount=N,score=Y`.
pub fn parse_draw(text: &str) -> Result<DrawRule, String> {
    let mut rule = DrawRule {
        move_number: 0,
        move_count: 0,
        score: -1,
    };
    for (key, value) in fields(text, "draw")? {
        match key {
            "movenumber" => rule.move_number = number(key, value)?,
            "movecount" => rule.move_count = positive(key, value)?,
            "score" => rule.score = number(key, value)? as i32,
            _ => return Err(format!("unknown draw field '{key}'")),
        }
    }
    if rule.move_count == 0 || rule.score < 0 {
        return Err("draw needs movecount=N and score=CP (movenumber=P is optional)".into());
    }
    Ok(rule)
}

fn fields<'a>(text: &'a str, what: &str) -> Result<Vec<(&'a str, &'a str)>, String> {
    text.split(',')
        .filter(|f| !f.is_empty())
        .map(|f| {
            f.split_once('=')
                .ok_or_else(|| format!("{what} field '{f}' is not KEY=VALUE"))
        })
        .collect()
}

fn number(key: &str, value: &str) -> Result<u32, String> {
    value
        .parse::<u32>()
        .ok()
        .filter(|&n| n <= 100_000)
        .ok_or_else(|| format!("{key} '{value}' is not a number from 0 to 100000"))
}

fn positive(key: &str, value: &str) -> Result<u32, String> {
    number(key, value)?
        .checked_sub(1)
        .map(|n| n + 1)
        .ok_or_else(|| format!("{key} must be above zero"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use Colour::{Black, White};

    fn cp(n: i32) -> Option<Score> {
        Some(Score::Cp(n))
    }

    #[test]
    fn resign_needs_both_engines_for_movecount_moves() {
        let rule = parse_resign("movecount=2,score=300").unwrap();
        let mut a = Adjudicator::new(Adjudication {
            resign: Some(rule),
            draw: None,
        });
        // White sees itself lost, Black sees itself winning.
        assert_eq!(a.after_move(White, cp(-300)), None);
        assert_eq!(a.after_move(Black, cp(350)), None);
        assert_eq!(a.after_move(White, cp(-400)), None); // Black: only 1 yet
        assert_eq!(a.after_move(Black, cp(300)), None);
        assert_eq!(a.after_move(White, cp(-301)), Some(Verdict::Lost(White)));
        // A score-less move breaks the streak.
        let mut a = Adjudicator::new(Adjudication {
            resign: Some(rule),
            draw: None,
        });
        for (side, score) in [(White, cp(-500)), (Black, cp(500)), (White, None)] {
            assert_eq!(a.after_move(side, score), None);
        }
        assert_eq!(a.after_move(Black, cp(500)), None);
        assert_eq!(a.after_move(White, cp(-500)), None);
        // One-sided: the loser's own view is enough.
        let mut a = Adjudicator::new(Adjudication {
            resign: Some(parse_resign("movecount=2,score=300,twosided=false").unwrap()),
            draw: None,
        });
        assert_eq!(a.after_move(White, cp(-300)), None);
        assert_eq!(a.after_move(Black, cp(0)), None);
        assert_eq!(
            a.after_move(White, Some(Score::Mated(3))),
            Some(Verdict::Lost(White))
        );
    }

    #[test]
    fn draw_waits_for_the_move_number_and_the_count() {
        let mut a = Adjudicator::new(Adjudication {
            resign: None,
            draw: Some(parse_draw("movenumber=3,movecount=1,score=10").unwrap()),
        });
        // Plies 1..5 all level; the count (2 plies) is met at ply 2, the
        // move number (6 plies) only at ply 6.
        for ply in 1..=5 {
            let side = if ply % 2 == 1 { White } else { Black };
            assert_eq!(a.after_move(side, cp(10 - ply)), None, "ply {ply}");
        }
        assert_eq!(a.after_move(Black, cp(-3)), Some(Verdict::Draw));
        // A big score resets the count.
        let mut a = Adjudicator::new(Adjudication {
            resign: None,
            draw: Some(parse_draw("movecount=2,score=0").unwrap()),
        });
        let scores = [0, 0, 0, 1, 0, 0, 0];
        let verdicts: Vec<_> = scores.iter().map(|&s| a.after_move(White, cp(s))).collect();
        assert_eq!(verdicts[..6], [None; 6]);
        assert_eq!(verdicts[6], None);
        assert_eq!(a.after_move(White, cp(0)), Some(Verdict::Draw));
    }

    #[test]
    fn rule_texts() {
        assert_eq!(
            parse_draw("movenumber=40,movecount=8,score=10"),
            Ok(DrawRule {
                move_number: 40,
                move_count: 8,
                score: 10
            })
        );
        for bad in [
            "",
            "movecount=0,score=5",
            "score=5",
            "movecount=3,score=-1",
            "x=1",
        ] {
            assert!(parse_resign(bad).is_err(), "{bad}");
        }
        for bad in [
            "",
            "movecount=2",
            "movecount=2,score=x",
            "movenumber=-1,movecount=1,score=1",
        ] {
            assert!(parse_draw(bad).is_err(), "{bad}");
        }
        assert!(parse_resign("movecount=3,score=500,twosided=maybe").is_err());
    }
}
