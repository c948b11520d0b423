//! `bashni annotate` end to end: a fixture game whose first move drops
//! material is marked as a blunder with the engine's better move, and the
//! annotated PDN reads back with the same moves.

use bashni_host::pdn::parse_pdn;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_bashni");

fn fixture() -> String {
    format!("{}/tests/fixtures/blunder.pdn", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_planted_blunder_is_marked_and_the_pdn_reads_back() {
    let output = std::env::temp_dir().join(format!("bashni-annotate-{}.pdn", std::process::id()));
    let out = Command::new(BIN)
        .args([
            "annotate",
            &fixture(),
            "--depth",
            "6",
            "--threads",
            "1",
            "--output",
        ])
        .arg(&output)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let original = parse_pdn(&std::fs::read_to_string(fixture()).unwrap()).unwrap();
    let annotated = parse_pdn(&std::fs::read_to_string(&output).unwrap()).unwrap();
    assert_eq!(annotated.len(), 1);
    let (before, game) = (&original[0], &annotated[0]);
    assert_eq!(game.moves, before.moves);
    assert_eq!(game.result, before.result);
    assert_eq!(game.tag("FEN"), before.tag("FEN"));
    assert_eq!(game.tag("Annotator"), Some("bashni annotate depth 6"));
    // g1-h2 leaves c5-d4 to win material. g3-f4 and a3-b4 both start the
    // shot that wins it for White instead (the same sacrifices in either
    // order); the engine's line begins with the move it names.
    assert_eq!(game.marks[0].as_deref(), Some("??"), "{game:?}");
    let comment = game.comments[0].as_deref().unwrap();
    assert!(
        ["g3-f4", "a3-b4"]
            .iter()
            .any(|m| comment.contains(&format!("best {m} +"))
                && comment.contains(&format!(" line {m} "))),
        "{comment}"
    );
    // Every move has its score; the summary counts the blunder.
    assert!(
        game.comments
            .iter()
            .all(|c| c.as_deref().is_some_and(|c| c.contains("/6")))
    );
    let summary = game.preface.as_deref().unwrap();
    assert!(
        summary.contains("White 0 mistake(s), 1 blunder(s)"),
        "{summary}"
    );
    // Annotating the annotated file gives the same file.
    let again = Command::new(BIN)
        .args(["annotate", output.to_str().unwrap(), "--depth", "6"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&again.stdout),
        std::fs::read_to_string(&output).unwrap()
    );
    let _ = std::fs::remove_file(&output);
}

#[test]
fn an_illegal_move_in_the_file_is_one_error_line() {
    let bad = std::env::temp_dir().join(format!("bashni-annotate-bad-{}.pdn", std::process::id()));
    std::fs::write(&bad, "[Variant \"bashni\"]\n\n1. c3-d4 c3-d4 1-1\n").unwrap();
    let out = Command::new(BIN)
        .args(["annotate", bad.to_str().unwrap(), "--depth", "2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("game 1") && stderr.contains("move 2"),
        "{stderr}"
    );
    let _ = std::fs::remove_file(&bad);
}
