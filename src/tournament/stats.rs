//! Match statistics: score, Elo difference with its 95% interval, and the
//! sequential probability ratio test (SPRT).
//!
//! Elo uses the logistic model: score = 1 / (1 + 10^(-elo/400)), so
//! elo = -400 * log10(1/score - 1). The interval is the one cutechess
//! prints: the mean score plus or minus 1.96 standard errors, where the
//! standard error comes from the variance of the per-game scores (1, 1/2,
//! 0), each end converted to Elo.
//!
//! The SPRT is the generalised SPRT with the logistic Elo model that fishtest
//! uses and fastchess offers as its `logistic` model (Michel Van den Bergh,
//! "A practical introduction to the GSPRT"): with s0 and s1 the scores
//! expected under elo0 and elo1, s the observed mean score, var the variance
//! of one game's score and N the number of games,
//! LLR = N * (s1 - s0) * (2s - s0 - s1) / (2 var).
//! The test accepts H1 (elo >= elo1) when LLR >= ln((1 - beta) / alpha) and
//! H0 (elo <= elo0) when LLR <= ln(beta / (1 - alpha)).

/// Wins, draws and losses from the first engine's view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

/// The two-sided 95% quantile of the normal distribution.
const Z_95: f64 = 1.959_963_984_540_054;

impl Wdl {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Mean score per game (win 1, draw 1/2); `None` before any game.
    pub fn score(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| (self.wins as f64 + self.draws as f64 / 2.0) / n as f64)
    }

    /// Variance of one game's score around the mean.
    fn score_variance(&self) -> Option<f64> {
        let s = self.score()?;
        let n = self.games() as f64;
        let sq = |x: f64| x * x;
        Some(
            (self.wins as f64 * sq(1.0 - s)
                + self.draws as f64 * sq(0.5 - s)
                + self.losses as f64 * sq(s))
                / n,
        )
    }
}

/// Elo difference for a mean score; infinite at 0 and 1.
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        // Adding 0.0 turns -0.0 (an even score) into 0.0 for printing.
        -400.0 * (1.0 / score - 1.0).log10() + 0.0
    }
}

/// The mean score expected at an Elo difference.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// An Elo difference and its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    pub elo: f64,
    pub lower: f64,
    pub upper: f64,
}

impl EloEstimate {
    /// Half the width of the interval, as cutechess prints after `+/-`.
    pub fn margin(&self) -> f64 {
        (self.upper - self.lower) / 2.0
    }
}

/// The Elo difference and 95% interval; `None` before any game.
pub fn elo_estimate(wdl: &Wdl) -> Option<EloEstimate> {
    let s = wdl.score()?;
    let std_error = (wdl.score_variance()? / wdl.games() as f64).sqrt();
    Some(EloEstimate {
        elo: elo_from_score(s),
        lower: elo_from_score(s - Z_95 * std_error),
        upper: elo_from_score(s + Z_95 * std_error),
    })
}

/// The hypotheses and error rates of a sequential test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

/// What the SPRT says so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtDecision {
    Continue,
    AcceptH0,
    AcceptH1,
}

impl std::fmt::Display for SprtDecision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SprtDecision::Continue => "continue",
            SprtDecision::AcceptH0 => "H0 accepted",
            SprtDecision::AcceptH1 => "H1 accepted",
        })
    }
}

