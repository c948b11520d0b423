//! The scores of a match or tournament and the report that prints them,
//! shared by `bashni match` (as games finish) and `bashni stats` (from PDN
//! files).
//!
//! For each pairing the report gives the line cutechess prints and scripts
//! parse (`Score of A vs B: W - L - D  [ratio] N`), the Elo difference with
//! its 95% interval, LOS and draw ratio from single games (trinomial), the
//! pentanomial counts of game pairs with their own Elo interval and LOS,
//! and normalized Elo from the pairs (as fastchess reports them). With more
//! than two engines, standings and a cross table follow.

use super::stats::{EloEstimate, Penta, Sample, Sprt, SprtDecision, SprtModel, Wdl};
use std::collections::BTreeMap;

/// One pairing's games from its first engine's view.
#[derive(Clone, Debug, Default)]
pub struct PairingScore {
    /// Wins, draws and losses of the first engine.
    pub wdl: Wdl,
    /// Game pairs by their score.
    pub penta: Penta,
    /// Half points of the first finished game of each pair still open.
    open: BTreeMap<String, u32>,
}

impl PairingScore {
    /// Count a game worth `half_points` (2 a win, 1 a draw, 0 a loss) to
    /// the first engine; `pair` names the pair of games it belongs to.
    pub fn add(&mut self, pair: &str, half_points: u32) {
        match half_points {
            2 => self.wdl.wins += 1,
            1 => self.wdl.draws += 1,
            _ => self.wdl.losses += 1,
        }
        match self.open.remove(pair) {
            Some(first) => self.penta.add(first, half_points),
            None => {
                self.open.insert(pair.to_string(), half_points);
            }
        }
    }
}

/// Every pairing's score and how the games ended.
#[derive(Clone, Debug)]
pub struct Scoreboard {
    /// Engine names, by index.
    pub names: Vec<String>,
    /// Who plays whom, by index.
    pub pairings: Vec<[usize; 2]>,
    /// The score of each pairing.
    pub scores: Vec<PairingScore>,
    /// How many games ended each way.
    pub terminations: BTreeMap<String, u32>,
}

/// An SPRT and its verdict so far: the decision and the game count when
/// it first came.
pub struct SprtStatus {
    /// The test.
    pub sprt: Sprt,
    /// Its decision and after how many games.
    pub decided: Option<(SprtDecision, usize)>,
}

impl Scoreboard {
    /// An empty scoreboard for these engines and pairings.
    pub fn new(names: Vec<String>, pairings: Vec<[usize; 2]>) -> Scoreboard {
        Scoreboard {
            scores: vec![PairingScore::default(); pairings.len()],
            names,
            pairings,
            terminations: BTreeMap::new(),
        }
    }

    /// Games counted.
    pub fn games(&self) -> u32 {
        self.scores.iter().map(|s| s.wdl.games()).sum()
    }

    /// The cutechess line of a pairing.
    pub fn score_line(&self, pairing: usize) -> String {
        let [a, b] = self.pairings[pairing];
        score_line(&self.names[a], &self.names[b], &self.scores[pairing].wdl)
    }

    /// The SPRT's LLR under its model, from the first pairing.
    pub fn llr(&self, sprt: &Sprt) -> f64 {
        let score = &self.scores[0];
        match sprt.model {
            SprtModel::Trinomial => sprt.llr(&score.wdl),
            SprtModel::Pentanomial => sprt.llr_penta(&score.penta),
        }
    }

    /// The report: each pairing, then (more than two engines) standings
    /// and the cross table, then the terminations.
    pub fn print(&self, sprt: Option<&SprtStatus>) {
        for pairing in 0..self.pairings.len() {
            bashni_engine::outln!("");
            self.print_pairing(pairing);
        }
        if let Some(status) = sprt {
            bashni_engine::outln!("{}", self.sprt_line(status));
        }
        if self.names.len() > 2 {
            bashni_engine::outln!("");
            self.print_standings();
            bashni_engine::outln!("");
            self.print_cross_table();
        }
        bashni_engine::outln!("");
        let ends: Vec<String> = self
            .terminations
            .iter()
            .map(|(kind, n)| format!("{kind} {n}"))
            .collect();
        bashni_engine::outln!("Terminations: {}", ends.join(", "));
    }

