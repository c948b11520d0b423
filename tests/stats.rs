//! `bashni stats` and `bashni match --shard`: a match cut into shards that
//! run as separate processes, merged by `stats`, gives the same games and
//! the same report as the match played in one piece.

use bashni_host::pdn::{PdnGame, parse_pdn};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_bashni");

fn temp(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("bashni-stats-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

fn book() -> String {
    format!(
        "{}/bench-positions/openings-bashni.txt",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A three-engine round robin at fixed depth: one thread and no random
/// moves make every game the same in every run (weaker `Skill Level`s
/// would pick random moves).
fn match_command(pdn: &Path) -> Command {
    let mut command = Command::new(BIN);
    command.arg("match");
    for (name, hash) in [("a", 8), ("b", 16), ("c", 32)] {
        command.args([
            "--engine",
            &format!("cmd={BIN},name={name},option.Hash={hash}"),
        ]);
    }
    command.args([
        "--games", "4", "--rounds", "2", "--depth", "2", "--seed", "11",
    ]);
    command.args(["--openings", &book(), "--pdn", pdn.to_str().unwrap()]);
    command
}

/// The report after its `Games: ` line, without the PDN line.
fn report(text: &str) -> String {
    assert!(text.lines().any(|l| l.starts_with("Games: ")), "{text}");
    text.lines()
        .skip_while(|l| !l.starts_with("Games: "))
        .skip(1)
        .filter(|l| !l.starts_with("PDN: "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `bashni stats` over these files, which must succeed; its output.
fn stats(files: &[&Path]) -> String {
    let out = Command::new(BIN).arg("stats").args(files).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    stdout(&out)
}

fn games(path: &PathBuf) -> Vec<PdnGame> {
    parse_pdn(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// What must agree between runs: each game's number, players, opening,
/// moves and result.
fn key(game: &PdnGame) -> (u32, String, String, String, Vec<String>, String) {
    let tag = |name: &str| game.tag(name).unwrap_or("").to_string();
    (
        tag("GameNumber").parse().unwrap(),
        tag("White"),
        tag("Black"),
        tag("FEN"),
        game.moves.clone(),
        game.result.clone(),
    )
}

#[test]
fn shards_in_separate_processes_merge_into_the_unsharded_match() {
    let full = temp("full.pdn");
    let out = match_command(&full).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let unsharded = stdout(&out);

    // Three shards at the same time, each its own process and file.
    let shards: Vec<PathBuf> = (1..=3).map(|k| temp(&format!("shard{k}.pdn"))).collect();
    let children: Vec<_> = shards
        .iter()
        .enumerate()
        .map(|(i, path)| {
            match_command(path)
                .args(["--shard", &format!("{}/3", i + 1)])
                .output()
        })
        .collect();
    let mut sizes = Vec::new();
    for (child, path) in children.into_iter().zip(&shards) {
        let out = child.unwrap();
        assert!(out.status.success(), "{out:?}");
        sizes.push(games(path).len());
    }
    // 3 pairings x 8 games = 24 games, 12 pairs dealt out 4 / 4 / 4.
    assert_eq!(sizes, [8, 8, 8]);

    let mut merged: Vec<_> = shards.iter().flat_map(games).map(|g| key(&g)).collect();
    let mut whole: Vec<_> = games(&full).iter().map(key).collect();
    merged.sort();
    whole.sort();
    assert_eq!(merged, whole);

    let from_shards = stats(&shards.iter().map(PathBuf::as_path).collect::<Vec<_>>());
    let from_full = stats(&[&full]);
    assert!(
        from_shards.starts_with("Games: 24 from 3 file(s)"),
        "{from_shards}"
    );
    assert_eq!(report(&from_shards), report(&from_full));
    // And `stats` reproduces the match's own report.
    assert_eq!(report(&from_full), report(&unsharded));
    assert!(from_full.contains("Cross table"), "{from_full}");
    for path in shards.iter().chain([&full]) {
        let _ = std::fs::remove_file(path);
    }
}

#[test]
fn stats_reports_bad_files_in_one_line() {
    let bad = temp("bad.pdn");
    std::fs::write(&bad, "[White \"a\"]\n\n1. c3-d4\n").unwrap();
    let good = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/matches/threads-lasca-10+0.1.pdn");
    let good = good.to_str().unwrap();
    let twice = good.replace("/matches/", "/matches/./");
    for args in [
        vec![bad.to_str().unwrap()],
        vec!["/no/such.pdn"],
        vec![good, &twice],
    ] {
        let out = Command::new(BIN).arg("stats").args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        if args.len() == 2 {
            assert!(stderr.contains("is given twice"), "{stderr}");
        }
    }
    let _ = std::fs::remove_file(&bad);
}

/// The figures docs/strength.md gives for two threads against one in Lasca
/// come from the committed games: `stats` over both samples' PDN files.
/// Expected values computed independently (python3, statistics.NormalDist)
/// from the pentanomial counts: mean pair score m = 220.25 / 400, variance
/// v; Elo -400 log10(1/x - 1) and nElo (x - 1/2) / sqrt(2 v) * 800 / ln 10
/// at m and m -/+ 1.96 sqrt(v / 400).
#[test]
fn stats_reproduces_the_documented_lasca_thread_figures() {
    let matches = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/matches");
    let files = [
        "threads-balanced-lasca-10+0.1.pdn",
        "threads-balanced-lasca-seed137-10+0.1.pdn",
    ]
    .map(|name| matches.join(name));
    let text = stats(&files.each_ref().map(PathBuf::as_path));
    for line in [
        "Score of threads2 vs threads1: 346 - 265 - 189  [0.551] 800",
        "Ptnml(0-2): [7, 29, 264, 76, 24], pairs 400, pair DrawRatio: 66.0 %",
        "Pentanomial Elo: 35.3 +/- 12.5 (95% interval 22.8 .. 47.9), LOS: 100.0 %",
        "Normalized Elo: 68.2 +/- 24.1 (95% interval 44.2 .. 92.3)",
    ] {
        assert!(text.lines().any(|l| l == line), "{line}\n{text}");
    }
}
