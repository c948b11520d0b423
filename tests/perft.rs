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
    forced_capture: bool,
    fen: String,
    depth: u32,
    nodes: u64,
}

impl Row {
    fn position(&self) -> Position {
        let rules = RuleSet::new(self.variant)
            .with_king_landing(self.landing)
            .with_forced_capture(self.forced_capture);
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

/// The options column: `-` (the defaults) or `;`-separated settings,
/// `king_landing=continue|free` and `forced_capture=true|false`.
fn parse_options(options: &str) -> Result<(KingLanding, bool), String> {
    let (mut landing, mut forced) = (KingLanding::Continue, true);
    if options == "-" {
        return Ok((landing, forced));
    }
    for setting in options.split(';') {
        match setting.split_once('=') {
            Some(("king_landing", value)) => {
                landing = value.parse().map_err(|e| format!("{e}"))?;
            }
            Some(("forced_capture", "true")) => forced = true,
            Some(("forced_capture", "false")) => forced = false,
            _ => return Err(format!("unknown setting {setting:?}")),
        }
    }
    Ok((landing, forced))
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
        let (landing, forced_capture) = parse_options(options)
            .unwrap_or_else(|e| panic!("perft.tsv line {}: {e} in {options:?}", i + 1));
        rows.push(Row {
            line: i + 1,
            variant: variant
                .parse()
                .unwrap_or_else(|e| panic!("line {}: {e}", i + 1)),
            options: options.to_string(),
            landing,
            forced_capture,
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
fn table_covers_both_variants_both_landing_rules_and_optional_captures() {
    let rows = fast_rows();
    let groups: BTreeSet<(String, String)> = rows
        .iter()
        .map(|r| (r.variant.to_string(), r.options.clone()))
        .collect();
    for (variant, options) in [
        ("bashni", "king_landing=continue"),
        ("bashni", "king_landing=free"),
        ("lasca", "-"),
        ("bashni", "king_landing=continue;forced_capture=false"),
        ("bashni", "king_landing=free;forced_capture=false"),
        ("lasca", "forced_capture=false"),
    ] {
        assert!(
            groups.contains(&(variant.to_string(), options.to_string())),
            "no fast perft rows for {variant} {options}"
        );
    }
}

#[test]
fn optional_capture_rows_start_from_positions_with_a_capture_to_ignore() {
    // The forced_capture=false rows must test the option: in each variant
    // several of their positions offer a capture beside plain moves.
    for variant in Variant::ALL {
        let choosing = one_row_per_position(u64::MAX)
            .into_iter()
            .filter(|r| r.variant == variant && !r.forced_capture)
            .filter(|r| {
                let pos = r.position();
                pos.has_capture() && pos.legal_moves().iter().any(|m| !m.is_capture())
            })
            .count();
        assert!(
            choosing >= 4,
            "{variant}: only {choosing} optional-capture positions with a choice"
        );
    }
}

/// The reference generator still reproduces the small rows of the table
/// (the big ones take it minutes). Without python3 this is skipped, except
/// under CI, where it fails.
#[test]
fn reference_generator_reproduces_the_small_rows() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/reference/perft.py");
    let output = match std::process::Command::new("python3")
        .args([script, "--check", TABLE, "--max-nodes", "3000"])
        .output()
    {
        Ok(output) => output,
        Err(e) if std::env::var_os("CI").is_some_and(|v| v == "true") => {
            panic!("python3 is needed under CI: {e}")
        }
        Err(e) => {
            eprintln!("skipped: cannot run python3: {e}");
            return;
        }
    };
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(text.ends_with(", 0 differ\n"), "{text}");
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
