//! Search tests: the engine finds forced wins that an independent solver
//! proves, and its node counts are reproducible with one thread.
//!
//! The tactics files (`bench-positions/tactics-*.txt`) hold positions with
//! a single winning first move. For every line this file checks
//! (a) the proof: the exhaustive solver in `support/solver.rs` finds that
//!     the `bm` move is the only first move that wins within the N plies of
//!     the line's `proof: N=` comment, and that nothing wins sooner; the
//!     theme the line's id names is checked on the board too;
//! (b) the engine: `search::think` to depth N+2 plays `bm` and reports the
//!     mate in exactly N plies;
//! (c) `bashni analyse` on each file prints `solved M/M`.
//! Then (d) `bashni bench` and (e) `go nodes` repeat their node counts.

mod support;

use support::engine::Engine;

use bashni_host::info::Info;

use bashni_engine::search::{self, Config, Limits, MATE, is_mate_score};
use bashni_engine::tt::{LockFreeTable, Table};
use bashni_rules::DrawRules;
use bashni_rules::{Colour, KingLanding, Move, Position, RuleSet, Variant};
use std::process::Command;
use support::solver::Solver;

const BASHNI_FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/bench-positions/tactics-bashni.txt"
);
const LASCA_FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/bench-positions/tactics-lasca.txt"
);

/// The solver may spend at most this many nodes on one proof, which keeps
/// every proof well under a second.
const PROOF_NODE_LIMIT: u64 = 200_000;

/// One line of a tactics file.
struct Tactic {
    line: usize,
    id: String,
    position: Position,
    bm: Move,
    /// The shortest forced win, in plies (from the `proof: N=` comment).
    plies: u32,
    /// The comment says the verdict differs under `KingLanding=free`.
    free_differs: bool,
}

impl Tactic {
    fn name(&self) -> String {
        format!("{} (line {})", self.id, self.line)
    }
}

/// Read a tactics file: each position line needs `bm` and `id` fields
/// and a `# proof: N=<plies>` comment above it.
fn tactics(path: &str, variant: Variant) -> Vec<Tactic> {
    let text = std::fs::read_to_string(path).expect("tactics file is readable");
    let mut proof: Option<(u32, bool)> = None;
    let mut out = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let content = raw.trim();
        if let Some(comment) = content.strip_prefix('#') {
            if let Some(rest) = comment.trim().strip_prefix("proof: N=") {
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                let plies = digits
                    .parse()
                    .unwrap_or_else(|_| panic!("line {line}: bad 'proof: N=' comment"));
                proof = Some((plies, rest.contains("KingLanding=free")));
            }
            continue;
        }
        if content.is_empty() {
            continue;
        }
        let mut fields = content.split(';').map(str::trim);
        let fen = fields.next().unwrap();
        let position = Position::from_fen(&RuleSet::new(variant), fen)
            .unwrap_or_else(|e| panic!("line {line}: bad position {fen}: {e}"));
        assert_eq!(position.king_landing(), KingLanding::Continue);
        let (mut bm, mut id) = (None, None);
        for field in fields {
            if let Some(text) = field.strip_prefix("bm ") {
                bm = Some(
                    position
                        .parse_move(text.trim())
                        .unwrap_or_else(|e| panic!("line {line}: bad bm {text}: {e}")),
                );
            } else if let Some(name) = field.strip_prefix("id ") {
                id = Some(name.trim().to_string());
            }
        }
        let (plies, free_differs) = proof
            .take()
            .unwrap_or_else(|| panic!("line {line}: no '# proof: N=' comment above it"));
        out.push(Tactic {
            line,
            id: id.unwrap_or_else(|| panic!("line {line}: no id")),
            position,
            bm: bm.unwrap_or_else(|| panic!("line {line}: no bm")),
            plies,
            free_differs,
        });
    }
    out
}

fn all_tactics() -> Vec<Tactic> {
    let mut all = tactics(BASHNI_FILE, Variant::Bashni);
    all.extend(tactics(LASCA_FILE, Variant::Lasca));
    all
}

fn names(moves: &[Move]) -> Vec<String> {
    moves.iter().map(Move::to_string).collect()
}