    fn print_pairing(&self, pairing: usize) {
        let score = &self.scores[pairing];
        bashni_engine::outln!("{}", self.score_line(pairing));
        let (wdl, penta) = (&score.wdl, &score.penta);
        let percent = |x: Option<f64>| x.map_or("-".into(), |x| format!("{:.1} %", 100.0 * x));
        let trinomial = wdl.sample();
        bashni_engine::outln!(
            "Elo difference: {}, LOS: {}, DrawRatio: {}",
            elo_text(trinomial, "game"),
            percent(wdl.los()),
            percent(wdl.draw_ratio())
        );
        let [ll, ld, even, wd, ww] = penta.counts;
        let pairs = penta.sample();
        bashni_engine::outln!(
            "Ptnml(0-2): [{ll}, {ld}, {even}, {wd}, {ww}], pairs {}, pair DrawRatio: {}",
            penta.pairs(),
            percent(penta.draw_ratio())
        );
        bashni_engine::outln!(
            "Pentanomial Elo: {}, LOS: {}",
            elo_text(pairs, "pair"),
            percent(pairs.and_then(|p| p.los()))
        );
        bashni_engine::outln!("Normalized Elo: {}", normalized_elo_text(penta));
    }

    fn sprt_line(&self, status: &SprtStatus) -> String {
        let sprt = &status.sprt;
        let verdict = match status.decided {
            Some((decision, games)) => format!("{decision} after {games} games"),
            None => "no decision yet".to_string(),
        };
        let score = &self.scores[0];
        format!(
            "SPRT elo0={} elo1={} alpha={} beta={} ({} decides): LLR {:.3} (pentanomial {:.3}, trinomial {:.3}), bounds {:.3} .. {:.3}: {verdict}",
            sprt.elo0,
            sprt.elo1,
            sprt.alpha,
            sprt.beta,
            sprt.model,
            self.llr(sprt),
            sprt.llr_penta(&score.penta),
            sprt.llr(&score.wdl),
            sprt.lower_bound(),
            sprt.upper_bound(),
        )
    }

    /// Each engine's games against the field, best score first.
    fn print_standings(&self) {
        let totals = self.totals();
        let mut rank: Vec<usize> = (0..self.names.len()).collect();
        rank.sort_by(|&a, &b| {
            let score = |e: usize| totals[e].score().unwrap_or(0.0);
            score(b).total_cmp(&score(a))
        });
        bashni_engine::outln!(
            "{:>4} {:<16} {:>6} {:>7} {:>7} {:>8}",
            "Rank",
            "Name",
            "Games",
            "Points",
            "Score",
            "Elo"
        );
        for (place, &e) in rank.iter().enumerate() {
            let wdl = &totals[e];
            let points = f64::from(wdl.wins) + f64::from(wdl.draws) / 2.0;
            let score = wdl
                .score()
                .map_or("-".into(), |s| format!("{:.1}%", 100.0 * s));
            let elo = wdl.sample().map_or("-".into(), |s| elo_number(s.elo().elo));
            bashni_engine::outln!(
                "{:>4} {:<16} {:>6} {:>7.1} {:>7} {:>8}",
                place + 1,
                self.names[e],
                wdl.games(),
                points,
                score,
                elo
            );
        }
    }

    /// Each engine's results against the field.
    fn totals(&self) -> Vec<Wdl> {
        let mut totals = vec![Wdl::default(); self.names.len()];
        for (&[a, b], score) in self.pairings.iter().zip(&self.scores) {
            let w = score.wdl;
            add(&mut totals[a], w);
            add(
                &mut totals[b],
                Wdl {
                    wins: w.losses,
                    draws: w.draws,
                    losses: w.wins,
                },
            );
        }
        totals
    }

    /// Points of the row engine against the column engine, of the games
    /// they played.
    fn print_cross_table(&self) {
        let n = self.names.len();
        let mut cells = vec![vec![String::from("-"); n]; n];
        for (&[a, b], score) in self.pairings.iter().zip(&self.scores) {
            let w = score.wdl;
            let points = |wins: u32| f64::from(wins) + f64::from(w.draws) / 2.0;
            cells[a][b] = format!("{:.1}/{}", points(w.wins), w.games());
            cells[b][a] = format!("{:.1}/{}", points(w.losses), w.games());
        }
        print!("{:<16}", "Cross table");
        for name in &self.names {
            print!(" {name:>10}");
        }
        bashni_engine::outln!("");
        for (name, row) in self.names.iter().zip(cells) {
            print!("{name:<16}");
            for cell in row {
                print!(" {cell:>10}");
            }
            bashni_engine::outln!("");
        }
    }
}

fn add(total: &mut Wdl, more: Wdl) {
    total.wins += more.wins;
    total.draws += more.draws;
    total.losses += more.losses;
}

