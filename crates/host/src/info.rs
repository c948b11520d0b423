//! The engine's `info` lines: the one parser of the workspace, and the one
//! score type.

use std::fmt;

/// A mate as a number of centipawns: beyond any material score, so that
/// thresholds and bars treat it as the best (or worst) score there is. A
/// mate in n moves counts as `MATE_CP - n`, a quicker mate higher.
pub const MATE_CP: i32 = 100_000;

/// A score as an engine reports it, from one side's view (the side to
/// move's, as sent).
///
/// A mate is the number of moves with who mates: `mate 3` is
/// `Mates(3)`, `mate -2` is `Mated(2)`, and `mate 0` (the side to move has
/// no move left) is `Mated(0)`, so a mate keeps its sign when the view
/// turns, even at zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns (a man is about 100).
    Cp(i32),
    /// This side mates in this many moves.
    Mates(u32),
    /// This side is mated in this many moves (0: it is mated now).
    Mated(u32),
}

impl Score {
    /// The score as one number: centipawns, a mate as `±(MATE_CP - n)`.
    /// Centipawns are kept inside the mate range, so an engine's huge
    /// centipawn score never passes for a mate.
    pub fn centipawns(self) -> i32 {
        let limit = MATE_CP - 1_000;
        let moves = |n: u32| i32::try_from(n.min(1_000)).unwrap_or(1_000);
        match self {
            Score::Cp(cp) => cp.clamp(-limit, limit),
            Score::Mates(n) => MATE_CP - moves(n),
            Score::Mated(n) => moves(n) - MATE_CP,
        }
    }

    /// The score from the other side's view.
    pub fn negate(self) -> Score {
        match self {
            Score::Cp(cp) => Score::Cp(cp.saturating_neg()),
            Score::Mates(n) => Score::Mated(n),
            Score::Mated(n) => Score::Mates(n),
        }
    }

    /// The score from White's view, given who was to move when it came.
    pub fn for_white(self, white_to_move: bool) -> Score {
        if white_to_move { self } else { self.negate() }
    }

    /// The score in `info` words after `score`: `cp 12`, `mate -3`.
    fn parse(kind: &str, value: &str) -> Option<Score> {
        match kind {
            "cp" => value.parse().ok().map(Score::Cp),
            "mate" => {
                let n: i64 = value.parse().ok()?;
                let moves = u32::try_from(n.unsigned_abs()).ok()?;
                Some(if n > 0 {
                    Score::Mates(moves)
                } else {
                    Score::Mated(moves)
                })
            }
            _ => None,
        }
    }
}

/// Cutechess's form, used in PDN comments and on the board's page: pawns
/// with a sign (`+0.12`), a mate as `+M3` / `-M3`.
impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Score::Cp(cp) => write!(f, "{:+.2}", f64::from(cp) / 100.0),
            Score::Mates(n) => write!(f, "+M{n}"),
            Score::Mated(n) => write!(f, "-M{n}"),
        }
    }
}

/// Whether a reported score is exact or only a bound of a failed window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The score is at least this (`lowerbound`).
    Lower,
    /// The score is at most this (`upperbound`).
    Upper,
}

/// One `info` line, as far as a host uses it. Fields the line lacks are
/// `None` (or empty).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Info {
    /// `depth`.
    pub depth: Option<u32>,
    /// `seldepth`.
    pub seldepth: Option<u32>,
    /// `multipv`: which line of a multi-line search (1 is the best); 1
    /// when the engine does not say.
    pub multipv: u32,
    /// `score cp N` or `score mate N`, from the side to move's view.
    pub score: Option<Score>,
    /// `lowerbound` or `upperbound` after the score.
    pub bound: Option<Bound>,
    /// `nodes`.
    pub nodes: Option<u64>,
    /// `time`, in milliseconds.
    pub time_ms: Option<u64>,
    /// `pv`: the moves of the line (the rest of the line).
    pub pv: Vec<String>,
    /// `string`: free text (the rest of the line).
    pub string: Option<String>,
}

