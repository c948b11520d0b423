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
