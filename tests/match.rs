//! `bashni match` end to end: the real binary plays real games (against
//! itself and against misbehaving fakes), and every PDN it writes must
//! replay legally and agree with its own tags.

use bashni::rules::{KingLanding, Position, RuleSet, Variant};
use bashni::tournament::pdn::{PdnGame, parse_pdn};
use std::collections::HashMap;
use std::path::PathBuf;
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
    let rules = RuleSet::new(variant).with_king_landing(landing);
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
    let termination = tag(game, "Termination");
    let side_to_move_lost = if pos.side_to_move() == bashni::rules::Colour::White {
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
        assert!(
            report.contains("Score of bashni vs other: W/D/L "),
            "{report}"
        );
        assert!(report.contains("Elo difference: "), "{report}");
        let games = read_games(&pdn);
        assert_eq!(games.len(), 4);
        for game in &games {
            assert_eq!(tag(game, "Variant"), variant);
            check_game(game, max_plies);
        }
        // Each opening twice, colours swapped.
        assert_eq!(tag(&games[0], "FEN"), tag(&games[1], "FEN"));
        assert_eq!(tag(&games[0], "White"), tag(&games[1], "Black"));
        let _ = std::fs::remove_file(&pdn);
    }
}

#[test]
fn concurrent_games_under_a_clock_all_reach_the_pdn() {
    let pdn = pdn_path("clock");
    let out = run_match(&[
        "--engine",
        BIN,
        "--engine",
        BIN,
        "--games",
        "4",
        "--tc",
        "40/2+0.05",
        "--concurrency",
        "2",
        "--openings",
        &book("bashni"),
        "--seed",
        "3",
        "--max-plies",
        "40",
        // Tests share the cores: a generous margin keeps a busy machine
        // from turning this into a time-forfeit test.
        "--time-margin-ms",
        "1000",
        "--pdn",
        pdn.to_str().unwrap(),
    ]);
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
        report.contains(&format!("Score of {mode} vs scripted: W/D/L 0/0/4")),
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
        "elo0=200,elo1=400,alpha=0.05,beta=0.05",
        "--pdn",
        pdn.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let report = stdout(&out);
    assert!(report.contains(": H0 accepted"), "{report}");
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
fn an_interrupted_match_keeps_every_finished_game() {
    let pdn = pdn_path("sigint");
    let mut child = Command::new(BIN)
        .args([
            "match", "--engine", BIN, "--engine", BIN, "--games", "1000", "--depth", "2",
        ])
        .args([
            "--openings",
            &book("bashni"),
            "--pdn",
            pdn.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait for a few games, however long the machine takes.
    while std::fs::read_to_string(&pdn).map_or(0, |t| t.matches("[Event ").count()) < 3 {
        assert!(child.try_wait().unwrap().is_none(), "the match ended early");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    child.wait().unwrap();
    let games = read_games(&pdn);
    assert!(games.len() >= 3);
    for game in &games {
        check_game(game, 250);
    }
    let _ = std::fs::remove_file(&pdn);
}

#[test]
fn bad_match_arguments_exit_with_code_2() {
    let fake = fixture("fake_engine.sh");
    for args in [
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
