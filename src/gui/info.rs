//! Reading the engine's `info` lines into lines for the page.

use super::messages::PvLine;

/// A mate shows on the bar and the graph as this many centipawns.
const MATE_CP: i32 = 10_000;

/// Parse an `info` line that carries a score and a PV; `white_to_move`
/// turns the engine's side-to-move score into White's view. Other lines
/// (and malformed ones: the engine is untrusted) give `None`.
pub fn parse_info(line: &str, white_to_move: bool) -> Option<PvLine> {
    let mut tokens = line.split_whitespace();
    if tokens.next() != Some("info") {
        return None;
    }
    let (mut multipv, mut depth, mut score, mut pv) = (1, 0, None, Vec::new());
    while let Some(key) = tokens.next() {
        match key {
            "multipv" => multipv = tokens.next()?.parse().ok()?,
            "depth" => depth = tokens.next()?.parse().ok()?,
            "score" => {
                let kind = tokens.next()?;
                let value: i32 = tokens.next()?.parse().ok()?;
                score = Some((kind == "mate", value));
            }
            "pv" => {
                pv = tokens.by_ref().map(str::to_string).collect();
            }
            "string" => return None,
            _ => {}
        }
    }
    let (mate, value) = score?;
    if pv.is_empty() || multipv == 0 {
        return None;
    }
    let value = if white_to_move { value } else { -value };
    let (text, cp) = if mate {
        let cp = if value > 0 { MATE_CP } else { -MATE_CP };
        (format!("#{value}"), cp)
    } else {
        let cp = value.clamp(-MATE_CP, MATE_CP);
        (format!("{:+.2}", f64::from(cp) / 100.0), cp)
    };
    Some(PvLine {
        multipv,
        depth,
        score: text,
        cp,
        pv,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_turn_to_whites_view() {
        let line = "info depth 7 seldepth 9 multipv 2 score cp 35 nodes 10 pv c3-d4 f6-g5";
        let white = parse_info(line, true).unwrap();
        assert_eq!((white.multipv, white.depth, white.cp), (2, 7, 35));
        assert_eq!(white.score, "+0.35");
        assert_eq!(white.pv, ["c3-d4", "f6-g5"]);
        let black = parse_info(line, false).unwrap();
        assert_eq!((black.score.as_str(), black.cp), ("-0.35", -35));
        let mate = parse_info("info depth 3 score mate 2 pv a1-b2", false).unwrap();
        assert_eq!((mate.score.as_str(), mate.cp), ("#-2", -MATE_CP));
    }

    #[test]
    fn other_and_broken_lines_are_skipped() {
        for line in [
            "info string error: x",
            "info depth 3 nodes 5",
            "info depth x score cp 3 pv a1-b2",
            "info score cp",
            "bestmove c3-d4",
            "info multipv 0 score cp 1 pv c3-d4",
        ] {
            assert_eq!(parse_info(line, true), None, "{line}");
        }
    }
}
