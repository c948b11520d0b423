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
    let Ok(games) = bashni::tournament::pdn::parse_pdn(text) else {
        return; // refusing the text is an answer too
    };
    for game in games {
        let written = game.to_pdn();
        let again = bashni::tournament::pdn::parse_pdn(&written);
        assert_eq!(again, Ok(vec![game]), "written as {written:?}");
    }
}

/// Fuzzer findings (pdn target, corpus files `finding-numbered-result` and
/// `finding-numbered-comment`): the reader strips the move number from
/// `2.*` and `2.{note}` after it has looked for results and comments, and
/// keeps `*` and `{note}` as moves; written out, they read back as a
/// result (the rest becomes a second game) and a comment. Reported to the
/// lead (src/tournament/pdn.rs is not ours).
#[test]
#[ignore = "finding reported: the PDN reader takes `2.*` and `2.{note}` for moves"]
fn pdn_numbered_result_or_comment_is_not_read_as_a_move() {
    assert_pdn_round_trip("1. c3-d4 2.* *\n");
    assert_pdn_round_trip("1. c3-d4 f6-g5 2.{note} g3-h4 *\n");
}

#[test]
fn pdn_games_read_back_unchanged() {
    assert_pdn_round_trip(
        "[Event \"a \\\"b\\\" \\\\ c\"]\n[FEN \"B:c3w,f6b 0 7\"]\n\n7... f6-g5 8. c3-d4 {note} *\n",
    );
}