impl Sprt {
    /// ln(beta / (1 - alpha)): at or below it H0 is accepted.
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// ln((1 - beta) / alpha): at or above it H1 is accepted.
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// The log-likelihood ratio of H1 against H0. It is 0 while the games
    /// show no spread at all (no game yet, or every game the same result):
    /// the model needs a variance to say anything.
    pub fn llr(&self, wdl: &Wdl) -> f64 {
        let (Some(s), Some(var)) = (wdl.score(), wdl.score_variance()) else {
            return 0.0;
        };
        if var <= 0.0 {
            return 0.0;
        }
        let s0 = score_from_elo(self.elo0);
        let s1 = score_from_elo(self.elo1);
        wdl.games() as f64 * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var)
    }

    pub fn decision(&self, wdl: &Wdl) -> SprtDecision {
        let llr = self.llr(wdl);
        if llr >= self.upper_bound() {
            SprtDecision::AcceptH1
        } else if llr <= self.lower_bound() {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn elo_of_a_known_score() {
        // 100 wins, 50 draws, 50 losses: score (100 + 25) / 200 = 0.625,
        // 1/0.625 - 1 = 0.6, -400 * log10(0.6) = 400 * 0.221849 = 88.7395.
        let wdl = Wdl {
            wins: 100,
            draws: 50,
            losses: 50,
        };
        assert_eq!(wdl.score(), Some(0.625));
        let est = elo_estimate(&wdl).unwrap();
        assert!(close(est.elo, 88.7395, 1e-3), "{est:?}");
        // Per-game variance: (100 * 0.375^2 + 50 * 0.125^2 + 50 * 0.625^2)
        // / 200 = 34.375 / 200 = 0.171875; standard error sqrt(0.171875 /
        // 200) = 0.0293151; 1.96 of them: 0.0574563. Scores 0.5675437 and
        // 0.6824563 give -400 * log10(0.761985) = 47.2227 and
        // -400 * log10(0.465294) = 132.9087.
        assert!(close(est.lower, 47.2227, 1e-3), "{est:?}");
        assert!(close(est.upper, 132.9087, 1e-3), "{est:?}");
        assert!(close(est.margin(), 42.8430, 1e-3), "{est:?}");
    }

    #[test]
    fn even_score_is_zero_elo_with_a_symmetric_interval() {
        let est = elo_estimate(&Wdl {
            wins: 30,
            draws: 40,
            losses: 30,
        })
        .unwrap();
        assert_eq!(est.elo.to_string(), "0");
        // Variance 0.6 * 0.25 = 0.15, standard error sqrt(0.0015) = 0.0387298,
        // 1.96 of them: 0.0759097; -400 * log10(0.4240903 / 0.5759097)
        // = 53.1580.
        assert!(close(est.upper, 53.1580, 1e-3), "{est:?}");
        assert!(close(est.lower, -53.1580, 1e-3), "{est:?}");
    }

    #[test]
    fn extreme_scores() {
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
        assert_eq!(elo_estimate(&Wdl::default()), None);
        assert!(close(score_from_elo(0.0), 0.5, 1e-12));
        assert!(close(elo_from_score(score_from_elo(123.0)), 123.0, 1e-9));
    }

    #[test]
    fn sprt_bounds() {
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
        };
        // ln(0.05 / 0.95) = -2.944439 and ln(0.95 / 0.05) = ln 19 = 2.944439.
        assert!(close(sprt.lower_bound(), -2.944439, 1e-6));
        assert!(close(sprt.upper_bound(), 2.944439, 1e-6));
    }

    #[test]
    fn sprt_llr_of_known_results() {
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
        };
        // s0 = 0.5, s1 = 1 / (1 + 10^-0.0125) = 0.5071945; for 100/50/50:
        // s = 0.625, var = 0.171875, LLR = 200 * 0.0071945 * (1.25 -
        // 1.0071945) / (2 * 0.171875) = 1.01644.
        let wdl = Wdl {
            wins: 100,
            draws: 50,
            losses: 50,
        };
        assert!(close(sprt.llr(&wdl), 1.01644, 1e-4), "{}", sprt.llr(&wdl));
        assert_eq!(sprt.decision(&wdl), SprtDecision::Continue);

        // Symmetric hypotheses and an even score: LLR 0.
        let symmetric = Sprt {
            elo0: -3.0,
            elo1: 3.0,
            alpha: 0.05,
            beta: 0.05,
        };
        assert!(close(
            symmetric.llr(&Wdl {
                wins: 30,
                draws: 40,
                losses: 30
            }),
            0.0,
            1e-9
        ));

        // Ten times the same proportions: ten times the LLR, past the bound.
        let big = Wdl {
            wins: 1000,
            draws: 500,
            losses: 500,
        };
        assert!(close(sprt.llr(&big), 10.1644, 1e-3));
        assert_eq!(sprt.decision(&big), SprtDecision::AcceptH1);

        // A clearly weaker engine: H0.
        let weak = Wdl {
            wins: 300,
            draws: 400,
            losses: 500,
        };
        assert!(sprt.llr(&weak) < sprt.lower_bound());
        assert_eq!(sprt.decision(&weak), SprtDecision::AcceptH0);

        // No spread, no verdict.
        assert_eq!(
            sprt.llr(&Wdl {
                wins: 5,
                draws: 0,
                losses: 0
            }),
            0.0
        );
        assert_eq!(sprt.llr(&Wdl::default()), 0.0);
    }
}
