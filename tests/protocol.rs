//! Protocol tests: they drive the real binary through stdin/stdout.

mod support;

use std::time::{Duration, Instant};
use support::engine::{Engine, exit_after, run_piped};

fn legal_moves(variant: bashni::rules::Variant, fen: &str) -> Vec<String> {
    let pos = bashni::rules::Position::from_fen(&bashni::rules::RuleSet::new(variant), fen)
        .expect("valid fen");
    pos.legal_moves().iter().map(|m| m.to_string()).collect()
}

const BASHNI_START: &str = "W:a1w,c1w,e1w,g1w,b2w,d2w,f2w,h2w,a3w,c3w,e3w,g3w,b6b,d6b,f6b,h6b,a7b,c7b,e7b,g7b,b8b,d8b,f8b,h8b 0 1";

#[test]
fn uci_handshake_declares_every_option() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.until("uciok");
    assert!(lines.iter().any(|l| l.starts_with("id name ")));
    assert!(lines.iter().any(|l| l.starts_with("id author ")));
    for option in [
        "UCI_Variant type combo default bashni var bashni var lasca",
        "Threads type spin default 1 min 1 max 1024",
        "Hash type spin default 64 min 1 max 65536",
        "Clear Hash type button",
        "MultiPV type spin default 1 min 1 max 64",
        "Ponder type check default false",
        "Move Overhead type spin default 10 min 0 max 5000",
        "Skill Level type spin default 0 min 0 max 7",
        "KingLanding type combo default continue var continue var free",
        "NoProgressPlies type spin default 50 min 0 max 1000",
        "MaxPlies type spin default 250 min 0 max 100000",
    ] {
        let wanted = format!("option name {option}");
        assert!(lines.contains(&wanted), "missing '{wanted}' in {lines:#?}");
    }
}

#[test]
fn every_go_form_ends_in_a_legal_bestmove() {
    let mut e = Engine::start();
    let after_move = legal_moves(bashni::rules::Variant::Bashni, &{
        let mut p = bashni::rules::Position::start(&bashni::rules::RuleSet::new(
            bashni::rules::Variant::Bashni,
        ));
        let mv = p.parse_move("c3-d4").unwrap();
        p.make(&mv);
        p.to_fen()
    });
    for go in [
        "go depth 3",
        "go movetime 50",
        "go nodes 2000",
        "go wtime 1000 btime 1000",
        "go wtime 500 btime 500 winc 10 binc 10 movestogo 5",
        "go mate 2 depth 4",
        "go depth 2 searchmoves b6-a5 f6-g5",
    ] {
        e.send("position startpos moves c3-d4");
        e.send(go);
        let mv = e.bestmove();
        assert!(after_move.contains(&mv), "{go}: '{mv}' is not legal");
        if go.contains("searchmoves") {
            assert!(["b6-a5", "f6-g5"].contains(&mv.as_str()), "{go}: {mv}");
        }
    }
}

#[test]
fn stop_ends_an_infinite_search_promptly() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    let asked = Instant::now();
    e.send("stop");
    let mv = e.bestmove();
    assert!(
        asked.elapsed() < Duration::from_secs(2),
        "took {:?}",
        asked.elapsed()
    );
    assert!(legal_moves(bashni::rules::Variant::Bashni, BASHNI_START).contains(&mv));
}

#[test]
fn infinite_search_waits_for_stop_even_when_finished() {
    let mut e = Engine::start();
    // One legal move and a proven result: the search ends at once, but
    // `go infinite` must still wait for `stop`.
    e.send("position fen W:c3w,d4b 0 1");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    e.send("isready");
    assert_eq!(
        e.until("readyok")
            .iter()
            .filter(|l| l.starts_with("bestmove"))
            .count(),
        0
    );
    e.send("stop");
    assert_eq!(e.bestmove(), "c3xe5");
}

#[test]
fn isready_during_a_search_is_answered_before_bestmove() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    e.send("isready");
    let lines = e.until("readyok");
    assert!(lines.iter().all(|l| !l.starts_with("bestmove")));
    e.send("stop");
    e.bestmove();
}

#[test]
fn quit_during_a_search_exits() {
    let status = exit_after(
        "position startpos\ngo infinite",
        Duration::from_millis(100),
        "quit",
    );
    assert!(status.expect("engine exits after quit").success());
}

