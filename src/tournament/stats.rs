//! Match statistics: score, Elo difference with its 95% interval, and the
//! sequential probability ratio test (SPRT).
//!
//! Elo uses the logistic model: score = 1 / (1 + 10^(-elo/400)), so
//! elo = -400 * log10(1/score - 1). The interval is the one cutechess
//! prints: the mean score plus or minus 1.96 standard errors, where the
//! standard error comes from the variance of the per-game scores (1, 1/2,
//! 0), each end converted to Elo.
//!
//! Game pairs (one opening, colours swapped) give the pentanomial view
//! that fastchess reports: the pair scores 0, 1/2, 1, 3/2 or 2 points are
//! counted, and the same mean-and-variance formulas run on the pair score
//! (normalised to 0..1) with the number of pairs as N. A pair's two games
//! share their opening's bias, so this variance is the honest one; it is
//! usually smaller than the trinomial one, and the interval narrower.
//!
//! The SPRT is the generalised SPRT with the logistic Elo model that fishtest
//! uses and fastchess offers as its `logistic` model (Michel Van den Bergh,
//! "A practical introduction to the GSPRT" and "Comments on normalized
//! Elo", proposition 1.1): with p^ the observed distribution over the
//! outcomes (scores a_i: 0, 1/2, 1 per game, or 0, 1/4, ..., 1 per pair),
//! and p_s the distribution of mean score s that is most likely to have
//! produced it, LLR = N * sum_i p^_i ln(p_s1,i / p_s0,i), where s0 and s1
//! are the scores expected under elo0 and elo1. p_s,i = p^_i / (1 +
//! theta (a_i - s)), with theta the root of sum_i p^_i (a_i - s) / (1 +
//! theta (a_i - s)) = 0. Outcomes never seen count 0.001 (fishtest's
//! regularisation), so a few games that all agree cannot stop the test.
//! The well-known approximation N (s1 - s0) (2s - s0 - s1) / (2 var) is
//! close for long matches but not for short ones: two pairs scoring 1.5
//! and 2 gave it an LLR of 3.1 (a decision) where the exact one is 0.27.
//! The test accepts H1 (elo >= elo1) when LLR >= ln((1 - beta) / alpha) and
//! H0 (elo <= elo0) when LLR <= ln(beta / (1 - alpha)).

use statrs::distribution::{ContinuousCDF, Normal};
use statrs::function::erf::erf;

/// Wins, draws and losses from the first engine's view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

/// The two-sided 95% quantile of the normal distribution.
fn z_95() -> f64 {
    Normal::standard().inverse_cdf(0.975)
}

impl Wdl {
    /// Games in all.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Mean score per game (win 1, draw 1/2); `None` before any game.
    pub fn score(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| (self.wins as f64 + self.draws as f64 / 2.0) / n as f64)
    }

    /// The outcomes of a game as (score, count): losses, draws, wins.
    pub fn bins(&self) -> [(f64, u32); 3] {
        [(0.0, self.losses), (0.5, self.draws), (1.0, self.wins)]
    }

    /// The per-game score (1, 1/2, 0) as a sample over games.
    pub fn sample(&self) -> Option<Sample> {
        Sample::from_bins(&self.bins())
    }

    /// Draws per game.
    pub fn draw_ratio(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| f64::from(self.draws) / f64::from(n))
    }

    /// Likelihood of superiority as cutechess computes it from wins and
    /// losses alone: 1/2 + 1/2 erf((W - L) / sqrt(2 (W + L))).
    pub fn los(&self) -> Option<f64> {
        let decisive = f64::from(self.wins + self.losses);
        let lead = f64::from(self.wins) - f64::from(self.losses);
        (decisive > 0.0).then(|| 0.5 + 0.5 * erf(lead / (2.0 * decisive).sqrt()))
    }
}

