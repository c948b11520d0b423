//! Not a check but the tool that mined bench-positions/tactics-*.txt:
//! random small positions (or positions from random games) where the side
//! to move has a short forced win with a single winning first move that a
//! shallow search does not play. It lives with the tests because it is
//! built on their independent solver (tests/support/solver.rs); both of
//! its entry points are ignored tests, run only when asked for:
//!
//! ```text
//! MINE=bashni,20000,1,9,random cargo test --release --test mine_tactics mine -- --ignored --nocapture
//! DESCRIBE=lasca:FILE cargo test --release --test mine_tactics describe -- --ignored --nocapture
//! ```
//!
//! `MINE` is variant, samples, seed, max plies and mode, each optional
//! (defaults as above). Mode: `random` (random small positions), `game`
//! (positions along random games from the start), `king` (the mover has a
//! king), `promo` (the mover has men near the far rank), `tall` (tall
//! columns). Each find is printed as a candidate line for the tactics
//! files, with its shortest win N, the solver's node count and the themes
//! found by inspecting the winning move.
//!
//! `DESCRIBE` reads `<fen> ; bm <move>` lines from FILE and prints the
//! facts that go into each line's comment.

mod support;

use bashni_engine::search::{self, Config, Limits, MATE};
use bashni_engine::tt::{LockFreeTable, Table};
use bashni_rules::DrawRules;
use bashni_rules::{
    Colour, KingLanding, Move, Piece, Position, RuleSet, Square, Variant, piece_char,
};
use support::solver::{Solver, solve};

/// xorshift64*: reproducible without depending on rand's API.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// A random small position; `None` when the FEN is rejected.
fn random_position(rng: &mut Rng, variant: Variant, mode: &str) -> Option<Position> {
    let g = variant.geometry();
    let mut free: Vec<Square> = g.squares().collect();
    let side = if rng.chance(50) {
        Colour::White
    } else {
        Colour::Black
    };
    let mut columns = Vec::new();
    for colour in [Colour::White, Colour::Black] {
        let mover = colour == side;
        let n = 1 + rng.below(if mover { 3 } else { 4 }) as usize;
        for i in 0..n {
            let at = rng.below(free.len() as u64) as usize;
            let mut sq = free.swap_remove(at);
            let far = g.promotion[colour.index()];
            if mover && mode == "promo" && i == 0 {
                // A man two or three steps from the far rank.
                let ranks: Vec<Square> = g
                    .squares()
                    .filter(|s| {
                        let r = s.rank() as i32;
                        let target = if colour == Colour::White {
                            g.size as i32 - 3
                        } else {
                            2
                        };
                        (r - target).abs() <= 1 && free.contains(s)
                    })
                    .collect();
                if !ranks.is_empty() {
                    free.push(sq);
                    sq = ranks[rng.below(ranks.len() as u64) as usize];
                    free.retain(|&s| s != sq);
                }
            }
            let tall = mode == "tall" || mode == "game";
            let own = 1
                + (rng.chance(if tall { 50 } else { 20 }) as usize)
                + (rng.chance(if tall { 30 } else { 8 }) as usize);
            let prisoners = rng.chance(if tall { 60 } else { 30 }) as usize
                + rng.chance(if tall { 40 } else { 12 }) as usize;
            let want_king = mover && mode == "king" && i == 0;
            let mut text = sq.to_string();
            for k in 0..own {
                let king = if k == 0 {
                    want_king || rng.chance(if far.has(sq) { 100 } else { 15 })
                } else {
                    rng.chance(10)
                };
                text.push(piece_char(Piece { colour, king }));
            }
            for _ in 0..prisoners {
                text.push(piece_char(Piece {
                    colour: !colour,
                    king: rng.chance(10),
                }));
            }
            columns.push(text);
        }
    }
    let fen = format!(
        "{}:{}",
        if side == Colour::White { 'W' } else { 'B' },
        columns.join(",")
    );
    Position::from_fen(&RuleSet::new(variant), &fen).ok()
}

/// A position some random plies into a random game.
fn game_position(rng: &mut Rng, variant: Variant) -> Option<Position> {
    let mut pos = Position::start(&RuleSet::new(variant));
    let plies = 20 + rng.below(60);
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return None;
        }
        let mv = moves[rng.below(moves.len() as u64) as usize];
        pos.make(&mv);
    }
    Some(pos)
}

fn engine_move(pos: &Position, depth: u32) -> (Option<Move>, i32) {
    let config = Config {
        draw_rules: DrawRules::for_variant(pos.variant()),
        ..Config::default()
    };
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let tt = LockFreeTable::with_megabytes(1);
    let out = search::Searcher::new(&tt, config).search(pos, &[], &limits, &mut |_| {});
    (out.best, out.score)
}