#[test]
fn end_of_input_finishes_queued_work_then_quits() {
    let text = run_piped(b"position startpos\ngo depth 3\n");
    // The search ran to its limit: end of input does not cut it short.
    assert!(
        text.lines().any(|l| l.starts_with("info depth 3 ")),
        "{text}"
    );
    assert!(text.lines().any(|l| l.starts_with("bestmove ")), "{text}");
}

#[test]
fn no_legal_move_gives_bestmove_none() {
    let mut e = Engine::start();
    // White's only column is blocked.
    e.send("position fen W:a1w,b2b,c3b 0 1");
    e.send("go depth 3");
    assert_eq!(e.bestmove(), "(none)");
    e.send("position fen B:a1w 0 1");
    e.send("go depth 3");
    assert_eq!(e.bestmove(), "(none)");
}

#[test]
fn bad_input_gives_one_error_line_and_keeps_the_position() {
    let mut e = Engine::start();
    e.send("position startpos moves c3-d4");
    let before = e.fen();
    for bad in [
        "frobnicate",
        "setoption name Nope value 1",
        "setoption name Threads value 0",
        "setoption name Hash value lots",
        "setoption name UCI_Variant value chess",
        "position fen W:a2w 0 1",
        "position fen W:c3wbw 0 1",
        "position fen X:c3w 0 1",
        "position fen W:c3w,c3b 0 1",
        "position fen W:b8w 0 1",
        "position fen W:c3w 0 x",
        "position startpos moves c3-d4 c3-d4",
        "position startpos moves zz",
        "position",
        "go depth -1",
        "go depth 0",
        "go movetime x",
        "go nodes 99999999999999999999999",
        "go searchmoves a1-b2",
        "go wtime 1000 winc 10",
        "position fen x",
    ] {
        e.send(bad);
        let lines = e.sync();
        assert_eq!(lines.len(), 1, "{bad}: {lines:?}");
        assert!(
            lines[0].starts_with("info string error: "),
            "{bad}: {lines:?}"
        );
        assert_eq!(e.fen(), before, "{bad} changed the position");
    }
}

#[test]
fn unknown_tokens_after_a_command_are_ignored() {
    let mut e = Engine::start();
    e.send("uci extra words");
    assert!(e.until("uciok").len() > 3);
    e.send("position startpos moves");
    assert_eq!(e.fen(), BASHNI_START);
}

#[test]
fn setting_the_variant_resets_the_position_and_draw_rules() {
    let mut e = Engine::start();
    e.send("setoption name UCI_Variant value lasca");
    assert_eq!(e.fen(), bashni::rules::Variant::Lasca.start_fen());
    e.send("setoption variant bashni");
    assert_eq!(e.fen(), BASHNI_START);
    e.send("setoption name uci_variant value LASCA");
    e.send("position startpos moves c3-d4");
    assert!(e.fen().starts_with("B:"));
}

#[test]
fn input_notation_variants_are_accepted() {
    let mut e = Engine::start();
    e.send("position fen W:c3w,d4b,f6b 0 1 moves C3:E5:G7");
    assert_eq!(e.fen(), "B:g7wbb 0 1");
    e.send("position fen W:c3w,d4b,f6b 0 1 moves c3xg7");
    assert_eq!(e.fen(), "B:g7wbb 0 1");
}

#[test]
fn go_perft_divides_and_totals() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go perft 3");
    let lines = e.until("Nodes searched:");
    assert_eq!(lines.last().unwrap(), "Nodes searched: 302");
    let sum: u64 = lines[..lines.len() - 1]
        .iter()
        .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 302);
    assert_eq!(lines.len(), 8);
}

#[test]
fn forced_win_is_reported_as_mate() {
    let mut e = Engine::start();
    // White takes the last black column: Black has no move and loses.
    e.send("position fen W:c3w,d4b 0 1");
    e.send("go depth 3");
    let lines = e.until("bestmove");
    assert!(
        lines.iter().any(|l| l.contains("score mate 1")),
        "{lines:#?}"
    );
    assert_eq!(lines.last().unwrap(), "bestmove c3xe5");
}

