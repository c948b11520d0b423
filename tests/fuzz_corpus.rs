//! Every committed fuzz corpus file (`fuzz/corpus/<target>/*`) replayed
//! through the very checks the cargo-fuzz targets run (`fuzz/checks.rs`),
//! on the stable toolchain: a finding, once its input is in the corpus,
//! stays guarded by `cargo test`. Named regression tests below keep each
//! crash the fuzzers found.

#[path = "../fuzz/checks.rs"]
mod checks;

use std::path::Path;

fn corpus_files(target: &str) -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("corpus {}: {e}", dir.display()))
        .map(|entry| entry.expect("corpus entry").path())
        .collect();
    files.sort();
    files
}

#[test]
fn every_target_has_a_committed_corpus() {
    for (target, _) in checks::TARGETS {
        assert!(!corpus_files(target).is_empty(), "no corpus for {target}");
    }
}

#[test]
fn every_corpus_file_passes_its_target() {
    for (target, check) in checks::TARGETS {
        for file in corpus_files(target) {
            let data = std::fs::read(&file).expect("corpus file");
            let outcome = std::panic::catch_unwind(|| check(&data));
            assert!(outcome.is_ok(), "{target}: {} fails", file.display());
        }
    }
}

/// Every game the PDN reader accepts is written and read back unchanged.
fn assert_pdn_round_trip(text: &str) {
    let Ok(games) = bashni_host::pdn::parse_pdn(text) else {
        return; // refusing the text is an answer too
    };
    for game in games {
        let written = game.to_pdn();
        let again = bashni_host::pdn::parse_pdn(&written);
        assert_eq!(again, Ok(vec![game]), "written as {written:?}");
    }
}

/// Fuzzer findings (pdn target, corpus files `finding-numbered-result` and
/// `finding-numbered-comment`): `2.*` is the result `*` (a move `*` would
/// read back as a result and start a second game), and `2.{note}` is a
/// number then a comment.
#[test]
fn pdn_numbered_result_or_comment_is_not_read_as_a_move() {
    assert_pdn_round_trip("1. c3-d4 2.* *\n");
    assert_pdn_round_trip("1. c3-d4 f6-g5 2.{note} g3-h4 *\n");
    let games = bashni_host::pdn::parse_pdn("1. c3-d4 2.*\n1. e3-f4 27.1-1\n");
    let games = games.expect("numbered results end their games");
    assert_eq!(games.len(), 2);
    assert_eq!(
        (games[0].moves.as_slice(), games[0].result.as_str()),
        (&["c3-d4".to_string()][..], "*")
    );
    assert_eq!(
        (games[1].moves.as_slice(), games[1].result.as_str()),
        (&["e3-f4".to_string()][..], "1-1")
    );
}

/// Fuzzer finding (pdn target, corpus file `2634e215…`): a comment with a
/// run of spaces, wrapped by the writer at that run, read back with one
/// space fewer. Whitespace in a comment is now read as single spaces.
#[test]
fn pdn_comment_whitespace_survives_wrapping() {
    let comment = format!("{{{}  b\t\tc}}", "a".repeat(76));
    assert_pdn_round_trip(&format!("1. c3-d4 {comment} *\n"));
    let games = bashni_host::pdn::parse_pdn("1. c3-d4 { x \n  y\tz } *\n").expect("a game");
    assert_eq!(games[0].comments, vec![Some("x y z".to_string())]);
}

#[test]
fn pdn_games_read_back_unchanged() {
    assert_pdn_round_trip(
        "[Event \"a \\\"b\\\" \\\\ c\"]\n[FEN \"B:c3w,f6b 0 7\"]\n\n7... f6-g5 8. c3-d4 {note} *\n",
    );
}