/// `Score of A vs B: W - L - D  [ratio] N`, exactly as cutechess prints it.
pub fn score_line(first: &str, second: &str, wdl: &Wdl) -> String {
    format!(
        "Score of {first} vs {second}: {} - {} - {}  [{:.3}] {}",
        wdl.wins,
        wdl.losses,
        wdl.draws,
        wdl.score().unwrap_or(0.0),
        wdl.games()
    )
}

fn elo_number(elo: f64) -> String {
    if elo.is_finite() {
        format!("{elo:.1}")
    } else if elo > 0.0 {
        "+inf".into()
    } else {
        "-inf".into()
    }
}

/// `12.3 +/- 20.1 (95% interval -7.8 .. 32.4)`, or why there is none;
/// `unit`: what the sample counts, a game or a pair.
fn elo_text(sample: Option<Sample>, unit: &str) -> String {
    let Some(sample) = sample else {
        return "- (no games)".into();
    };
    let estimate = sample.elo();
    // Every unit alike: no interval can be had (it read +/- 0.0, a
    // certainty two drawn pairs do not give).
    if sample.variance == 0.0 && estimate.elo.is_finite() {
        return format!(
            "{} (every {unit} scored the same: no spread)",
            elo_number(estimate.elo)
        );
    }
    if !estimate.elo.is_finite() {
        return format!(
            "{} (one side scored every point: no interval)",
            elo_number(estimate.elo)
        );
    }
    interval_text(&estimate)
}

/// Normalized Elo as `elo_text` writes Elo, or why there is none.
fn normalized_elo_text(penta: &Penta) -> String {
    match penta.normalized_elo() {
        Some(estimate) => interval_text(&estimate),
        None if penta.pairs() == 0 => "- (no pairs)".into(),
        None => "- (every pair scored the same: no spread)".into(),
    }
}

/// `12.3 +/- 20.1 (95% interval -7.8 .. 32.4)`.
fn interval_text(estimate: &EloEstimate) -> String {
    format!(
        "{} +/- {} (95% interval {} .. {})",
        elo_number(estimate.elo),
        elo_number(estimate.margin()),
        elo_number(estimate.lower),
        elo_number(estimate.upper)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_close_when_their_second_game_arrives() {
        let mut score = PairingScore::default();
        score.add("1", 2);
        score.add("2", 1);
        assert_eq!(score.penta.pairs(), 0);
        score.add("1", 0); // a win and a loss: one point of two
        score.add("2", 2); // a draw and a win
        score.add("3", 2); // still open
        assert_eq!(score.penta.counts, [0, 0, 1, 1, 0]);
        assert_eq!(
            score.wdl,
            Wdl {
                wins: 3,
                draws: 1,
                losses: 1
            }
        );
    }

    #[test]
    fn no_spread_gives_no_interval() {
        let mut score = PairingScore::default();
        for round in ["1", "2"] {
            score.add(round, 1);
            score.add(round, 1);
        }
        let text = elo_text(score.penta.sample(), "pair");
        assert_eq!(text, "0.0 (every pair scored the same: no spread)");
        let mixed = Sample {
            mean: 0.5,
            variance: 0.1,
            count: 4.0,
        };
        assert!(elo_text(Some(mixed), "pair").contains("95% interval"));
    }

    #[test]
    fn the_cutechess_line() {
        let wdl = Wdl {
            wins: 7,
            draws: 2,
            losses: 1,
        };
        assert_eq!(
            score_line("a", "b", &wdl),
            "Score of a vs b: 7 - 1 - 2  [0.800] 10"
        );
        assert_eq!(
            score_line("a", "b", &Wdl::default()),
            "Score of a vs b: 0 - 0 - 0  [0.000] 0"
        );
    }

    #[test]
    fn totals_see_each_pairing_from_both_sides() {
        let mut board = Scoreboard::new(
            vec!["a".into(), "b".into(), "c".into()],
            vec![[0, 1], [0, 2], [1, 2]],
        );
        board.scores[0].add("1", 2); // a beats b
        board.scores[1].add("1", 1); // a draws c
        board.scores[2].add("1", 0); // c beats b
        let t = board.totals();
        assert_eq!((t[0].wins, t[0].draws, t[0].losses), (1, 1, 0));
        assert_eq!((t[1].wins, t[1].draws, t[1].losses), (0, 0, 2));
        assert_eq!((t[2].wins, t[2].draws, t[2].losses), (1, 1, 0));
    }
}