/// Themes seen in the winning move and the forced reply.
fn themes(pos: &Position, bm: &Move, plies: u32, max_plies: u32) -> Vec<String> {
    let mut t = Vec::new();
    let side = pos.side_to_move();
    let variant = pos.variant();
    let g = variant.geometry();
    let far = g.promotion[side.index()];
    let king = pos.column(bm.from()).top_is_king();
    let legal = pos.legal_moves();
    let mut after = pos.clone();
    after.make(bm);
    let replies = after.legal_moves();
    if replies.iter().any(|r| r.is_capture()) {
        t.push(if bm.is_capture() {
            "capture-sacrifice".to_string()
        } else {
            "quiet-sacrifice".to_string()
        });
        // Sacrifice and recapture: every reply can be answered by a capture.
        let all_recaptured = replies.iter().all(|r| {
            let mut p = after.clone();
            p.make(r);
            p.legal_moves().iter().any(|m| m.is_capture())
        });
        if all_recaptured {
            t.push("recapture".into());
        }
        if replies.iter().any(|r| r.promotes()) {
            t.push("reply-promotes".into());
        }
    }
    if bm.is_capture() && king && variant.flying_kings() {
        let jumped: Vec<Square> = bm.jumped().collect();
        let same_victims = legal
            .iter()
            .filter(|m| m.from() == bm.from() && m.jumped().eq(jumped.iter().copied()))
            .count();
        let same_first = legal
            .iter()
            .filter(|m| {
                m.from() == bm.from()
                    && m.jumped().next() == bm.jumped().next()
                    && m.landings().next() != bm.landings().next()
            })
            .count();
        if same_victims > 1 {
            t.push(format!("landing-choice({same_victims})"));
        } else if same_first > 0 {
            t.push("first-landing-choice".into());
        }
    }
    if bm.is_capture() && !king {
        let n = bm.capture_count();
        if bm.landings().take(n - 1).any(|s| far.has(s)) {
            t.push("midchain-promotion".into());
        } else if bm.promotes() {
            t.push("capture-promotes".into());
        }
    } else if bm.promotes() {
        t.push("promotes".into());
    }
    if variant.promotion_ends_move() && bm.is_capture() && bm.promotes() {
        // Would an officer on the landing square capture again?
        t.push("promotion-ends-move".into());
    }
    if bm.is_capture() {
        let frees = bm.jumped().any(|sq| {
            let col = pos.column(sq);
            col.piece(1).is_some_and(|p| p.colour == side)
        });
        if frees {
            t.push("frees-prisoners".into());
        }
        let buries_king = bm.jumped().any(|sq| pos.column(sq).top_is_king());
        if buries_king {
            t.push("takes-king".into());
        }
    }
    if variant.promotion_ends_move() {
        if promotion_stops_chain(pos, bm) {
            t.push("promotion-stops-chain".into());
        }
        if replies.iter().any(|r| promotion_stops_chain(&after, r)) {
            t.push("reply-promotion-stops-chain".into());
        }
    }
    if variant.flying_kings() {
        let rules = RuleSet::new(variant).with_king_landing(KingLanding::Free);
        let free = Position::from_fen(&rules, &pos.to_fen()).expect("own FEN");
        let mut solver = Solver::with_budget(400_000);
        let verdict = solve(&mut solver, &free, max_plies);
        let same = matches!(&verdict, Ok(Some(v)) if v.plies == plies && v.winners == [*bm]);
        if !same {
            t.push("landing-rule-matters".into());
        }
    }
    if replies.iter().any(|r| {
        r.is_capture() && {
            let col = after.column(r.from());
            col.top_is_king() && r.capture_count() > 0
        }
    }) {
        t.push("reply-king-captures".into());
    }
    t
}

/// Lasca: `mv` is a capture that crowns a soldier, and the new officer
/// could have captured again from where it stopped.
fn promotion_stops_chain(pos: &Position, mv: &Move) -> bool {
    if !(mv.is_capture() && mv.promotes()) {
        return false;
    }
    let mut after = pos.clone();
    after.make(mv);
    // The same board with the mover to move again.
    let fen = after.to_fen();
    let flipped = match fen.as_bytes()[0] {
        b'W' => format!("B{}", &fen[1..]),
        _ => format!("W{}", &fen[1..]),
    };
    let Ok(again) = Position::from_fen(&RuleSet::new(pos.variant()), &flipped) else {
        return false;
    };
    let jumped: Vec<Square> = mv.jumped().collect();
    again.legal_moves().iter().any(|m| {
        m.is_capture()
            && m.from() == mv.to()
            && m.jumped().next().is_some_and(|j| !jumped.contains(&j))
    })
}

