//! Protocol tests: they drive the real binary through stdin/stdout.

mod support;

use bashni_host::info::Info;
use std::time::{Duration, Instant};
use support::engine::{Engine, bestmove_in, exit_after, run_piped};
use support::timing::{check, holds_within_attempts};

fn legal_moves(variant: bashni_rules::Variant, fen: &str) -> Vec<String> {
    let pos = bashni_rules::Position::from_fen(&bashni_rules::RuleSet::new(variant), fen)
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
        "Skill Level type spin default 20 min 0 max 20",
        "UCI_LimitStrength type check default false",
        "KingLanding type combo default continue var continue var free",
        "ForcedCapture type check default true",
        "NoProgressPlies type spin default 50 min 0 max 1000",
        "MaxPlies type spin default 250 min 0 max 100000",
        "EvalFile type string default embedded",
    ] {
        let wanted = format!("option name {option}");
        assert!(lines.contains(&wanted), "missing '{wanted}' in {lines:#?}");
    }
}

#[test]
fn every_go_form_ends_in_a_legal_bestmove() {
    let mut e = Engine::start();
    let after_move = legal_moves(bashni_rules::Variant::Bashni, &{
        let mut p = bashni_rules::Position::start(&bashni_rules::RuleSet::new(
            bashni_rules::Variant::Bashni,
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

/// A fixed movetime is used to its end (less `Move Overhead`), as
/// Stockfish does, in both variants and with one or two threads: the
/// engine never answers early just because its next iteration would not
/// finish. A loaded machine can only make the answer later.
#[test]
fn go_movetime_thinks_for_the_whole_time() {
    for (variant, threads) in [("bashni", 1), ("lasca", 1), ("bashni", 2)] {
        let mut e = Engine::start();
        e.send(&format!("setoption name UCI_Variant value {variant}"));
        e.send(&format!("setoption name Threads value {threads}"));
        e.send("setoption name Move Overhead value 10");
        e.send("position startpos");
        e.sync();
        let asked = Instant::now();
        e.send("go movetime 300");
        e.bestmove();
        let took = asked.elapsed();
        assert!(
            took >= Duration::from_millis(290),
            "{variant}, {threads} thread(s): answered after {took:?}"
        );
    }
}

#[test]
fn stop_ends_an_infinite_search_promptly() {
    holds_within_attempts("stop ends go infinite within 2 s", || {
        let mut e = Engine::start();
        e.send("position startpos");
        e.send("go infinite");
        std::thread::sleep(Duration::from_millis(200));
        let asked = Instant::now();
        e.send("stop");
        let mv = e.bestmove();
        assert!(legal_moves(bashni_rules::Variant::Bashni, BASHNI_START).contains(&mv));
        let took = asked.elapsed();
        check(took < Duration::from_secs(2), || format!("took {took:?}"))
    });
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
    // As Stockfish: the host learns the result before `bestmove (none)`.
    assert_eq!(
        e.until("bestmove"),
        ["info depth 0 score mate 0", "bestmove (none)"]
    );
    e.send("position fen B:a1w 0 1");
    e.send("go depth 3");
    assert_eq!(
        e.until("bestmove"),
        ["info depth 0 score mate 0", "bestmove (none)"]
    );
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
        "go winc 100",
        "position fen x",
        "bench 5",
        "bench --depth",
        "bench --depth 0",
        "bench --fast",
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
fn error_lines_say_what_is_wrong_and_where() {
    let mut e = Engine::start();
    for (bad, message) in [
        (
            "setoption name UCI_Variant value chess",
            "option UCI_Variant: unknown variant 'chess' (expected bashni or lasca)",
        ),
        (
            "setoption name KingLanding value anywhere",
            "option KingLanding: unknown king landing 'anywhere' (expected continue or free)",
        ),
        (
            "setoption name ForcedCapture value maybe",
            "option ForcedCapture takes true or false",
        ),
        (
            "setoption name MultiPV value 99",
            "option MultiPV: 99 is outside 1..64",
        ),
        (
            "setoption name Skill Level value -1",
            "option Skill Level: -1 is outside 0..20",
        ),
        ("setoption name Nope value 1", "unknown option 'Nope'"),
        (
            "position fen W:c3wbw 0 1",
            "bad position 'W:c3wbw 0 1': column on c3 alternates colours, which no game can reach",
        ),
        (
            "position startpos moves c3-d4 c3-d4",
            "move 2 of position: illegal move 'c3-d4'",
        ),
        ("position", "position: expected startpos or fen"),
        ("go depth 0", "go depth: must be at least 1"),
        (
            "go movetime x",
            "go movetime: 'x' is not a non-negative whole number",
        ),
        ("go winc 100", "go: winc needs wtime and btime"),
        ("frobnicate", "unknown command 'frobnicate'"),
    ] {
        e.send(bad);
        assert_eq!(e.sync(), [format!("info string error: {message}")], "{bad}");
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
    assert_eq!(e.fen(), bashni_rules::Variant::Lasca.start_fen());
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
    assert!(legal_moves(bashni_rules::Variant::Bashni, BASHNI_START).contains(&mv));
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
    for level in 0..=20 {
        e.send(&format!("setoption name Skill Level value {level}"));
        e.send("position startpos");
        e.send("go depth 8");
        let mv = e.bestmove();
        assert!(legal_moves(bashni_rules::Variant::Bashni, BASHNI_START).contains(&mv));
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
    // The network in force is the score `eval` ends with; the linear
    // terms come before it for comparison, alone once it is linear.
    e.send("position startpos");
    e.send("eval");
    let network = e.sync();
    let last = network.last().map(String::as_str).unwrap_or_default();
    assert!(
        last.starts_with("network score, side to move (White): "),
        "{network:#?}"
    );
    assert!(network.iter().any(|l| l.contains("(EvalFile embedded)")));
    e.send("setoption name EvalFile value linear");
    e.send("eval");
    let linear = e.sync();
    assert!(
        linear[0].starts_with("the linear evaluation (EvalFile linear), which the search uses"),
        "{linear:#?}"
    );
    assert!(!linear.iter().any(|l| l.contains("network")), "{linear:#?}");
}

#[test]
fn two_threads_play_legal_moves_and_stop_promptly() {
    let mut e = Engine::start();
    e.send("setoption name Threads value 2");
    e.send("position startpos moves c3-d4");
    e.send("go depth 6");
    let mv = e.bestmove();
    assert!(e.fen().starts_with("B:"));
    let mut p =
        bashni_rules::Position::start(&bashni_rules::RuleSet::new(bashni_rules::Variant::Bashni));
    let first = p.parse_move("c3-d4").unwrap();
    p.make(&first);
    assert!(legal_moves(bashni_rules::Variant::Bashni, &p.to_fen()).contains(&mv));
    holds_within_attempts("stop ends go infinite within 2 s", || {
        e.send("go infinite");
        std::thread::sleep(Duration::from_millis(200));
        let asked = Instant::now();
        e.send("stop");
        e.bestmove();
        let took = asked.elapsed();
        check(took < Duration::from_secs(2), || format!("took {took:?}"))
    });
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
fn forced_capture_option_allows_plain_moves_beside_a_capture() {
    // White's man on c3 can take d4 (landing on e5); b2 and g3 could step.
    let perft = |e: &mut Engine| {
        e.send("go perft 1");
        let mut lines = e.until("Nodes searched:");
        lines.pop();
        lines
    };
    let mut e = Engine::start();
    e.send("position fen W:b2w,c3w,g3w,d4b,h8b 0 1");
    assert_eq!(perft(&mut e), ["c3xe5: 1"]);
    e.send("setoption name ForcedCapture value false");
    // The set position stays; only the capture rule changes.
    assert_eq!(e.fen(), "W:b2w,c3w,g3w,d4b,h8b 0 1");
    assert_eq!(
        perft(&mut e),
        ["b2-a3: 1", "c3-b4: 1", "c3xe5: 1", "g3-f4: 1", "g3-h4: 1"]
    );
    // A plain move beside the capture is accepted in `moves`, and the
    // search answers one of the moves legal under the option.
    e.send("position fen W:b2w,c3w,g3w,d4b,h8b 0 1 moves g3-h4");
    assert_eq!(e.fen(), "B:b2w,c3w,d4b,h4w,h8b 0 1");
    e.send("position fen W:b2w,c3w,g3w,d4b,h8b 0 1");
    e.send("go depth 6");
    let optional =
        bashni_rules::RuleSet::new(bashni_rules::Variant::Bashni).with_forced_capture(false);
    let pos = bashni_rules::Position::from_fen(&optional, "W:b2w,c3w,g3w,d4b,h8b 0 1").unwrap();
    let legal: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
    let reply = e.bestmove();
    assert!(legal.contains(&reply), "{reply} not in {legal:?}");
    // The option holds for Lasca as well, and goes back on.
    e.send("setoption name UCI_Variant value lasca");
    e.send("position fen W:c3w,d4b,g7b 0 1");
    assert_eq!(perft(&mut e), ["c3-b4: 1", "c3xe5: 1"]);
    e.send("setoption name ForcedCapture value true");
    assert_eq!(perft(&mut e), ["c3xe5: 1"]);
    e.send("setoption name ForcedCapture value maybe");
    let lines = e.sync();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("info string error: option ForcedCapture"),
        "{lines:?}"
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
    assert!(legal_moves(bashni_rules::Variant::Bashni, BASHNI_START).contains(&e.bestmove()));
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
fn stop_ends_a_long_perft_and_the_engine_goes_on() {
    let mut e = Engine::start();
    e.send("go perft 30");
    std::thread::sleep(Duration::from_millis(200));
    e.send("stop");
    let said = e.until("info string perft stopped");
    assert!(
        !said.iter().any(|l| l.starts_with("Nodes searched")),
        "no count for a perft stopped: {said:?}"
    );
    // A perft after it counts as ever (the stop was the last one's).
    e.send("go perft 3");
    let counted = e.until("Nodes searched");
    assert_eq!(
        counted.last().map(String::as_str),
        Some("Nodes searched: 302")
    );
    // Piped with a `quit` behind it, a perft counts, then quits.
    let out = run_piped(b"go perft 3\nquit\n");
    assert!(out.contains("Nodes searched: 302"), "{out}");
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

/// Each error of the command line is one line that names what is wrong:
/// the argument missing, or the option a bad value was given to.
#[test]
fn command_line_errors_are_one_line_with_exit_code_2() {
    let named = [
        (&["perft"][..], "<DEPTH>"),
        (&["perft", "-1"], "'-1' for '<DEPTH>'"),
        (&["match", "--games", "-1"], "'-1' for '--games"),
        (&["selfplay", "--games", "1"], "--out"),
    ];
    for (args, words) in named {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_bashni"))
            .args(args)
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(words), "{args:?} names {words}: {stderr}");
    }
    for args in [
        &["perft", "4000000000"][..],
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

/// The numbers of the debug line `info string time plan P soft S hard H
/// used U ms`: the engine's own plan and what it used.
#[derive(Debug)]
struct TimeLine {
    plan: u64,
    soft: u64,
    hard: u64,
    used: u64,
}

fn time_line(lines: &[String]) -> TimeLine {
    let line = lines
        .iter()
        .find(|l| l.starts_with("info string time plan "))
        .unwrap_or_else(|| panic!("no time line in {lines:#?}"));
    let n: Vec<u64> = line
        .split_whitespace()
        .filter_map(|t| t.parse().ok())
        .collect();
    let [plan, soft, hard, used] = n[..] else {
        panic!("bad time line: {line}")
    };
    TimeLine {
        plan,
        soft,
        hard,
        used,
    }
}

fn plan_for(
    time: u64,
    increment: u64,
    moves_to_go: Option<u64>,
) -> bashni_engine::search::TimeBudget {
    let clock = bashni_engine::search::Clock {
        time,
        increment,
        moves_to_go,
    };
    bashni_engine::search::TimeBudget::for_clock(clock, 10)
}

#[test]
fn a_clock_move_keeps_close_to_its_plan() {
    // Seen before the fix: 1312 ms thought against a plan of 333 (and
    // 2283 ms with movestogo 20), because an iteration started just before
    // the plan ran on to the hard limit.
    let mut e = Engine::start();
    e.send("debug on");
    for (go, budget) in [
        ("go wtime 10000 btime 10000", plan_for(10_000, 0, None)),
        (
            "go wtime 10000 btime 10000 winc 200 binc 200 movestogo 20",
            plan_for(10_000, 200, Some(20)),
        ),
    ] {
        holds_within_attempts(go, || {
            e.send("ucinewgame");
            e.send("position startpos moves c3-d4");
            e.send(go);
            let t = time_line(&e.until("bestmove"));
            assert_eq!(t.plan, budget.optimum.as_millis() as u64, "{go}");
            assert_eq!(t.hard, budget.maximum.as_millis() as u64, "{go}");
            assert!(t.hard <= 3 * t.plan, "{go}: {t:?}");
            assert!(t.soft <= t.hard, "{go}: {t:?}");
            // Never past the hard limit (checked every 256 nodes): the
            // iteration that starts late is cut, not run to its end.
            check(t.used <= t.hard + 25, || {
                format!("past the hard limit: {t:?}")
            })
        });
    }
}

/// Two threads keep every move of a fast game within its hard limit, in
/// both variants. Only one thread watches the clock, so a search in
/// which that thread stops looking while the other one works (a
/// tree-splitting build did so while its main thread waited at a split
/// point: two games of 234 lost on time) passes the limit. A fixed
/// movetime is used to its end, so its last iteration is always the one
/// the limit cuts; a clock move is cut only now and then.
#[test]
fn two_threads_keep_every_move_within_the_hard_limit() {
    const PLIES: usize = 30;
    let searches = [
        "go movetime 150",
        "go wtime 3000 btime 3000 winc 30 binc 30",
    ];
    for variant in ["bashni", "lasca"] {
        let mut e = Engine::start();
        e.send("debug on");
        e.send(&format!("setoption name UCI_Variant value {variant}"));
        e.send("setoption name Threads value 2");
        let mut position = String::from("position startpos moves");
        for ply in 0..PLIES {
            let mut best = String::new();
            holds_within_attempts(&format!("{variant} ply {ply}"), || {
                e.send(&position);
                let go = searches[ply % 2];
                e.send(go);
                let lines = e.until("bestmove");
                best = bestmove_in(&lines);
                if best == "(none)" {
                    return Ok(());
                }
                let t = time_line(&lines);
                check(t.used <= t.hard + 25, || {
                    format!("{variant} ply {ply}, {go}: past the hard limit: {t:?}")
                })
            });
            if best == "(none)" {
                break;
            }
            position = format!("{position} {best}");
        }
    }
}

#[test]
fn pondering_time_counts_after_ponderhit() {
    // Longer than the hard limit (1950 ms on this clock).
    let waited = plan_for(10_000, 0, None).maximum + Duration::from_millis(300);
    let waited_ms = waited.as_millis() as u64;
    holds_within_attempts("ponderhit after the plan", || {
        let mut e = Engine::start();
        e.send("debug on");
        e.send("position startpos moves c3-d4");
        e.send("go ponder wtime 10000 btime 10000");
        // readyok during a search: the search has started.
        e.sync();
        std::thread::sleep(waited);
        e.send("ponderhit");
        let t = time_line(&e.until("bestmove"));
        // The plan and even the hard limit were spent pondering: the answer
        // comes at once instead of after a fresh plan.
        assert!(t.hard < waited_ms, "{t:?}");
        // The search's clock starts on its own thread, a few ms after the
        // `readyok` that let this test start waiting.
        check(t.used + 50 >= waited_ms, || {
            format!("pondering not counted: {t:?}")
        })?;
        check(t.used < waited_ms + t.plan, || {
            format!("a fresh plan after ponderhit: {t:?}")
        })
    });
}

/// The scores of the `info` lines of one depth, by multipv (a mate as
/// `bashni_host`'s one number for it), and the line 1 move. The lines are
/// read by the hosts' own parser, so the test reads what a host reads.
fn multipv_scores(lines: &[String], depth: u32) -> Vec<(usize, i64, String)> {
    let mut found: Vec<(usize, i64, String)> = Vec::new();
    let reports = lines.iter().filter_map(|l| Info::parse(l));
    for info in reports.filter(|i| i.depth == Some(depth)) {
        let k = info.multipv as usize;
        let score = i64::from(info.score.expect("a score").centipawns());
        found.retain(|f| f.0 != k);
        found.push((k, score, info.pv.first().expect("a pv").clone()));
    }
    found.sort();
    found
}

#[test]
fn multipv_lines_are_best_first_and_bestmove_is_line_one() {
    // Openings where line 1 used to report a lower score than line 2.
    let positions = [
        "W:a1w,c1w,e1w,g1w,b2w,d2w,f2w,h2w,a3w,c3w,d4w,h4w,a5b,g5b,d6b,f6b,a7b,c7b,e7b,g7b,b8b,d8b,f8b,h8b 0 3",
        "W:a1w,c1w,e1w,g1w,b2w,d2w,f2w,h2w,a3w,e3w,d4w,f4w,c5b,b6b,d6b,f6b,h6b,a7b,e7b,g7b,b8b,d8b,f8b,h8b 0 3",
        "W:a1w,c1w,e1w,g1w,b2w,d2w,f2w,h2w,a3w,e3w,d4w,h4w,a5b,e5b,f6b,h6b,a7b,c7b,e7b,g7b,b8b,d8b,f8b,h8b 0 3",
    ];
    let mut e = Engine::start();
    e.send("setoption name MultiPV value 3");
    for fen in positions {
        e.send("ucinewgame");
        e.send(&format!("position fen {fen}"));
        e.send("go depth 6");
        let lines = e.until("bestmove");
        for depth in 1..=6 {
            let scores = multipv_scores(&lines, depth);
            assert_eq!(scores.len(), 3, "{fen} depth {depth}: {lines:#?}");
            assert!(
                scores.windows(2).all(|w| w[0].1 >= w[1].1),
                "{fen} depth {depth}: {scores:?}"
            );
        }
        let best = bestmove_in(&lines);
        assert_eq!(best, multipv_scores(&lines, 6)[0].2, "{fen}");
    }
}

/// Run the engine on `input` and wait at most 10 s for it to exit.
fn run_until_exit(input: &str) -> String {
    use std::io::{Read, Write};
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_bashni"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("engine starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{input:?}: the engine outlived its input");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    out
}

#[test]
fn a_search_without_limit_ends_with_the_input() {
    for go in [
        "go",
        "go infinite",
        "go searchmoves c3-d4",
        "go mate 40",
        "go ponder",
    ] {
        let out = run_until_exit(&format!("position startpos\n{go}\n"));
        let best = out.lines().last().unwrap_or("");
        assert!(best.starts_with("bestmove "), "{go}: {out}");
        if go.contains("searchmoves") {
            // A ponder move follows when the line has a second move yet.
            assert!(
                best == "bestmove c3-d4" || best.starts_with("bestmove c3-d4 ponder "),
                "{best}"
            );
        }
    }
}

#[test]
fn a_clock_part_without_the_clock_is_an_error() {
    let mut e = Engine::start();
    for (go, part) in [
        ("go winc 100", "winc"),
        ("go binc 100", "binc"),
        ("go movestogo 5", "movestogo"),
    ] {
        e.send(go);
        assert_eq!(
            e.sync(),
            [format!(
                "info string error: go: {part} needs wtime and btime"
            )],
            "{go}"
        );
    }
}

#[test]
fn a_closed_stdout_ends_the_engine_quietly() {
    use std::io::{BufRead, BufReader, Write};
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_bashni"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("engine starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    writeln!(stdin, "position startpos\ngo infinite").unwrap();
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(first.starts_with("info depth 1 "), "{first}");
    drop(stdout); // the host went away while the engine reports
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "engine still running");
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(status.success(), "{status:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn analyse_into_a_closed_pipe_exits_cleanly() {
    use std::io::{BufRead, BufReader};
    let dir = std::env::temp_dir().join(format!("bashni-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("positions.txt");
    std::fs::write(&file, "W:a1W,h8B 0 1\n".repeat(2000)).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_bashni"))
        .args(["analyse", file.to_str().unwrap(), "--depth", "1"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("bashni analyse starts");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap(); // `| head -1`
    let output = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{:?}: {err}", output.status);
    assert!(!err.contains("panicked"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn lasca_is_never_drawn_by_repetition() {
    // Bashni reports the third occurrence (threefold_repetition_in_the_moves_is_reported);
    // Lasca has no draw rule, so the same cycle is no draw there.
    let mut e = Engine::start();
    e.send("setoption name UCI_Variant value lasca");
    e.send("position fen W:a1W,g7B 0 1 moves a1-b2 g7-f6 b2-a1 f6-g7 a1-b2 g7-f6 b2-a1 f6-g7");
    e.send("go depth 2");
    let lines = e.until("bestmove");
    assert!(
        lines.iter().all(|l| !l.starts_with("info string")),
        "{lines:#?}"
    );
    assert!(lines.iter().any(|l| l.starts_with("info depth 2 ")));
}

#[test]
fn a_loss_beats_a_draw_rule_on_the_same_move() {
    // Every white move is the 50th quiet ply, and every one leaves Black
    // without a legal move: a win, not a draw (docs/rules.md).
    let mut e = Engine::start();
    e.send("position fen W:d4W,f6W,a7W 49 10");
    e.send("go depth 3");
    let lines = e.until("bestmove");
    let last_info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .unwrap();
    assert!(last_info.contains(" score mate 1 "), "{lines:#?}");
    // And a position drawn by a rule where the side to move cannot move
    // is a loss: no "drawn" note.
    e.send("position fen B:d4W,f6W,a7W 50 10");
    e.send("go depth 1");
    let lines = e.until("bestmove");
    assert!(lines.iter().all(|l| !l.contains("drawn")), "{lines:#?}");
}

#[test]
fn every_position_the_engine_prints_it_reads_back() {
    let mut e = Engine::start();
    // At the largest move number a position string may hold, a move must
    // not make the engine print a number it then refuses.
    for start in ["B:a3W,h8B 0 1073741823", "B:a3W,h8B 0 1073741824"] {
        e.send(&format!("position fen {start} moves h8-g7"));
        assert_eq!(e.sync(), Vec::<String>::new(), "{start}");
        let fen = e.fen();
        e.send(&format!("position fen {fen}"));
        assert_eq!(e.sync(), Vec::<String>::new(), "{start}: {fen} is refused");
        assert_eq!(e.fen(), fen);
    }
}

/// The nodes of the last `info` before the next `bestmove`, the table
/// cleared first so that only the evaluation decides them.
fn nodes_to_depth(e: &mut Engine, depth: u32) -> u64 {
    e.send("setoption name Clear Hash");
    e.send(&format!("go depth {depth}"));
    e.until("bestmove")
        .iter()
        .filter_map(|l| Info::parse(l)?.nodes)
        .next_back()
        .expect("an info line with nodes")
}

/// The engine searches with its variant's built-in network unless told
/// otherwise: `EvalFile embedded` searches node for node as the default,
/// `linear` otherwise; a file that does not load is one error line and the
/// network stays; a new variant loads that variant's network.
#[test]
fn the_embedded_network_is_the_default_evaluation() {
    let mut e = Engine::start();
    for variant in ["bashni", "lasca"] {
        e.send(&format!("setoption name UCI_Variant value {variant}"));
        assert_eq!(e.sync(), Vec::<String>::new(), "{variant}");
        e.send("position startpos");
        let default = nodes_to_depth(&mut e, 8);
        e.send("setoption name EvalFile value linear");
        let linear = nodes_to_depth(&mut e, 8);
        assert_ne!(default, linear, "{variant}: the default is not linear");
        e.send("setoption name EvalFile value /nonexistent/net.nnue");
        let lines = e.sync();
        assert!(
            lines.len() == 1
                && lines[0]
                    .starts_with("info string error: option EvalFile: /nonexistent/net.nnue: "),
            "{lines:#?}"
        );
        assert_eq!(nodes_to_depth(&mut e, 8), linear, "{variant}: kept linear");
        e.send("setoption name EvalFile value embedded");
        assert_eq!(nodes_to_depth(&mut e, 8), default, "{variant}");
    }
}

/// The deepest `info depth` before the next `bestmove`.
fn deepest_iteration(e: &mut Engine) -> u32 {
    e.until("bestmove")
        .iter()
        .filter_map(|l| Info::parse(l)?.depth)
        .max()
        .unwrap_or(0)
}

#[test]
fn skill_level_zero_searches_one_ply_and_full_strength_searches_on() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go depth 9");
    assert_eq!(deepest_iteration(&mut e), 9, "the default is full strength");
    e.send("setoption name Skill Level value 0");
    e.send("go depth 9");
    assert_eq!(deepest_iteration(&mut e), 1);
    e.send("setoption name Skill Level value 11");
    e.send("go depth 9");
    assert_eq!(
        deepest_iteration(&mut e),
        7,
        "level 11 is the ladder's depth-7 rival"
    );
    // UCI_Elo only counts with UCI_LimitStrength.
    e.send("setoption name Skill Level value 20");
    let weakest = bashni_engine::search::ELO_RANGE.0;
    e.send(&format!("setoption name UCI_Elo value {weakest}"));
    e.send("go depth 9");
    assert_eq!(deepest_iteration(&mut e), 9);
}

#[test]
fn uci_elo_at_its_minimum_plays_the_weakest_level() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.until("uciok");
    let (min, max) = bashni_engine::search::ELO_RANGE;
    let declared = format!("option name UCI_Elo type spin default {min} min {min} max {max}");
    assert!(lines.contains(&declared), "{lines:#?}");
    e.send("setoption name UCI_LimitStrength value true");
    e.send(&format!("setoption name UCI_Elo value {min}"));
    e.send("position startpos");
    e.send("go depth 9");
    assert_eq!(deepest_iteration(&mut e), 1);
}

#[test]
fn bench_takes_the_command_line_arguments() {
    let mut e = Engine::start();
    e.send("bench --depth 5 --threads 1 --hash 64");
    let lines = e.until("Total time");
    let last = e.line();
    // The count of `bashni bench --depth 5` (docs/benchmarks.md).
    assert_eq!(
        last.split_whitespace().next(),
        Some("14623"),
        "{lines:#?} {last}"
    );
    // And with the linear evaluation, kept for comparison.
    e.send("bench --depth 5 --eval-file linear");
    let lines = e.until("Total time");
    let last = e.line();
    assert_eq!(
        last.split_whitespace().next(),
        Some("17687"),
        "{lines:#?} {last}"
    );
}

#[test]
fn help_says_that_no_subcommand_starts_the_protocol() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bashni"))
        .arg("--help")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("With no subcommand, bashni starts the engine protocol"),
        "{text}"
    );
}

#[test]
fn the_session_in_the_protocol_page_is_legal() {
    // docs/protocol.md shows a captured session: its position, best move
    // and ponder move must be playable.
    let page = include_str!("../docs/protocol.md");
    let session = page.split("## A session").nth(1).expect("a session");
    let position = session
        .lines()
        .find_map(|l| l.strip_prefix("> position startpos moves "))
        .expect("a position line");
    let best = session
        .lines()
        .find_map(|l| l.strip_prefix("< bestmove "))
        .expect("a bestmove line");
    let mut pos = bashni_rules::Position::start(&bashni_rules::RuleSet::default());
    let words: Vec<&str> = position
        .split_whitespace()
        .chain(best.split_whitespace())
        .collect();
    for word in words.into_iter().filter(|&w| w != "ponder") {
        let mv = pos
            .parse_move(word)
            .unwrap_or_else(|e| panic!("{word} in the session: {e}"));
        pos.make(&mv);
    }
}
