//! Perft against the reference table `tests/data/perft.tsv` (its header
//! says where the counts come from).

use bashni_engine::perft::{divide_parallel, perft_parallel};
use bashni_rules::{KingLanding, Position, RuleSet, Variant, divide, perft};
use std::collections::BTreeSet;

const TABLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/perft.tsv");

/// Rows up to this many leaves run in the test; deeper ones are for manual runs.
const MAX_TEST_NODES: u64 = 2_000_000;

struct Row {
    line: usize,
    variant: Variant,
    options: String,
    landing: KingLanding,
    fen: String,
    depth: u32,
    nodes: u64,
}

impl Row {
    fn position(&self) -> Position {
        let rules = RuleSet::new(self.variant).with_king_landing(self.landing);
        Position::from_fen(&rules, &self.fen)
            .unwrap_or_else(|e| panic!("{}: bad fen {:?}: {e}", self.label(), self.fen))
    }

    fn label(&self) -> String {
        format!(
            "perft.tsv line {}: {} {} fen {:?} depth {}",
            self.line, self.variant, self.options, self.fen, self.depth
        )
    }
}

fn read_table() -> Vec<Row> {
    let text = std::fs::read_to_string(TABLE)
        .unwrap_or_else(|e| panic!("cannot read the reference perft table {TABLE}: {e}"));
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') || line.starts_with("variant\t") {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let [variant, options, fen, depth, nodes] = fields[..] else {
            panic!(
                "perft.tsv line {}: expected 5 tab-separated fields: {line:?}",
                i + 1
            );
        };
        let landing = match options {
            "-" | "king_landing=continue" => KingLanding::Continue,
            "king_landing=free" => KingLanding::Free,
            other => panic!("perft.tsv line {}: unknown options {other:?}", i + 1),
        };
        rows.push(Row {
            line: i + 1,
            variant: variant
                .parse()
                .unwrap_or_else(|e| panic!("line {}: {e}", i + 1)),
            options: options.to_string(),
            landing,
            fen: fen.to_string(),
            depth: depth.parse().expect("depth is a number"),
            nodes: nodes.parse().expect("node count is a number"),
        });
    }
    rows
}

fn fast_rows() -> Vec<Row> {
    read_table()
        .into_iter()
        .filter(|r| r.nodes <= MAX_TEST_NODES)
        .collect()
}

#[test]
fn table_covers_both_variants_and_both_landing_rules() {
    let rows = fast_rows();
    let groups: BTreeSet<(String, String)> = rows
        .iter()
        .map(|r| (r.variant.to_string(), r.options.clone()))
        .collect();
    for (variant, options) in [
        ("bashni", "king_landing=continue"),
        ("bashni", "king_landing=free"),
        ("lasca", "-"),
    ] {
        assert!(
            groups.contains(&(variant.to_string(), options.to_string())),
            "no fast perft rows for {variant} {options}"
        );
    }
}

#[test]
fn perft_matches_reference_table() {
    let rows = fast_rows();
    assert!(
        rows.len() > 100,
        "only {} fast rows in perft.tsv",
        rows.len()
    );
    let failures: Vec<String> = rows
        .iter()
        .filter_map(|row| {
            let got = perft(&mut row.position(), row.depth);
            (got != row.nodes)
                .then(|| format!("{}: expected {}, got {got}", row.label(), row.nodes))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "perft mismatches:\n{}",
        failures.join("\n")
    );
}

/// For each distinct position, the deepest row under a smaller budget.
fn one_row_per_position(budget: u64) -> Vec<Row> {
    let mut chosen: Vec<Row> = Vec::new();
    for row in read_table().into_iter().filter(|r| r.nodes <= budget) {
        match chosen
            .iter_mut()
            .find(|c| c.variant == row.variant && c.options == row.options && c.fen == row.fen)
        {
            Some(c) if c.depth < row.depth => *c = row,
            Some(_) => {}
            None => chosen.push(row),
        }
    }
    chosen
}

#[test]
fn divide_sums_to_perft_and_lists_each_root_move_once() {
    let rows = one_row_per_position(200_000);
    assert!(rows.len() >= 10, "too few positions: {}", rows.len());
    for row in rows {
        let pos = row.position();
        let lines = divide(&pos, row.depth);
        let total: u64 = lines.iter().map(|(_, n)| n).sum();
        assert_eq!(total, row.nodes, "divide total for {}", row.label());

        let mut legal: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
        legal.sort();
        let listed: Vec<String> = lines.iter().map(|(m, _)| m.clone()).collect();
        assert_eq!(
            listed,
            legal,
            "divide's root moves (sorted by text) for {}",
            row.label()
        );

        // Each root move's count is perft one ply lower from the child.
        for (text, count) in &lines {
            let mut child = pos.clone();
            child.make(&pos.parse_move(text).expect("divide lists legal moves"));
            assert_eq!(
                perft(&mut child, row.depth - 1),
                *count,
                "divide line {text} for {}",
                row.label()
            );
        }
    }
}

#[test]
fn parallel_perft_with_two_threads_matches_single_thread() {
    let rows = one_row_per_position(500_000);
    // A handful from each group keeps the test short.
    let mut picked = 0;
    for row in rows.iter().filter(|r| r.depth >= 2) {
        let pos = row.position();
        let single = perft(&mut pos.clone(), row.depth);
        let parallel = perft_parallel(&pos, row.depth, 2);
        assert_eq!(parallel, single, "perft_parallel(2) for {}", row.label());
        assert_eq!(single, row.nodes, "{}", row.label());
        let split = divide_parallel(&pos, row.depth, 2);
        assert_eq!(
            split,
            divide(&pos, row.depth),
            "divide(2) for {}",
            row.label()
        );
        picked += 1;
    }
    assert!(picked >= 5, "only {picked} rows checked in parallel");
}

#[test]
fn perft_leaves_the_position_unchanged() {
    for row in one_row_per_position(50_000) {
        let mut pos = row.position();
        let before = pos.clone();
        perft(&mut pos, row.depth);
        assert_eq!(pos, before, "{}", row.label());
        assert_eq!(pos.key(), pos.key_from_scratch(), "{}", row.label());
    }
}

#[test]
fn perft_depth_zero_is_one_and_depth_one_is_the_move_count() {
    for row in one_row_per_position(u64::MAX) {
        let mut pos = row.position();
        assert_eq!(perft(&mut pos, 0), 1, "{}", row.label());
        assert_eq!(
            perft(&mut pos, 1),
            pos.legal_moves().len() as u64,
            "{}",
            row.label()
        );
        assert_eq!(perft_parallel(&pos, 0, 2), 1, "{}", row.label());
    }
}