/// The main line of a forced win: the shortest win for the winner, the
/// longest resistance for the loser.
fn main_line(pos: &Position, plies: u32) -> Vec<Move> {
    let mut pos = pos.clone();
    let mut line = Vec::new();
    let mut solver = Solver::default();
    let mut left = plies;
    while let Ok(Some(v)) = solve(&mut solver, &pos, left) {
        let mv = v.winners[0];
        line.push(mv);
        pos.make(&mv);
        left = v.plies - 2;
        let replies = pos.legal_moves();
        if replies.is_empty() {
            break;
        }
        // The reply that survives longest.
        let mut best = (0, replies[0]);
        for r in &replies {
            let mut p = pos.clone();
            p.make(r);
            let n = solve(&mut solver, &p, left)
                .ok()
                .flatten()
                .map_or(u32::MAX, |v| v.plies);
            if n > best.0 {
                best = (n, *r);
            }
        }
        line.push(best.1);
        pos.make(&best.1);
    }
    line
}

/// `describe`: for each `<fen> ; bm <move>` line of `text`, the facts
/// that go into its comment.
fn describe(variant: Variant, text: &str) {
    for raw in text.lines() {
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let fen = content.split(';').next().unwrap().trim();
        let pos = Position::from_fen(&RuleSet::new(variant), fen).unwrap();
        let mut solver = Solver::default();
        let Some(verdict) = solve(&mut solver, &pos, 11).unwrap() else {
            println!("{fen}\n  no forced win within 11 plies");
            continue;
        };
        let proof_nodes = solver.nodes;
        let bm = verdict.winners[0];
        let legal = pos.legal_moves();
        let same_from: Vec<String> = legal
            .iter()
            .filter(|m| m.from() == bm.from() && m.is_capture() && **m != bm)
            .map(|m| m.to_string())
            .collect();
        println!("{fen}");
        println!(
            "  N={} winners={:?} nodes={} legal={} other captures from same square={:?}",
            verdict.plies,
            verdict
                .winners
                .iter()
                .map(|m| m.to_string())
                .collect::<Vec<_>>(),
            proof_nodes,
            legal.len(),
            same_from
        );
        println!(
            "  themes={}",
            themes(&pos, &bm, verdict.plies, verdict.plies).join(",")
        );
        let line: Vec<String> = main_line(&pos, verdict.plies)
            .iter()
            .map(|m| m.to_string())
            .collect();
        println!("  line: {}", line.join(" "));
    }
}

#[test]
#[ignore = "a tool: MINE=variant,samples,seed,max-plies,mode (see the file's head)"]
fn mine() {
    let spec = std::env::var("MINE").unwrap_or_default();
    let mut args = spec.split(',').map(str::trim);
    let mut next = |default: &'static str| args.next().filter(|a| !a.is_empty()).unwrap_or(default);
    let variant: Variant = next("bashni").parse().expect("MINE: variant");
    let samples: u64 = next("20000").parse().expect("MINE: samples");
    let seed: u64 = next("1").parse().expect("MINE: seed");
    let max_plies: u32 = next("9").parse().expect("MINE: max plies");
    let mode = next("random").to_string();
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut found = 0;
    for _ in 0..samples {
        let pos = if mode == "game" {
            game_position(&mut rng, variant)
        } else {
            random_position(&mut rng, variant, &mode)
        };
        let Some(pos) = pos else { continue };
        if pos.legal_moves().len() < 2 {
            continue;
        }
        let mut solver = Solver::with_budget(400_000);
        let Ok(Some(verdict)) = solve(&mut solver, &pos, max_plies) else {
            continue;
        };
        if verdict.plies < 5 || verdict.winners.len() != 1 {
            continue;
        }
        let bm = verdict.winners[0];
        let (d1, _) = engine_move(&pos, 1);
        let (d2, _) = engine_move(&pos, 2);
        if d1 == Some(bm) {
            continue;
        }
        let (deep, score) = engine_move(&pos, verdict.plies + 2);
        let engine_ok = deep == Some(bm) && score == MATE - verdict.plies as i32;
        found += 1;
        let t = themes(&pos, &bm, verdict.plies, max_plies);
        println!(
            "# N={} nodes={} d2={} engine={} themes={}",
            verdict.plies,
            solver.nodes,
            if d2 == Some(bm) { "finds" } else { "misses" },
            if engine_ok {
                "ok".to_string()
            } else {
                format!("BAD({:?} {})", deep, score)
            },
            t.join(",")
        );
        println!("{} ; bm {}", pos.to_fen(), bm);
    }
    eprintln!("{found} found");
}

#[test]
#[ignore = "a tool: DESCRIBE=variant:file (see the file's head)"]
fn describe_tactics() {
    let spec = std::env::var("DESCRIBE").expect("DESCRIBE=variant:file");
    let (variant, path) = spec.split_once(':').expect("DESCRIBE=variant:file");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    describe(variant.parse().expect("DESCRIBE: variant"), &text);
}