impl Info {
    /// Parse an `info` line. Other lines, and `info` lines with a field
    /// that does not read (the engine is untrusted: half a line is not
    /// taken), give `None`. Unknown fields are skipped.
    pub fn parse(line: &str) -> Option<Info> {
        let mut words = line.split_whitespace();
        if words.next() != Some("info") {
            return None;
        }
        let mut info = Info {
            multipv: 1,
            ..Info::default()
        };
        while let Some(key) = words.next() {
            match key {
                "depth" => info.depth = Some(number(words.next())?),
                "seldepth" => info.seldepth = Some(number(words.next())?),
                "multipv" => info.multipv = number(words.next()).filter(|&n| n > 0)?,
                "score" => info.score = Some(Score::parse(words.next()?, words.next()?)?),
                "lowerbound" => info.bound = Some(Bound::Lower),
                "upperbound" => info.bound = Some(Bound::Upper),
                "nodes" => info.nodes = Some(number(words.next())?),
                "time" => info.time_ms = Some(number(words.next())?),
                "pv" => info.pv = words.by_ref().map(str::to_string).collect(),
                "string" => info.string = Some(words.by_ref().collect::<Vec<_>>().join(" ")),
                _ => {}
            }
        }
        Some(info)
    }

    /// Whether the line is about the best line (`multipv 1`, or no
    /// `multipv`): the one whose score counts for the move.
    pub fn is_main_line(&self) -> bool {
        self.multipv == 1
    }

    /// The error an engine reports with `info string error: ...` (the text
    /// after `error`), if this is one.
    pub fn error(&self) -> Option<&str> {
        let text = self.string.as_deref()?.strip_prefix("error")?;
        let ends = text.is_empty() || text.starts_with([':', ' ']);
        ends.then(|| text.strip_prefix(':').unwrap_or(text).trim())
    }
}

fn number<T: std::str::FromStr>(word: Option<&str>) -> Option<T> {
    word?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines_give_their_fields() {
        let info =
            Info::parse("info depth 12 seldepth 20 multipv 2 score cp -35 upperbound nodes 9 time 5 pv c3-d4 f6-g5")
                .unwrap();
        assert_eq!(
            (info.depth, info.seldepth, info.multipv),
            (Some(12), Some(20), 2)
        );
        assert_eq!(info.score, Some(Score::Cp(-35)));
        assert_eq!(info.bound, Some(Bound::Upper));
        assert_eq!((info.nodes, info.time_ms), (Some(9), Some(5)));
        assert_eq!(info.pv, ["c3-d4", "f6-g5"]);
        assert!(!info.is_main_line());
        let mate = Info::parse("info depth 7 score mate 3 hashfull 4").unwrap();
        assert_eq!((mate.score, mate.multipv), (Some(Score::Mates(3)), 1));
        let mated = Info::parse("info depth 0 score mate 0").unwrap();
        assert_eq!(mated.score, Some(Score::Mated(0)));
    }

    #[test]
    fn strings_and_errors() {
        let info = Info::parse("info string error: option Hash: bad").unwrap();
        assert_eq!(info.string.as_deref(), Some("error: option Hash: bad"));
        assert_eq!(info.error(), Some("option Hash: bad"));
        assert_eq!(Info::parse("info string hello").unwrap().error(), None);
        assert_eq!(Info::parse("info string errors: 0").unwrap().error(), None);
        assert_eq!(Info::parse("info string hello").unwrap().score, None);
    }

    #[test]
    fn broken_and_other_lines_give_nothing() {
        for line in [
            "info depth x score cp 3 pv a1-b2",
            "info score cp",
            "info score wdl 3",
            "info multipv 0 score cp 1 pv c3-d4",
            "bestmove c3-d4",
            "informant",
            "",
        ] {
            assert_eq!(Info::parse(line), None, "{line}");
        }
    }

    #[test]
    fn scores_print_as_cutechess_does_and_turn_with_the_view() {
        assert_eq!(Score::Cp(12).to_string(), "+0.12");
        assert_eq!(Score::Cp(-105).to_string(), "-1.05");
        assert_eq!(Score::Cp(0).to_string(), "+0.00");
        assert_eq!(Score::Mates(3).to_string(), "+M3");
        assert_eq!(Score::Mated(2).to_string(), "-M2");
        assert_eq!(Score::Mates(4).negate(), Score::Mated(4));
        assert_eq!(Score::Mated(0).for_white(false), Score::Mates(0));
        assert_eq!(Score::Cp(7).for_white(false), Score::Cp(-7));
        assert!(Score::Mated(2).centipawns() < Score::Cp(-50_000_000).centipawns());
        assert!(Score::Mates(1).centipawns() > Score::Mates(5).centipawns());
        assert!(Score::Mated(0).centipawns() < Score::Mated(3).centipawns());
        assert_eq!(Score::Mates(2).centipawns(), MATE_CP - 2);
    }
}