/// The solver's proof: `bm` is the only first move that wins within
/// `plies`, and no first move wins sooner. Returns the nodes it took.
fn prove(position: &Position, bm: Move, plies: u32) -> Result<u64, String> {
    let mut solver = Solver::with_budget(PROOF_NODE_LIMIT);
    let winners = solver
        .winning_moves(position, plies)
        .map_err(|_| format!("proof needs more than {PROOF_NODE_LIMIT} nodes"))?;
    if winners != [bm] {
        return Err(format!(
            "winning first moves within {plies} plies are {:?}, expected only {bm}",
            names(&winners)
        ));
    }
    if plies >= 3 {
        let sooner = solver
            .winning_moves(position, plies - 2)
            .map_err(|_| format!("proof needs more than {PROOF_NODE_LIMIT} nodes"))?;
        if !sooner.is_empty() {
            return Err(format!(
                "{:?} already win within {} plies",
                names(&sooner),
                plies - 2
            ));
        }
    }
    Ok(solver.nodes)
}

/// The theme a line's id names, checked on the board.
fn check_theme(t: &Tactic) -> Result<(), String> {
    let pos = &t.position;
    let side = pos.side_to_move();
    let legal = pos.legal_moves();
    let mut after = pos.clone();
    after.make(&t.bm);
    let replies = after.legal_moves();
    let id = t.id.as_str();
    if id.starts_with("sac-") && !replies.iter().all(Move::is_capture) {
        return Err("a sacrifice, but the reply is not a forced capture".into());
    }
    if id.starts_with("sac-recapture") {
        let recaptured = replies.iter().all(|r| {
            let mut p = after.clone();
            p.make(r);
            p.legal_moves().iter().any(Move::is_capture)
        });
        if !recaptured {
            return Err("not every forced capture can be taken back".into());
        }
    }
    if id.contains("steered") {
        let king_captures = replies
            .iter()
            .all(|r| r.is_capture() && after.column(r.from()).top_is_king());
        if !king_captures {
            return Err("the forced reply is not a king's capture".into());
        }
    }
    if id.starts_with("landing-") {
        let king = pos.column(t.bm.from()).top_is_king();
        let alternatives = legal
            .iter()
            .filter(|m| **m != t.bm && m.from() == t.bm.from() && m.jumped().eq(t.bm.jumped()))
            .count();
        if !king || !t.bm.is_capture() || alternatives == 0 {
            return Err("not a king capture with a choice of landing squares".into());
        }
    }
    let far_rank = match side {
        Colour::White => pos.geometry().size - 1,
        Colour::Black => 0,
    };
    if id.starts_with("midchain-promo") {
        let n = t.bm.capture_count();
        let crowned_on_the_way = t.bm.landings().take(n - 1).any(|s| s.rank() == far_rank);
        if pos.column(t.bm.from()).top_is_king() || !crowned_on_the_way {
            return Err("not a man crowned in the middle of its chain".into());
        }
    }
    if id.starts_with("promotion-capture") && !(t.bm.is_capture() && t.bm.promotes()) {
        return Err("not a crowning capture".into());
    }
    if id.starts_with("promotion-stops") && !replies.iter().all(|r| r.is_capture() && r.promotes())
    {
        return Err("the forced reply is not a crowning capture".into());
    }
    if id.contains("frees") || id.contains("liberation") {
        let frees = t.bm.jumped().any(|sq| {
            pos.column(sq)
                .piece(1)
                .is_some_and(|below| below.colour == side)
        });
        let frees_later = id.starts_with("sac-")
            && replies.iter().all(|r| {
                let mut p = after.clone();
                p.make(r);
                p.legal_moves().iter().any(|m| {
                    m.jumped()
                        .any(|sq| p.column(sq).piece(1).is_some_and(|b| b.colour == side))
                })
            });
        if !frees && !frees_later {
            return Err("no capture frees pieces buried under an enemy top".into());
        }
    }
    if t.free_differs {
        let rules = RuleSet::new(pos.variant()).with_king_landing(KingLanding::Free);
        let free = Position::from_fen(&rules, &pos.to_fen()).expect("own FEN");
        if prove(&free, t.bm, t.plies).is_ok() {
            return Err("the proof is the same under KingLanding=free".into());
        }
    }
    Ok(())
}