/// A mean score with its per-sample variance and sample count: the common
/// ground of the trinomial (per game) and pentanomial (per pair) figures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Mean score per unit.
    pub mean: f64,
    /// Variance of the score per unit.
    pub variance: f64,
    /// Units (games or pairs).
    pub count: f64,
}

impl Sample {
    /// From (value, count) bins; `None` when empty.
    fn from_bins(bins: &[(f64, u32)]) -> Option<Sample> {
        let count: f64 = bins.iter().map(|&(_, n)| f64::from(n)).sum();
        if count == 0.0 {
            return None;
        }
        let mean = bins.iter().map(|&(v, n)| v * f64::from(n)).sum::<f64>() / count;
        let variance = bins
            .iter()
            .map(|&(v, n)| f64::from(n) * (v - mean).powi(2))
            .sum::<f64>()
            / count;
        Some(Sample {
            mean,
            variance,
            count,
        })
    }

    fn std_error(&self) -> f64 {
        (self.variance / self.count).sqrt()
    }

    /// The Elo difference and 95% interval.
    pub fn elo(&self) -> EloEstimate {
        let z = z_95() * self.std_error();
        EloEstimate {
            elo: elo_from_score(self.mean),
            lower: elo_from_score(self.mean - z),
            upper: elo_from_score(self.mean + z),
        }
    }

    /// Likelihood of superiority: the chance that the true mean score is
    /// above 1/2 (fastchess's pentanomial LOS); `None` without spread.
    pub fn los(&self) -> Option<f64> {
        let se = self.std_error();
        (se > 0.0).then(|| Normal::standard().cdf((self.mean - 0.5) / se))
    }
}

/// Game pairs by the half points the first engine took from them:
/// `counts[k]` pairs brought it `k` half points, i.e. index 0 = two losses,
/// 1 = a loss and a draw, 2 = a win and a loss or two draws, 3 = a win and
/// a draw, 4 = two wins (fastchess's `Ptnml(0-2)`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Penta {
    /// Pairs scoring 0, 0.5, 1, 1.5 and 2.
    pub counts: [u32; 5],
}

impl Penta {
    /// Pairs in all.
    pub fn pairs(&self) -> u32 {
        self.counts.iter().sum()
    }

    /// Count a pair from its two games' half points (0, 1 or 2 each).
    pub fn add(&mut self, first: u32, second: u32) {
        self.counts[(first + second).min(4) as usize] += 1;
    }

    /// The normalised pair score (0, 1/4, .., 1) as a sample over pairs.
    pub fn sample(&self) -> Option<Sample> {
        Sample::from_bins(&self.bins())
    }

    /// The outcomes of a pair as (score normalised to 0..1, count).
    pub fn bins(&self) -> [(f64, u32); 5] {
        std::array::from_fn(|k| (k as f64 / 4.0, self.counts[k]))
    }

    /// Normalized Elo with its 95% interval, as fastchess prints `nElo`
    /// (M. Van den Bergh, "Comments on normalized Elo"): the mean score's
    /// distance from 1/2 in standard deviations of one game's score, times
    /// 800 / ln 10. Draws narrow both the edge and the spread, so it
    /// changes much less than Elo with the draw rate of a book or a time
    /// control, and compares matches whose draw rates differ. `None`
    /// before any pair or when every pair scored the same.
    pub fn normalized_elo(&self) -> Option<EloEstimate> {
        let sample = self.sample()?;
        // A pair's normalised score is the mean of two games' scores, so
        // its variance is half of one game's.
        let game_deviation = (2.0 * sample.variance).sqrt();
        if game_deviation == 0.0 {
            return None;
        }
        let scale = 800.0 / std::f64::consts::LN_10;
        let normalized = |score: f64| (score - 0.5) / game_deviation * scale;
        let z = z_95() * sample.std_error();
        Some(EloEstimate {
            elo: normalized(sample.mean),
            lower: normalized(sample.mean - z),
            upper: normalized(sample.mean + z),
        })
    }