#[test]
fn a_drawn_position_still_gets_a_move_with_a_note() {
    let mut e = Engine::start();
    e.send("position fen W:a1W,h8B 50 40");
    e.send("go depth 2");
    let lines = e.until("bestmove");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string") && l.contains("drawn"))
    );
    assert_ne!(lines.last().unwrap(), "bestmove (none)");
}

#[test]
fn multipv_reports_distinct_lines() {
    let mut e = Engine::start();
    e.send("setoption name MultiPV value 3");
    e.send("position startpos");
    e.send("go depth 4");
    let lines = e.until("bestmove");
    let depth4: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth 4 "))
        .collect();
    let firsts: std::collections::HashSet<&str> = depth4
        .iter()
        .filter_map(|l| l.split(" pv ").nth(1)?.split_whitespace().next())
        .collect();
    assert!(firsts.len() >= 3, "{depth4:#?}");
    for k in 1..=3 {
        assert!(depth4.iter().any(|l| l.contains(&format!(" multipv {k} "))));
    }
}

#[test]
fn ponder_then_ponderhit_gives_a_bestmove() {
    let mut e = Engine::start();
    e.send("setoption name Ponder value true");
    e.send("position startpos");
    e.send("go ponder wtime 2000 btime 2000");
    std::thread::sleep(Duration::from_millis(100));
    e.send("isready");
    assert!(
        e.until("readyok")
            .iter()
            .all(|l| !l.starts_with("bestmove"))
    );
    e.send("ponderhit");
    let mv = e.bestmove();
    assert!(legal_moves(bashni::rules::Variant::Bashni, BASHNI_START).contains(&mv));
}

#[test]
fn a_single_legal_move_under_a_clock_is_played_at_once() {
    let mut e = Engine::start();
    e.send("position fen W:c3w,d4b,h8b 0 1");
    e.send("go wtime 100000 btime 100000");
    assert_eq!(e.bestmove(), "c3xe5");
}

#[test]
fn skill_levels_play_legal_moves() {
    let mut e = Engine::start();
    for level in 1..=7 {
        e.send(&format!("setoption name Skill Level value {level}"));
        e.send("position startpos");
        e.send("go depth 20");
        let mv = e.bestmove();
        assert!(legal_moves(bashni::rules::Variant::Bashni, BASHNI_START).contains(&mv));
    }
}

#[test]
fn display_and_eval_commands_answer() {
    let mut e = Engine::start();
    e.send("position fen W:d4Wbb,f6b 0 1");
    e.send("d");
    let lines = e.until("Key:");
    assert!(
        lines.iter().any(|l| l.starts_with("d4: height 3")),
        "{lines:#?}"
    );
    e.send("eval");
    let lines = e.sync();
    assert!(!lines.is_empty());
}

#[test]
fn two_threads_play_legal_moves_and_stop_promptly() {
    let mut e = Engine::start();
    e.send("setoption name Threads value 2");
    e.send("position startpos moves c3-d4");
    e.send("go depth 6");
    let mv = e.bestmove();
    assert!(e.fen().starts_with("B:"));
    let mut p = bashni::rules::Position::start(&bashni::rules::RuleSet::new(
        bashni::rules::Variant::Bashni,
    ));
    let first = p.parse_move("c3-d4").unwrap();
    p.make(&first);
    assert!(legal_moves(bashni::rules::Variant::Bashni, &p.to_fen()).contains(&mv));
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    let asked = Instant::now();
    e.send("stop");
    e.bestmove();
    assert!(
        asked.elapsed() < Duration::from_secs(2),
        "took {:?}",
        asked.elapsed()
    );
}

#[test]
fn draw_rule_options_change_what_is_drawn() {
    let mut e = Engine::start();
    // A king ending: 10 plies without progress is nothing by default...
    e.send("position fen W:a1W,h8B 10 20");
    e.send("go depth 1");
    assert!(e.until("bestmove").iter().all(|l| !l.contains("drawn")));
    // ...but a draw once NoProgressPlies is 10.
    e.send("setoption name NoProgressPlies value 10");
    e.send("position fen W:a1W,h8B 10 20");
    e.send("go depth 1");
    assert!(e.until("bestmove").iter().any(|l| l.contains("drawn")));
    // MaxPlies: move 20 with White to move is ply 38.
    e.send("setoption name NoProgressPlies value 0");
    e.send("setoption name MaxPlies value 38");
    e.send("position fen W:a1W,h8B 0 20");
    e.send("go depth 1");
    assert!(e.until("bestmove").iter().any(|l| l.contains("ply limit")));
}