#[test]
fn tactics_files_are_large_enough() {
    let bashni = tactics(BASHNI_FILE, Variant::Bashni);
    let lasca = tactics(LASCA_FILE, Variant::Lasca);
    assert!(bashni.len() >= 12, "{} Bashni tactics", bashni.len());
    assert!(lasca.len() >= 8, "{} Lasca tactics", lasca.len());
    let mut ids: Vec<&str> = bashni.iter().chain(&lasca).map(|t| t.id.as_str()).collect();
    ids.sort_unstable();
    let count = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), count, "ids are unique");
    // Every theme the task asks for is present.
    for (tactics, prefixes) in [
        (
            &bashni,
            &[
                "sac-quiet",
                "sac-capture",
                "steered",
                "landing-",
                "midchain-promo",
                "frees",
            ][..],
        ),
        (
            &lasca,
            &[
                "sac-recapture",
                "promotion-stops",
                "promotion-capture",
                "liberation",
            ][..],
        ),
    ] {
        for prefix in prefixes {
            assert!(
                tactics.iter().any(|t| t.id.contains(prefix)),
                "no tactic for theme {prefix}"
            );
        }
    }
}

#[test]
fn solver_proves_every_tactic() {
    let mut failures = Vec::new();
    for t in all_tactics() {
        if let Err(why) = prove(&t.position, t.bm, t.plies) {
            failures.push(format!("{}: {why}", t.name()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_tactic_shows_its_theme() {
    let mut failures = Vec::new();
    for t in all_tactics() {
        if let Err(why) = check_theme(&t) {
            failures.push(format!("{}: {why}", t.name()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The solver itself on positions small enough to check by hand.
#[test]
fn solver_answers_hand_checked_positions() {
    // White to move, a5-b6 leaves the man on a7 no move (b6 taken, and the
    // jump over b6 is blocked by c5): a win in 1. c5-b6 and c5-d6 do not.
    let pos = Position::from_fen(&RuleSet::new(Variant::Bashni), "W:a5w,c5w,a7b").unwrap();
    let mut solver = Solver::default();
    assert_eq!(names(&solver.winning_moves(&pos, 1).unwrap()), ["a5-b6"]);
    assert!(solver.side_wins(&mut pos.clone(), 3).unwrap());
    // A side with no move has lost already: it wins nothing.
    let lost = Position::from_fen(&RuleSet::new(Variant::Bashni), "B:a5w,c5w,b6w,a7b").unwrap();
    assert!(lost.legal_moves().is_empty());
    assert!(!solver.side_wins(&mut lost.clone(), 9).unwrap());
    // Lone kings far apart: nobody can force anything quickly.
    let kings = Position::from_fen(&RuleSet::new(Variant::Bashni), "W:a1W,h8B").unwrap();
    assert!(!solver.side_wins(&mut kings.clone(), 5).unwrap());
    // The budget is honoured.
    let mut tiny = Solver::with_budget(10);
    assert!(
        tiny.side_wins(&mut Position::start(&RuleSet::new(Variant::Bashni)), 9)
            .is_err()
    );
}

fn config_for(variant: Variant) -> Config {
    Config {
        threads: 1,
        draw_rules: DrawRules::for_variant(variant),
        ..Config::default()
    }
}

/// The engine's move and score at `depth`, one thread, a fresh table.
fn engine(pos: &Position, depth: u32) -> search::Outcome {
    engine_with(pos, depth, false)
}

/// The same, with the variant's embedded network as the evaluation if
/// `learned` (`EvalFile embedded`).
fn engine_with(pos: &Position, depth: u32, learned: bool) -> search::Outcome {
    let tt = LockFreeTable::with_megabytes(16);
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let mut config = config_for(pos.variant());
    if learned {
        let net = bashni_engine::nnue::embedded(pos.variant())
            .expect("a network is embedded for every variant")
            .expect("the embedded network loads");
        config.network = Some(std::sync::Arc::new(net));
    }
    search::Searcher::new(&tt, config).search(pos, &[], &limits, &mut |_| {})
}

/// The engine at depth N+2 plays the proven move with the proven score.
fn engine_check(pos: &Position, bm: Move, plies: u32) -> Result<(), String> {
    engine_check_with(pos, bm, plies, false)
}

/// `engine_check`, with the embedded network if `learned`.
fn engine_check_with(pos: &Position, bm: Move, plies: u32, learned: bool) -> Result<(), String> {
    let outcome = engine_with(pos, plies + 2, learned);
    let best = outcome.best.map_or("(none)".to_string(), |m| m.to_string());
    let expected = MATE - plies as i32;
    if outcome.best != Some(bm) || outcome.score != expected {
        return Err(format!(
            "depth {}: engine plays {best} with score {} (mate: {}), \
             the solver proves {bm} wins in {plies} plies (score {expected})",
            plies + 2,
            outcome.score,
            is_mate_score(outcome.score),
        ));
    }
    Ok(())
}

/// The tactics are still solved with the learned evaluation (the issue's
/// check): a forced win is found by the search whatever the evaluation,
/// as long as the network does not hide it.
#[test]
fn engine_with_the_embedded_networks_finds_every_tactic() {
    let mut failures = Vec::new();
    for t in all_tactics() {
        if let Err(why) = engine_check_with(&t.position, t.bm, t.plies, true) {
            failures.push(format!("{}: {why}", t.name()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn engine_finds_every_tactic() {
    let mut failures = Vec::new();
    for t in all_tactics() {
        if let Err(why) = engine_check(&t.position, t.bm, t.plies) {
            failures.push(format!("{}: {why}", t.name()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Proven wins (fen, bm, N) that the engine once missed at depth N+2,
/// because quiescence scored a side with no legal move by the static
/// evaluation. Their proofs are checked in `solver_proves_the_missed_wins`.
const MISSED_WINS: [(Variant, &str, &str, u32); 5] = [
    // With the bug, depth 9 played g7xa1 (cp 700).
    (Variant::Bashni, "W:c3b,h4wb,a5bb,c7W,g7W", "g7xb2", 7),
    (Variant::Bashni, "B:c1Bw,a3Bbw,f6W,d8b", "a3-b4", 7),
    (Variant::Bashni, "W:a3w,f6bb,f8W", "f8-h6", 9),
    (Variant::Lasca, "W:b2b,g3ww,d6w,e7Wb", "e7-f6", 9),
    (Variant::Lasca, "W:g3wb,d4bw,b6w,g7Wwwb", "g7-f6", 9),
];

#[test]
fn solver_proves_the_missed_wins() {
    for (variant, fen, bm, plies) in MISSED_WINS {
        let pos = Position::from_fen(&RuleSet::new(variant), fen).unwrap();
        let bm = pos.parse_move(bm).unwrap();
        prove(&pos, bm, plies).unwrap_or_else(|why| panic!("{fen}: {why}"));
    }
}

#[test]
fn engine_finds_the_missed_wins() {
    let mut failures = Vec::new();
    for (variant, fen, bm, plies) in MISSED_WINS {
        let pos = Position::from_fen(&RuleSet::new(variant), fen).unwrap();
        let bm = pos.parse_move(bm).unwrap();
        if let Err(why) = engine_check(&pos, bm, plies) {
            failures.push(format!("{fen}: {why}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// With `ForcedCapture` off, quiescence may stand pat beside a capture and
/// every node has plain moves among its captures. Near the end of seeded
/// random games played under that rule, whatever short win the solver
/// proves, the engine at depth N+2 finds: a mate in the same number of
/// plies, with one of the winning first moves.
#[test]
fn engine_finds_the_solvers_wins_with_optional_captures() {
    use support::solver::solve;
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut checked, mut with_choice) = (0, 0);
    let mut failures = Vec::new();
    for variant in Variant::ALL {
        let rules = RuleSet::new(variant).with_forced_capture(false);
        for _game in 0..30 {
            let mut pos = Position::start(&rules);
            let mut seen = Vec::new();
            for _ply in 0..300 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                seen.push(pos.clone());
                pos.make(&moves[(next() % moves.len() as u64) as usize]);
            }
            for late in seen.iter().rev().take(6) {
                // Fresh counters: no draw rule can come near a short win.
                let board = late.to_fen();
                let board = board.split_whitespace().next().unwrap();
                let pos = Position::from_fen(&rules, board).unwrap();
                let mut solver = Solver::with_budget(PROOF_NODE_LIMIT);
                let Ok(Some(verdict)) = solve(&mut solver, &pos, 5) else {
                    continue;
                };
                checked += 1;
                with_choice += pos.has_capture() as u32;
                let outcome = engine(&pos, verdict.plies + 2);
                let best = outcome.best.map_or("(none)".into(), |m| m.to_string());
                if outcome.score != MATE - verdict.plies as i32
                    || !outcome.best.is_some_and(|b| verdict.winners.contains(&b))
                {
                    failures.push(format!(
                        "{variant} {board}: engine {best} score {}, solver wins in {} with {:?}",
                        outcome.score,
                        verdict.plies,
                        names(&verdict.winners)
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{checked} wins checked, {with_choice} with a capture to ignore");
    assert!(
        checked >= 30 && with_choice >= 5,
        "only {checked} wins checked, {with_choice} with a capture to ignore"
    );
}

#[test]
fn engine_sees_a_win_on_the_last_ply() {
    // a5-b6 leaves Black no legal move (see solver_answers_hand_checked_positions).
    let pos = Position::from_fen(&RuleSet::new(Variant::Bashni), "W:a5w,c5w,a7b").unwrap();
    let outcome = engine(&pos, 1);
    assert_eq!(
        outcome.best.map(|m| m.to_string()).as_deref(),
        Some("a5-b6")
    );
    assert_eq!(outcome.score, MATE - 1, "depth 1 sees the mate in 1");
}

fn bashni_command(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_bashni"))
        .args(args)
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8(output.stdout).expect("utf-8 output");
    assert!(
        output.status.success(),
        "bashni {args:?} failed: {}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

#[test]
fn analyse_solves_both_tactics_files() {
    for (file, variant) in [(BASHNI_FILE, Variant::Bashni), (LASCA_FILE, Variant::Lasca)] {
        let count = tactics(file, variant).len();
        let depth = tactics(file, variant)
            .iter()
            .map(|t| t.plies + 2)
            .max()
            .unwrap()
            .to_string();
        let out = bashni_command(&[
            "analyse",
            file,
            "--variant",
            variant.name(),
            "--depth",
            &depth,
        ]);
        let last = out.lines().last().unwrap_or("");
        assert_eq!(
            last,
            format!("solved {count}/{count}"),
            "{variant} tactics:\n{out}"
        );
        assert_eq!(out.matches("  solved").count(), count, "{out}");
    }
}

/// The node count of `bashni bench`'s last line, and the per-position
/// lines, with `args` after `bench`.
fn bench_run(args: &[&str]) -> (u64, Vec<String>) {
    let out = bashni_command(&[&["bench"], args].concat());
    let last = out.lines().last().expect("bench prints something");
    let fields: Vec<&str> = last.split_whitespace().collect();
    assert!(
        matches!(fields[..], [_, "nodes", _, "nps"]),
        "last line is '<nodes> nodes <nps> nps': {last}"
    );
    let nodes = fields[0].parse().expect("a node count");
    let positions = out
        .lines()
        .filter(|l| l.starts_with("position"))
        .map(str::to_string)
        .collect();
    (nodes, positions)
}

/// The one-thread `bashni bench` node count recorded in docs/benchmarks.md,
/// with the default evaluation (the embedded networks, docs/tuning.md,
/// "The recipe"): a change of the search's behaviour, or a new network,
/// changes it (update both together).
const BENCH_NODES: u64 = 6_440_205;

/// The same with `--eval-file linear`: the linear evaluation, kept for
/// comparison, with the tuned weights.
const LINEAR_BENCH_NODES: u64 = 7_223_858;

#[test]
fn bench_node_count_is_the_recorded_one() {
    let (nodes, lines) = bench_run(&[]);
    assert_eq!(nodes, BENCH_NODES, "{lines:#?}");
    assert_eq!(
        lines.len(),
        bashni_engine::bench::positions().unwrap().len()
    );
    let (linear, lines) = bench_run(&["--eval-file", "linear"]);
    assert_eq!(linear, LINEAR_BENCH_NODES, "{lines:#?}");
}

/// `--eval-file embedded` searches every position twice, linear first,
/// and its two totals are the two pinned counts.
#[test]
fn bench_comparison_counts_both_evaluations() {
    let out = bashni_command(&["bench", "--eval-file", "embedded"]);
    let total = |label: &str| {
        let rest = out.lines().find_map(|l| l.strip_prefix(label));
        rest.and_then(|r| r.split_whitespace().next()?.parse::<u64>().ok())
    };
    assert_eq!(total("linear :"), Some(LINEAR_BENCH_NODES), "{out}");
    assert_eq!(total("learned:"), Some(BENCH_NODES), "{out}");
}

/// Send `go` and collect the `info` lines without their timing fields,
/// then the `bestmove`.
fn search(engine: &mut Engine, go: &str) -> Vec<String> {
    engine.send(go);
    let mut seen = Vec::new();
    loop {
        let line = engine.line();
        if line.starts_with("info") && !line.starts_with("info string") {
            seen.push(without_timing(&line));
        } else if line.starts_with("bestmove") {
            seen.push(line);
            return seen;
        }
    }
}

/// An `info` line without `nps`, `time` and `hashfull`, which may vary.
fn without_timing(line: &str) -> String {
    let mut out = Vec::new();
    let mut tokens = line.split_whitespace();
    while let Some(token) = tokens.next() {
        if matches!(token, "nps" | "time" | "hashfull") {
            tokens.next();
        } else {
            out.push(token);
        }
    }
    out.join(" ")
}

#[test]
fn go_nodes_repeats_with_one_thread() {
    let cases = [
        ("bashni", "position startpos"),
        (
            "bashni",
            "position fen W:a1Wwb,c3bw,g3b,b4Bb,f4w,g5w,d6b,e7bW,h8Bbw 0 1",
        ),
        ("lasca", "position startpos"),
    ];
    for (variant, position) in cases {
        let go = "go nodes 20000";
        let mut first = Engine::start();
        first.send(&format!("setoption name UCI_Variant value {variant}"));
        first.send("setoption name Threads value 1");
        first.send(position);
        let a = search(&mut first, go);
        // The same process after ucinewgame, and a fresh process.
        first.send("ucinewgame");
        first.send(position);
        let b = search(&mut first, go);
        let mut second = Engine::start();
        second.send(&format!("setoption name UCI_Variant value {variant}"));
        second.send(position);
        let c = search(&mut second, go);
        assert!(a.len() >= 2, "{variant} {position}: {a:?}");
        assert!(a.last().unwrap().starts_with("bestmove "));
        assert_eq!(a, b, "{variant} {position}: after ucinewgame");
        assert_eq!(a, c, "{variant} {position}: in a fresh process");
    }
}

/// `go depth D nodes N` stops at whichever limit comes first (the ladder's
/// rivals search so): with one thread, node for node the search that the
/// binding limit alone gives.
#[test]
fn go_depth_and_nodes_stop_at_the_first_limit() {
    let position = "position fen W:a1Wwb,c3bw,g3b,b4Bb,f4w,g5w,d6b,e7bW,h8Bbw 0 1";
    let mut e = Engine::start();
    e.send("setoption name Threads value 1");
    let mut run = |go: &str| {
        e.send("ucinewgame");
        e.send(position);
        search(&mut e, go)
    };
    let by_nodes = run("go nodes 20000");
    assert_eq!(run("go depth 60 nodes 20000"), by_nodes, "the nodes bind");
    let by_depth = run("go depth 3");
    assert_eq!(
        run("go depth 3 nodes 100000000"),
        by_depth,
        "the depth binds"
    );
    assert_ne!(by_nodes, by_depth);
}

/// The first `count` positions of the repository's openings book for
/// `variant`, read as `match` reads a book.
fn book_positions(variant: Variant, count: usize) -> Vec<String> {
    let path = format!(
        "{}/bench-positions/openings-{variant}-4000.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let mut fens = bashni_host::openings::parse_openings(variant, &text).unwrap();
    fens.truncate(count);
    fens
}

/// The `info` lines of a search, then its `bestmove` move.
fn lines_and_bestmove(engine: &mut Engine, fen: &str, go: &str) -> (Vec<Info>, String) {
    engine.send("ucinewgame");
    engine.send(&format!("position fen {fen}"));
    let mut lines = search(engine, go);
    let bestmove = lines.pop().unwrap();
    let best = bestmove.split_whitespace().nth(1).unwrap_or_default();
    let infos = lines.iter().filter_map(|l| Info::parse(l)).collect();
    (infos, best.to_string())
}

/// With one thread a node limit cuts an iteration at the same place on
/// every run, and `go depth` repeats the iterations before it node for
/// node. So a last line that took fewer nodes than `go depth` of its depth
/// needs was cut; `bestmove` must be its first move, and some cut
/// iterations must have changed the answer of the one before.
#[test]
fn a_cut_iteration_answers_with_the_move_it_finished_best() {
    const LIMIT: u64 = 30_000;
    let mut changed_by_cut = 0;
    for variant in Variant::ALL {
        let mut engine = Engine::start();
        engine.send(&format!("setoption name UCI_Variant value {variant}"));
        for fen in book_positions(variant, 60) {
            let (infos, best) = lines_and_bestmove(&mut engine, &fen, &format!("go nodes {LIMIT}"));
            let last = infos.last().unwrap_or_else(|| panic!("{fen}: no line"));
            assert_eq!(last.pv.first(), Some(&best), "{fen}: {infos:#?}");
            let depth = last.depth.unwrap();
            let (whole, _) = lines_and_bestmove(&mut engine, &fen, &format!("go depth {depth}"));
            let cut = whole.last().and_then(|w| w.nodes) > last.nodes;
            let before = infos.iter().rev().find(|i| i.depth < last.depth);
            if cut && before.is_some_and(|b| b.pv.first() != Some(&best)) {
                changed_by_cut += 1;
            }
        }
    }
    assert!(changed_by_cut > 0, "no cut iteration changed the answer");
}

/// The `nodes` of each per-position line of a `bench` run, in order.
fn bench_line_nodes(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| l.starts_with("position"))
        .filter_map(|l| l.rsplit_once("nodes ").map(|(_, n)| n.to_string()))
        .collect()
}

#[test]
fn bench_searches_the_first_count_positions_of_a_book() {
    let built_in = bashni_engine::bench::positions().unwrap();
    let lasca: Vec<usize> = (0..built_in.len())
        .filter(|&i| built_in[i].0 == bashni_rules::Variant::Lasca)
        .collect();
    assert!(lasca.len() >= 3, "three Lasca bench positions");
    let fen = |i: usize| built_in[lasca[i]].1.to_fen();
    let dir = std::env::temp_dir().join(format!("bashni-bench-book-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let book = dir.join("book.txt");
    let text = format!("# a comment\n{}\n\n{}\n{}\n", fen(1), fen(2), fen(0));
    std::fs::write(&book, text).unwrap();
    let book_arg = book.to_str().unwrap();
    let from_book = bashni_command(&[
        "bench",
        "--depth",
        "6",
        "--book",
        book_arg,
        "--variant",
        "lasca",
        "--count",
        "2",
    ]);
    // The same positions searched from the built-in list give the same
    // trees: the book's first two, in its order, and nothing else.
    let all = bench_line_nodes(&bashni_command(&["bench", "--depth", "6"]));
    let expected = vec![all[lasca[1]].clone(), all[lasca[2]].clone()];
    assert_eq!(bench_line_nodes(&from_book), expected, "{from_book}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bench_book_errors_name_the_file_and_line() {
    let dir = std::env::temp_dir().join(format!("bashni-bench-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let book = dir.join("bad.txt");
    std::fs::write(&book, "# header\nW:not-a-position 0 1\n").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_bashni"))
        .args([
            "bench",
            "--book",
            book.to_str().unwrap(),
            "--variant",
            "lasca",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains("bad.txt") && stderr.contains("line 2"),
        "{stderr}"
    );
    let unpaired = Command::new(env!("CARGO_BIN_EXE_bashni"))
        .args(["bench", "--book", book.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&unpaired.stderr);
    assert!(
        !unpaired.status.success() && stderr.contains("--variant"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
