//! `bashni match` end to end: the real binary plays real games (against
//! itself and against misbehaving fakes), and every PDN it writes must
//! replay legally and agree with its own tags.

use bashni_host::pdn::{PdnGame, parse_pdn};
use bashni_rules::{KingLanding, Position, RuleSet, Variant};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_bashni");

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn book(variant: &str) -> String {
    format!(
        "{}/bench-positions/openings-{variant}.txt",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// A fresh PDN path per test (tests run in parallel).
fn pdn_path(test: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("bashni-match-{}-{test}.pdn", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

fn run_match(args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("match")
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn read_games(path: &PathBuf) -> Vec<PdnGame> {
    let text = std::fs::read_to_string(path).expect("the PDN file exists");
    parse_pdn(&text).expect("the PDN file parses")
}

fn tag<'a>(game: &'a PdnGame, name: &str) -> &'a str {
    game.tag(name)
        .unwrap_or_else(|| panic!("tag {name} missing in {game:?}"))
}

/// Replay a game from its FEN and check that every move is legal and
/// written in the protocol's full notation, that the result tag matches the
/// result token, and that the termination agrees with the final position.
fn check_game(game: &PdnGame, max_plies: u32) {
    for name in [
        "Event",
        "Site",
        "Date",
        "Round",
        "White",
        "Black",
        "Result",
        "FEN",
        "Variant",
        "Termination",
    ] {
        tag(game, name);
    }
    assert_eq!(tag(game, "Result"), game.result);
    let variant: Variant = tag(game, "Variant").parse().unwrap();
    let landing = game
        .tag("KingLanding")
        .map_or(KingLanding::default(), |rule| rule.parse().unwrap());
    let forced = game.tag("ForcedCapture") != Some("false");
    let rules = RuleSet::new(variant)
        .with_king_landing(landing)
        .with_forced_capture(forced);
    let mut pos = Position::from_fen(&rules, tag(game, "FEN")).unwrap();
    let mut seen: HashMap<u64, u32> = HashMap::from([(pos.key(), 1)]);
    for text in &game.moves {
        let mv = pos
            .parse_move(text)
            .unwrap_or_else(|e| panic!("{text} in {}: {e}", pos.to_fen()));
        assert_eq!(&mv.to_string(), text, "moves are written in full");
        pos.make(&mv);
        *seen.entry(pos.key()).or_insert(0) += 1;
    }
    assert_eq!(tag(game, "PlyCount"), game.moves.len().to_string());
    for comment in &game.comments {
        let comment = comment.as_deref().expect("every move has a comment");
        assert!(is_move_comment(comment), "{comment}");
    }
    let termination = tag(game, "Termination");
    let side_to_move_lost = if pos.side_to_move() == bashni_rules::Colour::White {
        "0-2"
    } else {
        "2-0"
    };
    match termination {
        "normal" => {
            assert!(
                pos.legal_moves().is_empty(),
                "normal end with moves left: {game:?}"
            );
            assert_eq!(game.result, side_to_move_lost);
        }
        "adjudication: threefold repetition" => {
            assert_eq!(seen[&pos.key()], 3);
            assert_eq!(game.result, "1-1");
        }
        t if t.starts_with("adjudication: no-progress rule") => {
            assert!(pos.no_progress_plies() >= 50);
            assert_eq!(game.result, "1-1");
        }
        t if t.starts_with("adjudication: ply limit") => {
            assert!(pos.game_ply() >= max_plies);
            assert_eq!(game.result, "1-1");
        }
        other => panic!("unexpected termination '{other}' between engines that behave"),
    }
}

/// Whether a comment has cutechess's form: `+0.12/12 0.51s`, `-M3/9 0.02s`,
/// `? 0.00s` for a move that came without a score.
fn is_move_comment(comment: &str) -> bool {
    let Some((eval, time)) = comment.split_once(' ') else {
        return false;
    };
    let time_ok = time
        .strip_suffix('s')
        .is_some_and(|t| t.parse::<f64>().is_ok());
    // An engine may move at once without a score (a forced move).
    if eval == "?" {
        return time_ok;
    }
    let Some((score, depth)) = eval.split_once('/') else {
        return false;
    };
    let score_ok = match score.strip_prefix(['+', '-']) {
        Some(mate) if mate.starts_with('M') => mate[1..].parse::<u32>().is_ok(),
        Some(pawns) => {
            pawns.parse::<f64>().is_ok() && pawns.split('.').nth(1).map(str::len) == Some(2)
        }
        None => false,
    };
    score_ok && depth.parse::<u32>().is_ok() && time_ok
}

#[test]
fn self_play_at_low_depth_writes_a_pdn_that_replays() {
    for (variant, max_plies) in [("bashni", 250), ("lasca", 300)] {
        let pdn = pdn_path(&format!("self-{variant}"));
        let out = run_match(&[
            "--engine",
            BIN,
            "--engine",
            &format!("cmd={BIN},name=other,option.Hash=8"),
            "--variant",
            variant,
            "--games",
            "4",
            "--depth",
            "2",
            "--openings",
            &book(variant),
            "--pdn",
            pdn.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{out:?}");
        let report = stdout(&out);
        assert!(report.contains("Games: 4 of 4 played"), "{report}");
        assert!(report.contains("Score of bashni vs other: "), "{report}");
        assert!(report.contains("Elo difference: "), "{report}");
        assert!(report.contains("Ptnml(0-2): ["), "{report}");
        assert!(report.contains(", pairs 2, "), "{report}");
        assert!(report.contains("\nNormalized Elo: "), "{report}");
        let games = read_games(&pdn);
        assert_eq!(games.len(), 4);
        for game in &games {
            assert_eq!(tag(game, "Variant"), variant);
            assert_eq!(tag(game, "TimeControl"), "-");
            assert_eq!(tag(game, "SearchLimit"), "depth 2");
            check_game(game, max_plies);
            // The engine searched every move to depth 2.
            assert!(game.comments.iter().flatten().all(|c| c.contains("/2 ")));
        }
        // Each opening twice, colours swapped.
        assert_eq!(tag(&games[0], "FEN"), tag(&games[1], "FEN"));
        assert_eq!(tag(&games[0], "White"), tag(&games[1], "Black"));
        let _ = std::fs::remove_file(&pdn);
    }
}

/// Plain moves played where a capture was on the board.
fn captures_declined(game: &PdnGame) -> usize {
    let rules = RuleSet::new(tag(game, "Variant").parse().unwrap()).with_forced_capture(false);
    let mut pos = Position::from_fen(&rules, tag(game, "FEN")).unwrap();
    let mut declined = 0;
    for text in &game.moves {
        let mv = pos.parse_move(text).unwrap();
        let capture_on_board = pos.legal_moves().iter().any(|m| m.is_capture());
        declined += usize::from(capture_on_board && !mv.is_capture());
        pos.make(&mv);
    }
    declined
}

#[test]
fn optional_captures_reach_the_referee_the_engines_and_the_pdn() {
    let pdn = pdn_path("optional-captures");
    let out = run_match(&[
        "--engine",
        BIN,
        "--engine",
        &format!("cmd={BIN},name=other"),
        "--forced-capture",
        "false",
        "--games",
        "4",
        "--depth",
        "2",
        "--openings",
        &book("bashni"),
        "--pdn",
        pdn.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let games = read_games(&pdn);
    assert_eq!(games.len(), 4);
    for game in &games {
        assert_eq!(tag(game, "ForcedCapture"), "false");
        check_game(game, 250);
    }
    // Under forced capture these games would have been forfeits.
    let declined: usize = games.iter().map(captures_declined).sum();
    assert!(declined > 0, "no engine ever declined a capture");
    let _ = std::fs::remove_file(&pdn);
}

/// A match of `engines` under the clock `tc` from the Bashni book, games
/// capped at 40 plies, then `extra`.
fn clock_match(engines: [&str; 2], tc: &str, pdn: &Path, extra: &[&str]) -> Output {
    let book = book("bashni");
    let mut args = vec![
        "--engine",
        engines[0],
        "--engine",
        engines[1],
        "--tc",
        tc,
        "--openings",
        &book,
        "--max-plies",
        "40",
        // Tests share the cores: a generous margin keeps a busy machine
        // from turning this into a time-forfeit test.
        "--time-margin-ms",
        "1000",
        "--pdn",
        pdn.to_str().expect("a UTF-8 path"),
    ];
    args.extend_from_slice(extra);
    run_match(&args)
}

#[test]
fn concurrent_games_under_a_clock_all_reach_the_pdn() {
    let pdn = pdn_path("clock");
    let extra = ["--games", "4", "--concurrency", "2", "--seed", "3"];
    let out = clock_match([BIN, BIN], "40/2+0.05", &pdn, &extra);
    assert!(out.status.success(), "{out:?}");
    let games = read_games(&pdn);
    assert_eq!(games.len(), 4);
    let mut rounds: Vec<&str> = games.iter().map(|g| tag(g, "Round")).collect();
    rounds.sort();
    assert_eq!(rounds, ["1.1", "1.2", "1.3", "1.4"]);
    for game in &games {
        assert_eq!(tag(game, "TimeControl"), "40/2+0.05");
        assert_eq!(
            tag(game, "White") == "bashni-1",
            tag(game, "Black") == "bashni-2"
        );
        check_game(game, 40);
    }
    let _ = std::fs::remove_file(&pdn);
}

/// Seconds an engine thought over a game: the sum of its moves' times.
fn thinking_seconds(game: &PdnGame, white: bool) -> f64 {
    let first = if tag(game, "FEN").starts_with('W') == white {
        0
    } else {
        1
    };
    game.comments
        .iter()
        .skip(first)
        .step_by(2)
        .flatten()
        .filter_map(|c| c.rsplit(' ').next()?.strip_suffix('s')?.parse::<f64>().ok())
        .sum()
}

#[test]
fn time_odds_give_an_engine_its_own_clock() {
    let pdn = pdn_path("odds");
    let rich = format!("cmd={BIN},name=rich,tc=4+0.04");
    let poor = format!("cmd={BIN},name=poor");
    let extra = ["--games", "2", "--seed", "5"];
    let out = clock_match([&rich, &poor], "1+0.01", &pdn, &extra);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout(&out).contains("tc 1+0.01 (rich tc 4+0.04)"),
        "{out:?}"
    );
    let games = read_games(&pdn);
    assert_eq!(games.len(), 2);
    let (mut rich_seconds, mut poor_seconds) = (0.0, 0.0);
    for game in &games {
        check_game(game, 40);
        assert_eq!(tag(game, "TimeControl"), "1+0.01");
        let rich_is_white = tag(game, "White") == "rich";
        let (rich_tag, other_tag) = if rich_is_white {
            ("WhiteTimeControl", "BlackTimeControl")
        } else {
            ("BlackTimeControl", "WhiteTimeControl")
        };
        assert_eq!(tag(game, rich_tag), "4+0.04");
        assert_eq!(
            game.tag(other_tag),
            None,
            "only the engine with odds gets a tag"
        );
        rich_seconds += thinking_seconds(game, rich_is_white);
        poor_seconds += thinking_seconds(game, !rich_is_white);
    }
    // Four times the clock: the engine spends clearly more of it.
    assert!(
        rich_seconds > 2.0 * poor_seconds,
        "rich {rich_seconds:.2} s, poor {poor_seconds:.2} s"
    );
    let _ = std::fs::remove_file(&pdn);
}

/// A misbehaving fake against the scripted fake: the misbehaving one loses
/// every game with the expected termination, and the match finishes.
fn forfeits(mode: &str, limit: &[&str], termination: &str) {
    let pdn = pdn_path(&format!("fake-{mode}"));
    let fake = fixture("fake_engine.sh");
    let mut args = vec![
        "--engine".to_string(),
        format!("cmd={fake},arg={mode},name={mode}"),
        "--engine".to_string(),
        format!("cmd={fake},arg=scripted,name=scripted"),
        "--games".to_string(),
        "4".to_string(),
        "--pdn".to_string(),
        pdn.to_str().unwrap().to_string(),
    ];
    args.extend(limit.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run_match(&args);
    assert!(out.status.success(), "{out:?}");
    let report = stdout(&out);
    assert!(
        report.contains(&format!(
            "Score of {mode} vs scripted: 0 - 4 - 0  [0.000] 4"
        )),
        "{report}"
    );
    let games = read_games(&pdn);
    assert_eq!(games.len(), 4, "{report}");
    for game in &games {
        assert_eq!(tag(game, "Termination"), termination, "{game:?}");
        let fake_is_white = tag(game, "White") == mode;
        assert_eq!(game.result, if fake_is_white { "0-2" } else { "2-0" });
        // The scripted fake moved first when it had White; nothing else.
        assert_eq!(
            game.moves,
            if fake_is_white {
                vec![]
            } else {
                vec!["c3-d4".to_string()]
            }
        );
    }
    let _ = std::fs::remove_file(&pdn);
}

#[test]
fn an_engine_that_crashes_loses_and_is_restarted() {
    forfeits("crash", &["--depth", "1"], "engine crashed: crash");
}

#[test]
fn an_engine_that_hangs_loses_on_time_or_as_stalled() {
    forfeits(
        "hang",
        &["--depth", "1", "--timeout-ms", "1000"],
        "stalled connection: hang",
    );
    forfeits("hang", &["--tc", "1"], "time forfeit: hang");
}

#[test]
fn an_engine_that_sends_an_illegal_move_loses() {
    forfeits(
        "illegal",
        &["--movetime", "10"],
        "illegal move: e1-f2 by illegal",
    );
}

#[test]
fn an_engine_that_sends_garbage_loses() {
    forfeits(
        "garbage",
        &["--nodes", "100"],
        "illegal move: ??? by garbage",
    );
}

#[test]
fn sprt_stops_the_match_once_it_decides() {
    // Hypotheses far from the truth of self-play (elo0 = 200): the test
    // accepts H0 after a handful of games, long before the 60 scheduled.
    let pdn = pdn_path("sprt");
    let out = run_match(&[
        "--engine",
        BIN,
        "--engine",
        BIN,
        "--games",
        "60",
        "--depth",
        "2",
        "--openings",
        &book("bashni"),
        "--sprt",
        "elo0=200,elo1=400,alpha=0.05,beta=0.05,model=trinomial",
        "--pdn",
        pdn.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let report = stdout(&out);
    assert!(report.contains(": H0 accepted"), "{report}");
    assert!(report.contains("(trinomial decides)"), "{report}");
    assert!(report.contains("bounds -2.944 .. 2.944"), "{report}");
    let played = read_games(&pdn).len();
    assert!(played < 60, "{report}");
    assert!(
        report.contains(&format!("Games: {played} of 60 played")),
        "{report}"
    );
    let _ = std::fs::remove_file(&pdn);
}

#[test]
fn an_interrupted_match_prints_its_summary_and_keeps_every_finished_game() {
    let pdn = pdn_path("sigint");
    let child = Command::new(BIN)
        .args([
            "match", "--engine", BIN, "--engine", BIN, "--games", "1000", "--depth", "2",
        ])
        .args([
            "--openings",
            &book("bashni"),
            "--pdn",
            pdn.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait for a few games, however long the machine takes.
    while std::fs::read_to_string(&pdn).map_or(0, |t| t.matches("[Event ").count()) < 3 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{out:?}");
    let games = read_games(&pdn);
    assert!(games.len() >= 3);
    for game in &games {
        check_game(game, 250);
    }
    // The summary counts exactly the games in the file.
    let report = stdout(&out);
    assert!(report.contains("Interrupted"), "{report}");
    assert!(
        report.contains(&format!("Games: {} of 1000 played", games.len())),
        "{report}"
    );
    assert!(
        report.contains("Score of bashni-1 vs bashni-2: "),
        "{report}"
    );
    let _ = std::fs::remove_file(&pdn);
}

#[test]
fn resume_plays_only_the_games_the_pdn_lacks() {
    let pdn = pdn_path("resume");
    let book = book("bashni");
    let args = [
        "--engine",
        BIN,
        "--engine",
        BIN,
        "--games",
        "6",
        "--depth",
        "1",
        "--openings",
        &book,
        "--seed",
        "5",
        "--pdn",
        pdn.to_str().unwrap(),
    ];
    let out = run_match(&args);
    assert!(out.status.success(), "{out:?}");
    let full = read_games(&pdn);
    let unbroken = stdout(&out);
    // Keep the first two games, as if the match had been stopped then.
    let text = std::fs::read_to_string(&pdn).unwrap();
    let cut = text.match_indices("[Event ").nth(2).unwrap().0;
    std::fs::write(&pdn, &text[..cut]).unwrap();
    let out = run_match(&[&args[..], &["--resume"]].concat());
    assert!(out.status.success(), "{out:?}");
    let report = stdout(&out);
    assert!(
        report.contains("Resuming: 2 game(s) already in"),
        "{report}"
    );
    assert!(
        report.contains("Match bashni-1 vs bashni-2: 4 games"),
        "{report}"
    );
    assert_eq!(report.matches("Finished game").count(), 4, "{report}");
    let resumed = read_games(&pdn);
    let mut numbers: Vec<usize> = resumed
        .iter()
        .map(|g| tag(g, "GameNumber").parse().unwrap())
        .collect();
    numbers.sort();
    assert_eq!(numbers, [1, 2, 3, 4, 5, 6]);
    // At fixed depth the games are the same, and so is the report.
    let key = |g: &PdnGame| (tag(g, "GameNumber").to_string(), g.moves.clone());
    let mut a: Vec<_> = full.iter().map(key).collect();
    let mut b: Vec<_> = resumed.iter().map(key).collect();
    a.sort();
    b.sort();
    assert_eq!(a, b);
    let summary = |r: &str| r[r.find("Games: ").unwrap()..r.find("PDN: ").unwrap()].to_string();
    assert_eq!(summary(&report), summary(&unbroken));
    // Nothing left: nothing played.
    let out = run_match(&[&args[..], &["--resume"]].concat());
    assert!(stdout(&out).contains(": 0 games"), "{out:?}");
    assert_eq!(read_games(&pdn).len(), 6);
    // Another schedule (another seed) does not match the file.
    let mut other = args.to_vec();
    other[11] = "6";
    let out = run_match(&[&other[..], &["--resume"]].concat());
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("not the same match"));
    let _ = std::fs::remove_file(&pdn);
}

#[test]
fn odd_game_counts_and_too_much_concurrency_are_warned_about() {
    let out = run_match(&[
        "--engine",
        BIN,
        "--engine",
        BIN,
        "--games",
        "3",
        "--depth",
        "1",
        "--concurrency",
        "64",
    ]);
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: 3 games per pairing is odd: opening 1"),
        "{stderr}"
    );
    assert!(
        stderr.contains("warning: --concurrency 64 is above the"),
        "{stderr}"
    );
    let out = run_match(&[
        "--engine", BIN, "--engine", BIN, "--games", "2", "--depth", "1",
    ]);
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("warning"),
        "{out:?}"
    );
}

#[test]
fn bad_match_arguments_exit_with_code_2() {
    let fake = fixture("fake_engine.sh");
    let odds_without_a_clock = format!("cmd={BIN},tc=5");
    for args in [
        vec![
            "--engine",
            &odds_without_a_clock,
            "--engine",
            BIN,
            "--depth",
            "2",
        ],
        vec!["--engine", BIN, "--engine", "cmd=x,tc=fast"],
        vec!["--engine", BIN],
        vec!["--engine", BIN, "--engine", "/no/such/engine"],
        vec![
            "--engine",
            BIN,
            "--engine",
            BIN,
            "--openings",
            "/no/such/book",
        ],
        vec!["--engine", BIN, "--engine", BIN, "--tc", "fast"],
        vec![
            "--engine",
            BIN,
            "--engine",
            BIN,
            "--depth",
            "2",
            "--movetime",
            "5",
        ],
        vec![
            "--engine",
            BIN,
            "--engine",
            BIN,
            "--variant",
            "lasca",
            "--openings",
            &book("bashni"),
        ],
        vec![
            "--engine",
            BIN,
            "--engine",
            BIN,
            "--openings",
            &book("lasca"),
        ],
        vec!["--engine", BIN, "--engine", BIN, "--resume"],
        vec!["--engine", BIN, "--engine", BIN, "--shard", "3/2"],
    ] {
        let out = run_match(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
    // An engine that never finishes the handshake is refused at the start.
    let silent = format!("cmd={fake},arg=silent");
    let out = run_match(&["--engine", &silent, "--engine", BIN]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no uciok"));
}

#[test]
fn the_handshake_waits_as_long_as_timeout_ms_says() {
    // `slowstart` answers `uci` after 2 s: too slow for 500 ms, in time
    // for 5 s (the default is 10 s).
    let fake = fixture("fake_engine.sh");
    let slow = format!("cmd={fake},arg=slowstart,name=slow");
    let scripted = format!("cmd={fake},arg=scripted,name=scripted");
    let base = ["--engine", &slow, "--engine", &scripted, "--depth", "1"];
    let out = run_match(&[&base[..], &["--timeout-ms", "500"]].concat());
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("no uciok"));
    let out = run_match(&[&base[..], &["--timeout-ms", "5000"]].concat());
    assert!(out.status.success(), "{out:?}");
    assert!(stdout(&out).contains("Games: 2 of 2 played"));
}

/// Two proxies of the real engine that report the given scores (by ply,
/// `:`-separated for the fake):
/// returns the games.
fn scored_match(test: &str, scores: &[i32], adjudication: &[&str]) -> Vec<PdnGame> {
    let pdn = pdn_path(test);
    let fake = fixture("fake_engine.sh");
    let list: Vec<String> = scores.iter().map(i32::to_string).collect();
    let proxy = |name: &str| {
        format!(
            "cmd={fake},arg=proxy,arg={BIN},arg={},name={name}",
            list.join(":")
        )
    };
    let (a, b) = (proxy("a"), proxy("b"));
    let mut args = vec!["--engine", &a, "--engine", &b, "--depth", "1"];
    args.extend(["--pdn", pdn.to_str().unwrap()]);
    args.extend(adjudication);
    let out = run_match(&args);
    assert!(out.status.success(), "{out:?}");
    let games = read_games(&pdn);
    let _ = std::fs::remove_file(&pdn);
    games
}

#[test]
fn score_adjudication_ends_a_game_exactly_when_the_thresholds_are_met() {
    // Plies 0-3 level; then White (even plies) reports -600 and Black
    // (odd plies) +600. White's 3rd losing score comes at ply index 8, but
    // Black has agreed only twice then (plies 5, 7); at ply index 10 both
    // agree: White resigns after 11 plies.
    let mut scores = vec![0; 4];
    scores.extend((4..40).map(|ply| if ply % 2 == 0 { -600 } else { 600 }));
    let games = scored_match("resign", &scores, &["--resign", "movecount=3,score=500"]);
    assert_eq!(games.len(), 2);
    for game in &games {
        let white = tag(game, "White");
        assert_eq!(
            tag(game, "Termination"),
            format!("adjudication: score, {white} resigns")
        );
        assert_eq!(game.result, "0-2");
        assert_eq!(game.moves.len(), 11, "{game:?}");
        assert_eq!(
            game.comments[10].as_deref().map(|c| &c[..7]),
            Some("-6.00/1")
        );
    }
    // Black never agreeing: one-sided it still ends, two-sided it does not.
    let lone: Vec<i32> = (0..40)
        .map(|ply| if ply % 2 == 0 { -600 } else { 0 })
        .collect();
    let games = scored_match(
        "lone",
        &lone,
        &[
            "--resign",
            "movecount=3,score=500,twosided=false",
            "--max-plies",
            "20",
        ],
    );
    assert!(games.iter().all(|g| g.moves.len() == 5), "{games:?}");
    let games = scored_match(
        "lone2",
        &lone,
        &["--resign", "movecount=3,score=500", "--max-plies", "20"],
    );
    assert!(
        games.iter().all(|g| tag(g, "Termination")
            != format!("adjudication: score, {} resigns", tag(g, "White")))
    );

    // Level scores, reset by a 50 at ply index 7: 4 level plies in a row
    // again after ply 12, and 5 full moves were played by then.
    let level = [10, 10, 10, 10, 10, 10, 10, 50, 10];
    let games = scored_match(
        "draw",
        &level,
        &["--draw", "movenumber=5,movecount=2,score=20"],
    );
    for game in &games {
        assert_eq!(tag(game, "Termination"), "adjudication: score (draw)");
        assert_eq!(game.result, "1-1");
        assert_eq!(game.moves.len(), 12, "{game:?}");
    }
    // Off by default: the same scores end no game early.
    let games = scored_match("none", &level, &["--max-plies", "16"]);
    assert!(
        games
            .iter()
            .all(|g| g.moves.len() >= 16 || tag(g, "Termination") == "normal"),
        "{games:?}"
    );
}

#[test]
fn lone_kings_are_drawn_by_the_draw_rules() {
    // A lone king each: neither side can force a capture, and an engine
    // that sees two plies never steps into one, so only a draw rule ends
    // these games (the engine at fixed depth plays the same game each run).
    let book = std::env::temp_dir().join(format!("bashni-match-{}-kings.txt", std::process::id()));
    std::fs::write(&book, "# lone kings\nW:c1W,f8B 0 1\n").unwrap();
    for (max_plies, expected) in [
        (None, None),
        (Some("6"), Some("adjudication: ply limit (6 plies)")),
    ] {
        let pdn = pdn_path(&format!("kings-{}", max_plies.unwrap_or("default")));
        let mut args = vec!["--engine", BIN, "--engine", BIN, "--depth", "2"];
        args.extend([
            "--openings",
            book.to_str().unwrap(),
            "--pdn",
            pdn.to_str().unwrap(),
        ]);
        if let Some(plies) = max_plies {
            args.extend(["--max-plies", plies]);
        }
        let out = run_match(&args);
        assert!(out.status.success(), "{out:?}");
        let games = read_games(&pdn);
        assert_eq!(games.len(), 2);
        for game in &games {
            assert_eq!(game.result, "1-1", "{game:?}");
            let termination = tag(game, "Termination");
            match expected {
                Some(t) => assert_eq!(termination, t),
                None => assert!(
                    termination == "adjudication: threefold repetition"
                        || termination == "adjudication: no-progress rule (50 plies)",
                    "{termination}"
                ),
            }
            check_game(game, 6);
        }
        let _ = std::fs::remove_file(&pdn);
    }
    let _ = std::fs::remove_file(&book);
}

#[test]
fn an_option_the_engine_refuses_stops_the_match_before_it_starts() {
    let engine = format!("cmd={BIN},name=bad,option.Hash=lots");
    let out = run_match(&[
        "--engine", &engine, "--engine", BIN, "--games", "2", "--depth", "1",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("refused its setup") && stderr.contains("option Hash"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn a_three_engine_round_robin_fills_the_cross_table() {
    // The real engine beats both fakes; the scripted fake runs out of
    // script (an illegal move) against it but beats the crashing one.
    let fake = fixture("fake_engine.sh");
    let scripted = format!("cmd={fake},arg=scripted,name=scripted");
    let crash = format!("cmd={fake},arg=crash,name=crash");
    let pdn = pdn_path("round-robin");
    let out = run_match(&[
        "--engine",
        BIN,
        "--engine",
        &scripted,
        "--engine",
        &crash,
        "--each",
        "option.Hash=8",
        "--tournament",
        "round-robin",
        "--games",
        "2",
        "--depth",
        "1",
        "--pdn",
        pdn.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let report = stdout(&out);
    for line in [
        "Games: 6 of 6 played",
        "Score of bashni vs scripted: 2 - 0 - 0  [1.000] 2",
        "Score of bashni vs crash: 2 - 0 - 0  [1.000] 2",
        "Score of scripted vs crash: 2 - 0 - 0  [1.000] 2",
        "Cross table          bashni   scripted      crash",
        "bashni                    -      2.0/2      2.0/2",
        "scripted              0.0/2          -      2.0/2",
        "crash                 0.0/2      0.0/2          -",
    ] {
        assert!(
            report.lines().any(|l| l == line),
            "missing '{line}' in\n{report}"
        );
    }
    let standings: Vec<&str> = report
        .lines()
        .skip_while(|l| !l.starts_with("Rank"))
        .skip(1)
        .take(3)
        .map(|l| l.split_whitespace().nth(1).unwrap_or(""))
        .collect();
    assert_eq!(standings, ["bashni", "scripted", "crash"], "{report}");
    let games = read_games(&pdn);
    assert_eq!(games.len(), 6);
    let mut numbers: Vec<&str> = games.iter().map(|g| tag(g, "GameNumber")).collect();
    numbers.sort();
    assert_eq!(numbers, ["1", "2", "3", "4", "5", "6"]);
    let _ = std::fs::remove_file(&pdn);
}

#[test]
fn sprt_needs_exactly_two_engines() {
    let out = run_match(&[
        "--engine", BIN, "--engine", BIN, "--engine", BIN, "--sprt", "",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("exactly two engines"));
}
