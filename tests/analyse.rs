//! `bashni analyse` end to end: EPD-style lines, `startpos`, a file that
//! mixes both variants, and JSON whose scores are numbers.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_bashni");

#[test]
fn a_mixed_epd_file_in_json() {
    let file = std::env::temp_dir().join(format!("bashni-analyse-{}.epd", std::process::id()));
    std::fs::write(
        &file,
        concat!(
            "# White wins a man with a quiet sacrifice (from the tactics file)\n",
            "W:a3w,c3b,a7w bm a3-b4; id \"sac quiet\";\n",
            "startpos variant lasca; id \"lasca start\";\n",
            "startpos id bashni-start;\n",
            // White takes Black's last piece: a win in one move.
            "W:c3w,d4b 0 1 bm c3xe5; id mate-in-1;\n",
        ),
    )
    .unwrap();
    let out = Command::new(BIN)
        .args(["analyse", file.to_str().unwrap(), "--depth", "6", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is JSON"))
        .collect();
    assert_eq!(lines.len(), 5, "{lines:?}");
    assert_eq!(lines[0]["id"], "sac quiet");
    assert_eq!(lines[0]["solved"], true);
    // Deep enough, the sacrifice is seen to win outright.
    assert_eq!(
        lines[0]["score"],
        serde_json::json!({"mate": 5}),
        "{}",
        lines[0]
    );
    assert_eq!(lines[1]["variant"], "lasca");
    assert_eq!(lines[1]["fen"].as_str().unwrap().matches(',').count(), 21);
    assert_eq!(lines[2]["variant"], "bashni");
    assert!(lines[2]["score"]["cp"].is_i64());
    assert!(lines[2]["lines"][0]["score"]["cp"].is_i64());
    assert_eq!(lines[3]["score"], serde_json::json!({"mate": 1}));
    assert_eq!(lines[3]["pv"], serde_json::json!(["c3xe5"]));
    assert_eq!(
        lines[4],
        serde_json::json!({"positions": 4, "solved": 2, "with_best_move": 2})
    );
    let _ = std::fs::remove_file(&file);
}

/// `analyse` and `annotate` take one set of search flags, refused alike:
/// no limit of zero and no two limits at once.
#[test]
fn analyse_and_annotate_refuse_the_same_limits() {
    let bad: [&[&str]; 4] = [
        &["--movetime", "0"],
        &["--depth", "0"],
        &["--nodes", "0"],
        &["--depth", "4", "--nodes", "100"],
    ];
    for command in ["analyse", "annotate"] {
        for flags in bad {
            let out = Command::new(BIN)
                .arg(command)
                .arg("no-such-file")
                .args(flags)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{command} {flags:?}: {stderr}");
            assert!(
                stderr.starts_with("error: "),
                "{command} {flags:?}: {stderr}"
            );
        }
    }
}