    /// The share of pairs that scored one point of two (two draws, or a
    /// win and a loss), as fastchess prints its pentanomial DrawRatio.
    pub fn draw_ratio(&self) -> Option<f64> {
        let pairs = self.pairs();
        (pairs > 0).then(|| f64::from(self.counts[2]) / f64::from(pairs))
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
    /// The Elo estimate.
    pub elo: f64,
    /// The lower end of its 95 % interval.
    pub lower: f64,
    /// The upper end of its 95 % interval.
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
    wdl.sample().map(|s| s.elo())
}

/// The hypotheses and error rates of a sequential test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo under H0.
    pub elo0: f64,
    /// Elo under H1.
    pub elo1: f64,
    /// Probability of accepting H1 when H0 holds.
    pub alpha: f64,
    /// Probability of accepting H0 when H1 holds.
    pub beta: f64,
    /// Which LLR stops the match.
    pub model: SprtModel,
}

/// Whether the SPRT counts games or game pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtModel {
    /// Single games: win, draw, loss.
    Trinomial,
    /// Game pairs: five outcomes.
    Pentanomial,
}

impl std::fmt::Display for SprtModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SprtModel::Trinomial => "trinomial",
            SprtModel::Pentanomial => "pentanomial",
        })
    }
}

/// What the SPRT says so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtDecision {
    /// Play on.
    Continue,
    /// H0 holds.
    AcceptH0,
    /// H1 holds.
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

    /// The log-likelihood ratio of H1 against H0 from single games.
    pub fn llr(&self, wdl: &Wdl) -> f64 {
        self.llr_of(&wdl.bins())
    }

    /// The same from game pairs (fastchess's pentanomial LLR), the pair's
    /// score normalised to 0..1.
    pub fn llr_penta(&self, penta: &Penta) -> f64 {
        self.llr_of(&penta.bins())
    }

    /// The generalised SPRT's LLR over outcome bins (score, count); 0
    /// before any game.
    fn llr_of(&self, bins: &[(f64, u32)]) -> f64 {
        if bins.iter().all(|&(_, n)| n == 0) {
            return 0.0;
        }
        let counts: Vec<f64> = bins
            .iter()
            .map(|&(_, n)| if n == 0 { UNSEEN_OUTCOME } else { f64::from(n) })
            .collect();
        let total: f64 = counts.iter().sum();
        let observed: Vec<(f64, f64)> = bins
            .iter()
            .zip(&counts)
            .map(|(&(score, _), &n)| (score, n / total))
            .collect();
        let p0 = most_likely_with_mean(&observed, score_from_elo(self.elo0));
        let p1 = most_likely_with_mean(&observed, score_from_elo(self.elo1));
        total
            * observed
                .iter()
                .zip(p0.iter().zip(&p1))
                .map(|(&(_, p), (q0, q1))| p * (q1.ln() - q0.ln()))
                .sum::<f64>()
    }

    /// The verdict for an LLR.
    pub fn decide(&self, llr: f64) -> SprtDecision {
        if llr >= self.upper_bound() {
            SprtDecision::AcceptH1
        } else if llr <= self.lower_bound() {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }
}

/// The weight of an outcome never seen (fishtest's regularisation): it
/// keeps the most likely distributions away from zero probabilities.
const UNSEEN_OUTCOME: f64 = 1e-3;