#[test]
fn threefold_repetition_in_the_moves_is_reported() {
    let mut e = Engine::start();
    e.send("position fen W:c1W,h8B 0 1 moves c1-d2 h8-g7 d2-c1 g7-h8 c1-d2 h8-g7 d2-c1 g7-h8");
    e.send("go depth 1");
    assert!(e.until("bestmove").iter().any(|l| l.contains("threefold")));
}

#[test]
fn king_landing_option_changes_the_legal_moves() {
    // The white king on a1 takes c3. Under `continue` it must land on d4,
    // the one square from which it can go on (taking c5); under `free` it
    // may also stop on e5, f6, g7 or h8.
    let perft = |e: &mut Engine| {
        e.send("position fen W:a1W,c3b,c5b 0 1");
        e.send("go perft 1");
        let mut lines = e.until("Nodes searched:");
        lines.pop();
        lines
    };
    let mut e = Engine::start();
    assert_eq!(perft(&mut e), ["a1xd4xa7: 1", "a1xd4xb6: 1"]);
    e.send("setoption name KingLanding value free");
    // The set position stays in force; only the capture rule changes.
    e.send("position fen W:a1W,c3b,c5b 0 1");
    e.send("setoption name KingLanding value continue");
    assert_eq!(e.fen(), "W:a1W,c3b,c5b 0 1");
    e.send("setoption name KingLanding value free");
    assert_eq!(
        perft(&mut e),
        [
            "a1xd4xa7: 1",
            "a1xd4xb6: 1",
            "a1xe5: 1",
            "a1xf6: 1",
            "a1xg7: 1",
            "a1xh8: 1"
        ]
    );
}

#[test]
fn quit_after_piped_commands_answers_them_first() {
    let text = run_piped(b"uci\nisready\nquit\n");
    assert!(text.contains("uciok") && text.contains("readyok"), "{text}");
}

#[test]
fn a_hash_too_big_for_the_machine_does_not_kill_the_engine() {
    let mut e = Engine::start();
    // 64 GiB: refused on most machines (then one error line), accepted on
    // big ones; either way the engine goes on searching.
    e.send("setoption name Hash value 65536");
    let lines = e.sync();
    assert!(
        lines.is_empty()
            || (lines.len() == 1 && lines[0].starts_with("info string error: option Hash")),
        "{lines:?}"
    );
    e.send("setoption name Hash value 1");
    e.send("position startpos");
    e.send("go depth 4");
    assert!(legal_moves(bashni::rules::Variant::Bashni, BASHNI_START).contains(&e.bestmove()));
}

#[test]
fn a_line_that_is_not_utf8_gets_one_error_and_the_engine_goes_on() {
    let text = run_piped(b"isready\n\xffoo\nend of input\nisready\n");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.iter().filter(|l| **l == "readyok").count(),
        2,
        "{text}"
    );
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("info string error:"))
            .count(),
        2,
        "one error for the bad bytes, one for the unknown command: {text}"
    );
}

#[test]
fn quit_interrupts_a_long_perft() {
    // Perft 30 would run for years: only the interruption ends it.
    let mut e = Engine::start();
    e.send("go perft 30");
    std::thread::sleep(Duration::from_millis(200));
    // Answered while the perft runs, so the perft has begun.
    e.sync();
    e.send("quit");
    assert!(e.exits(), "engine still running 5 s after quit");
}

#[test]
fn command_line_errors_are_one_line_with_exit_code_2() {
    for args in [
        &["perft", "-1"][..],
        &["perft", "4000000000"],
        &["bench", "--depth", "0"],
        &["bench", "--hash", "65536", "--depth", "1"],
        &["perft", "--fen", "W:c3wbw", "1"],
        &["analyse", "/no/such/file"],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_bashni"))
            .args(args)
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        // A machine with 64 GiB to spare may run the bench; then no error.
        if args.contains(&"65536") && out.status.success() {
            continue;
        }
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    }
}