/// Of the distributions over the same outcomes with mean score `mean`, the
/// one most likely to have produced `observed` (score, share) pairs:
/// p_i = p^_i / (1 + theta (a_i - mean)), theta found by bisection on the
/// interval where every p_i is positive (the condition is decreasing in
/// theta there). `mean` lies strictly between the lowest and highest score.
fn most_likely_with_mean(observed: &[(f64, f64)], mean: f64) -> Vec<f64> {
    let condition = |theta: f64| -> f64 {
        observed
            .iter()
            .map(|&(a, p)| p * (a - mean) / (1.0 + theta * (a - mean)))
            .sum()
    };
    let highest = observed.iter().map(|&(a, _)| a).fold(f64::MIN, f64::max);
    let lowest = observed.iter().map(|&(a, _)| a).fold(f64::MAX, f64::min);
    let (mut low, mut high) = (-1.0 / (highest - mean), -1.0 / (lowest - mean));
    for _ in 0..200 {
        let mid = (low + high) / 2.0;
        if condition(mid) > 0.0 {
            low = mid;
        } else {
            high = mid;
        }
    }
    let theta = (low + high) / 2.0;
    observed
        .iter()
        .map(|&(a, p)| p / (1.0 + theta * (a - mean)))
        .collect()
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
    fn pentanomial_figures_of_a_fixture() {
        // 50 pairs: 3 LL, 10 LD, 20 (WL or DD), 12 WD, 5 WW. Expected values
        // computed independently with python3's statistics module:
        //   m = sum(c*s)/n over s = 0, .25, .5, .75, 1      -> 0.53
        //   var = sum(c*(s-m)^2)/n                          -> 0.0666
        //   se = sqrt(var/n)                                -> 0.0364966
        //   z = NormalDist().inv_cdf(0.975)                 -> 1.959964
        //   elo(m), elo(m -/+ z*se), elo(x) = -400 log10(1/x - 1)
        //                              -> 20.87120, -28.92602, 71.54609
        //   LOS = NormalDist().cdf((m - 0.5)/se)           -> 0.794460
        //   LLR(0, 5) = n (s1-s0)(2m-s0-s1)/(2 var)         -> 0.142619
        let mut penta = Penta::default();
        for (points, count) in [(0, 3), (1, 10), (2, 20), (3, 12), (4, 5)] {
            for _ in 0..count {
                // Split the pair's half points over its two games.
                penta.add(points.min(2), points - points.min(2));
            }
        }
        assert_eq!(penta.counts, [3, 10, 20, 12, 5]);
        assert_eq!(penta.pairs(), 50);
        let sample = penta.sample().unwrap();
        assert!(close(sample.mean, 0.53, 1e-12));
        assert!(close(sample.variance, 0.0666, 1e-12));
        let est = sample.elo();
        assert!(close(est.elo, 20.87120, 1e-4), "{est:?}");
        assert!(close(est.lower, -28.92602, 1e-4), "{est:?}");
        assert!(close(est.upper, 71.54609, 1e-4), "{est:?}");
        assert!(close(sample.los().unwrap(), 0.794460, 1e-6));
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
            model: SprtModel::Pentanomial,
        };
        // Exact GSPRT LLR, checked against an independent Python
        // computation of the same formula (the normal approximation says
        // 0.142619).
        assert!(close(sprt.llr_penta(&penta), 0.141396, 1e-5));
        assert_eq!(penta.draw_ratio(), Some(0.4));
        assert_eq!(Penta::default().sample(), None);
        // Normalized Elo, the same python3 session:
        //   (x - 0.5) / sqrt(2 var) * 800 / ln 10 at m, m -/+ z*se
        //                              -> 28.55903, -39.53709, 96.65515
        let nelo = penta.normalized_elo().unwrap();
        assert!(close(nelo.elo, 28.55903, 1e-4), "{nelo:?}");
        assert!(close(nelo.lower, -39.53709, 1e-4), "{nelo:?}");
        assert!(close(nelo.upper, 96.65515, 1e-4), "{nelo:?}");
    }

    #[test]
    fn normalized_elo_needs_spread() {
        assert_eq!(Penta::default().normalized_elo(), None);
        let all_even = Penta {
            counts: [0, 0, 7, 0, 0],
        };
        assert_eq!(all_even.normalized_elo(), None);
        let all_won = Penta {
            counts: [0, 0, 0, 0, 3],
        };
        assert_eq!(all_won.normalized_elo(), None);
    }

    #[test]
    fn draws_shrink_normalized_elo_less_than_elo() {
        // The same wins and losses, once with 30 pairs of two draws
        // added. python3: m = 2/3, var = 2/9 and m = 7/12, var = 17/144;
        // Elo 120.41 and 58.45, nElo 86.859 and 59.585.
        let decisive = Penta {
            counts: [10, 0, 0, 0, 20],
        };
        let drawish = Penta {
            counts: [10, 0, 30, 0, 20],
        };
        let elo = |p: &Penta| p.sample().unwrap().elo().elo;
        let nelo = |p: &Penta| p.normalized_elo().unwrap().elo;
        assert!(close(elo(&decisive), 120.412, 1e-3));
        assert!(close(elo(&drawish), 58.451, 1e-3));
        assert!(close(nelo(&decisive), 86.859, 1e-3));
        assert!(close(nelo(&drawish), 59.585, 1e-3));
    }

    #[test]
    fn los_and_draw_ratio_of_single_games() {
        // 0.5 + 0.5 erf(50 / sqrt(300)) = 0.9999777 (python3 math.erf).
        let wdl = Wdl {
            wins: 100,
            draws: 50,
            losses: 50,
        };
        assert!(close(wdl.los().unwrap(), 0.999_977_7, 1e-7));
        assert_eq!(wdl.draw_ratio(), Some(0.25));
        let even = Wdl {
            wins: 0,
            draws: 7,
            losses: 0,
        };
        assert_eq!(even.los(), None);
        assert!(close(z_95(), 1.959_964, 1e-6));
    }

    #[test]
    fn sprt_bounds() {
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
            model: SprtModel::Trinomial,
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
            model: SprtModel::Trinomial,
        };
        // s0 = 0.5, s1 = 1 / (1 + 10^-0.0125) = 0.5071945; for 100/50/50
        // the exact LLR is 0.932532 (an independent Python computation of
        // the same formula; the normal approximation says 1.01644).
        let wdl = Wdl {
            wins: 100,
            draws: 50,
            losses: 50,
        };
        assert!(close(sprt.llr(&wdl), 0.932532, 1e-5), "{}", sprt.llr(&wdl));
        assert_eq!(sprt.decide(sprt.llr(&wdl)), SprtDecision::Continue);

        // Symmetric hypotheses and an even score: LLR 0.
        let symmetric = Sprt {
            elo0: -3.0,
            elo1: 3.0,
            alpha: 0.05,
            beta: 0.05,
            model: SprtModel::Trinomial,
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
        assert!(close(sprt.llr(&big), 9.32532, 1e-4));
        assert_eq!(sprt.decide(sprt.llr(&big)), SprtDecision::AcceptH1);

        // A clearly weaker engine: H0.
        let weak = Wdl {
            wins: 300,
            draws: 400,
            losses: 500,
        };
        assert!(sprt.llr(&weak) < sprt.lower_bound());
        assert_eq!(sprt.decide(sprt.llr(&weak)), SprtDecision::AcceptH0);

        assert!(close(sprt.llr(&weak), -4.49957, 1e-4));

        // Five wins: some evidence, far from a verdict.
        let five = sprt.llr(&Wdl {
            wins: 5,
            draws: 0,
            losses: 0,
        });
        assert!(close(five, 0.0714378, 1e-6), "{five}");
        assert_eq!(sprt.llr(&Wdl::default()), 0.0);
    }

    #[test]
    fn two_agreeing_pairs_do_not_decide() {
        // Seen with the normal approximation: pairs scoring 1.5 and 2 of 2
        // have almost no spread, and it read them as LLR 3.1, past the
        // bound, after four games. The exact LLR is 0.267223.
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 50.0,
            alpha: 0.05,
            beta: 0.05,
            model: SprtModel::Pentanomial,
        };
        let penta = Penta {
            counts: [0, 0, 0, 1, 1],
        };
        let llr = sprt.llr_penta(&penta);
        assert!(close(llr, 0.267223, 1e-5), "{llr}");
        assert_eq!(sprt.decide(llr), SprtDecision::Continue);
    }
}
