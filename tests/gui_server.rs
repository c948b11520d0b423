//! `bashni gui` (the play server for one person) and the analysis board's
//! messages, driven over the WebSocket as the page drives them, with the
//! real binary: the same page as `serve`, a database in the user's data
//! directory, positions and lines checked by the server, the engine's
//! lines per move, an engine that dies mid-analysis, PDN out and back, and
//! a room started from an edited position.

#[path = "support/serve.rs"]
mod serve;
#[path = "support/socket.rs"]
mod socket;
#[path = "support/temp.rs"]
mod temp;

use serde_json::{Value, json};
use serve::{Serve, create, error, room_state, setup};
use socket::Page;
use std::collections::HashSet;
use temp::TempDir;

fn sqlite(dir: &TempDir) -> String {
    format!("sqlite:{}", dir.path().join("gui.db").display())
}

/// `bashni gui` on a database of the test's own.
fn gui(dir: &TempDir, args: &[&str]) -> Serve {
    let database = sqlite(dir);
    let mut all = vec!["--database", database.as_str()];
    all.extend_from_slice(args);
    Serve::gui(&all, &[])
}

/// Ask for a line on the analysis board: the board's state, or the error.
async fn study(page: &mut Page, message: Value) -> Value {
    page.send(message).await;
    page.until(|m| m["type"] == "study" || m["type"] == "study_refused" || m["type"] == "error")
        .await
        .0
}

fn position(variant: &str, fen: Option<&str>, moves: &[&str]) -> Value {
    json!({"type": "study_position", "variant": variant, "fen": fen, "moves": moves})
}

/// The next engine report with lines on `fen` (earlier ones passed over).
async fn lines_on(page: &mut Page, fen: &str, count: usize) -> Value {
    page.until(|m| {
        m["type"] == "study_lines"
            && m["fen"] == fen
            && m["lines"].as_array().is_some_and(|l| l.len() >= count)
    })
    .await
    .0
}

/// The next engine report on `fen` whose status passes `wanted`: its
/// status, and whether it says the analysis goes on.
async fn status_on(page: &mut Page, fen: &str, wanted: impl Fn(&str) -> bool) -> (String, bool) {
    let (report, _) = page
        .until(|m| {
            m["type"] == "study_lines"
                && m["fen"] == fen
                && wanted(m["status"].as_str().unwrap_or(""))
        })
        .await;
    let status = report["status"].as_str().expect("status").to_string();
    (status, report["running"].as_bool().expect("running"))
}

fn texts(values: &Value) -> Vec<String> {
    values
        .as_array()
        .expect("an array")
        .iter()
        .map(|v| {
            v.as_str()
                .or_else(|| v["text"].as_str())
                .expect("text")
                .to_string()
        })
        .collect()
}

#[test]
fn gui_serves_the_same_page_as_serve_and_keeps_its_games_in_the_data_directory() {
    let data = TempDir::new("gui-data");
    let data_home = data.path().to_str().expect("a UTF-8 path");
    let gui = Serve::gui(&[], &[("XDG_DATA_HOME", data_home)]);
    assert_eq!(
        gui.banner,
        format!("bashni gui: open http://127.0.0.1:{}/", gui.port)
    );
    assert!(data.path().join("bashni/gui.db").is_file());
    let dir = TempDir::new("gui-serve");
    let serve = Serve::start(&sqlite(&dir), &[]);
    for path in [
        "/assets/main.js",
        "/assets/study.js",
        "/assets/editor.js",
        "/",
    ] {
        let from_gui = gui.get(path, &format!("127.0.0.1:{}", gui.port), &[]);
        let from_serve = serve.get(path, &format!("127.0.0.1:{}", serve.port), &[]);
        assert_eq!(from_gui.0, 200, "{path}");
        assert_eq!(from_gui, from_serve, "{path}");
    }
    let index = gui.get("/analysis", &format!("127.0.0.1:{}", gui.port), &[]);
    assert!(index.1.contains("Analysis board"), "{}", index.1);
    let foreign = gui.get("/", &format!("evil.example:{}", gui.port), &[]);
    assert_eq!(foreign.0, 403);
}

#[tokio::test]
async fn bad_messages_get_an_error_and_change_nothing() {
    let dir = TempDir::new("gui-bad");
    let server = gui(&dir, &[]);
    let mut page = server.page().await;
    // Stopping an analysis before there is a board is answered too.
    page.send(json!({"type": "study_stop"})).await;
    let (answer, _) = page.until(|m| m["type"] == "error").await;
    let text = answer["message"].as_str().expect("message");
    assert!(
        text.starts_with("set up the analysis board first"),
        "{text}"
    );
    let good = study(&mut page, position("bashni", None, &["c3-d4"])).await;
    assert_eq!(good["type"], "study", "{good}");
    let refusals = [
        (position("bashni", Some("W:c4w,f6b 0 1"), &[]), "c4"),
        (
            position("bashni", None, &["c3-d4", "c3-d4"]),
            "move 1 (Black) 'c3-d4'",
        ),
        (position("chess", None, &[]), "variant"),
        (
            json!({"type": "study_pdn", "text": "[Variant \"lasca\"]\n1. a3-b4 a3-b4 *"}),
            "move 1 (Black)",
        ),
        (
            json!({"type": "study_analyse", "lines": 9}),
            "lines: 1 to 5",
        ),
        // Engine options and commands have no message to travel in.
        (
            json!({"type": "study_analyse", "lines": 3, "options": {"Hash": 4096}}),
            "unknown field",
        ),
        (
            json!({"type": "setoption", "name": "Hash", "value": "4096"}),
            "unknown variant",
        ),
        (
            json!({"type": "study_analyse", "lines": 3, "go": "infinite"}),
            "unknown field",
        ),
    ];
    for (message, expected) in refusals {
        page.send(message.clone()).await;
        let (answer, _) = page
            .until(|m| m["type"] == "error" || m["type"] == "study_refused" || m["type"] == "study")
            .await;
        // A refused position or PDN is answered by kind, for the editor
        // that sent it; any other refusal is an error.
        let setup = message["type"] == "study_position" || message["type"] == "study_pdn";
        let expected_kind = if setup { "study_refused" } else { "error" };
        assert_eq!(
            answer["type"], expected_kind,
            "{message} was taken: {answer}"
        );
        let text = answer["message"].as_str().expect("message");
        assert!(text.contains(expected), "{message}: {text}");
    }
    page.send(json!({"type": "study_export"})).await;
    let (pdn, _) = page.until(|m| m["type"] == "study_pdn").await;
    let text = pdn["text"].as_str().expect("PDN");
    assert!(
        text.contains("c3-d4") && text.contains("[Variant \"bashni\"]"),
        "{text}"
    );
}

#[tokio::test]
async fn the_engines_lines_come_one_per_move_and_follow_the_board() {
    let dir = TempDir::new("gui-lines");
    let server = gui(&dir, &[]);
    let mut page = server.page().await;
    let start = study(&mut page, position("bashni", None, &[])).await;
    let fen = start["fen"].as_str().expect("fen").to_string();
    page.send(json!({"type": "study_analyse", "lines": 3}))
        .await;
    let report = lines_on(&mut page, &fen, 3).await;
    let lines = report["lines"].as_array().expect("lines");
    let firsts: HashSet<&str> = lines
        .iter()
        .map(|l| l["pv"][0].as_str().expect("a move"))
        .collect();
    assert_eq!(firsts.len(), lines.len(), "one line per move: {report}");
    let legal: HashSet<String> = texts(&start["legal"]).into_iter().collect();
    assert!(firsts.iter().all(|m| legal.contains(*m)), "{report}");
    // Playing the best line's first move: the analysis follows the board.
    let best = lines[0]["pv"][0].as_str().expect("a move").to_string();
    let next = study(&mut page, position("bashni", None, &[&best])).await;
    assert_eq!(texts(&next["moves"]), [best]);
    let next_fen = next["fen"].as_str().expect("fen").to_string();
    let (_, running) = status_on(&mut page, &next_fen, |s| s == "analysing").await;
    assert!(running, "an analysis under way says so");
    page.send(json!({"type": "study_stop"})).await;
    let (_, running) = status_on(&mut page, &next_fen, |s| s == "stopped").await;
    assert!(!running);
}

#[tokio::test]
async fn an_engine_that_dies_mid_analysis_is_reported_and_replaced() {
    let dir = TempDir::new("gui-crash");
    let marker = dir.path().join("crashed");
    let engine = serve::crash_once_engine(&marker);
    let server = gui(&dir, &["--engine", &engine]);
    let mut page = server.page().await;
    let start = study(&mut page, position("bashni", None, &[])).await;
    let fen = start["fen"].as_str().expect("fen").to_string();
    page.send(json!({"type": "study_analyse", "lines": 2}))
        .await;
    let (failed, running) = status_on(&mut page, &fen, |s| s.contains("exited")).await;
    assert!(failed.contains("analyse again"), "{failed}");
    assert!(!running, "a failed analysis has ended");
    assert!(marker.exists(), "the first engine ran");
    page.send(json!({"type": "study_analyse", "lines": 2}))
        .await;
    lines_on(&mut page, &fen, 2).await;
}

#[tokio::test]
async fn an_analysis_gives_its_engine_back_when_the_page_goes() {
    let dir = TempDir::new("gui-release");
    // `serve` is the same server with the pool's size to choose.
    let server = Serve::start(&sqlite(&dir), &["--max-engines", "1"]);
    let mut first = server.page().await;
    let start = study(&mut first, position("bashni", None, &[])).await;
    let fen = start["fen"].as_str().expect("fen").to_string();
    first
        .send(json!({"type": "study_analyse", "lines": 1}))
        .await;
    lines_on(&mut first, &fen, 1).await;
    drop(first);
    // The only engine slot was the first page's: the second page gets it.
    let mut second = server.page().await;
    study(&mut second, position("bashni", None, &[])).await;
    second
        .send(json!({"type": "study_analyse", "lines": 1}))
        .await;
    lines_on(&mut second, &fen, 1).await;
}

#[tokio::test]
async fn a_lasca_game_goes_out_as_pdn_and_comes_back() {
    let dir = TempDir::new("gui-pdn");
    let server = gui(&dir, &[]);
    let mut page = server.page().await;
    let played = study(&mut page, position("lasca", None, &["a3-b4", "c5xa3"])).await;
    assert_eq!(played["type"], "study", "{played}");
    page.send(json!({"type": "study_export"})).await;
    let (pdn, _) = page.until(|m| m["type"] == "study_pdn").await;
    let text = pdn["text"].as_str().expect("PDN").to_string();
    study(&mut page, position("bashni", None, &[])).await;
    let back = study(&mut page, json!({"type": "study_pdn", "text": text})).await;
    assert_eq!(back["variant"], "lasca");
    assert_eq!(back["fen"], played["fen"]);
    assert_eq!(texts(&back["moves"]), ["a3-b4", "c5xa3"]);
    assert_eq!(back.get("note"), None, "one game: nothing to say");
    // Pasted moves without a result are read as an unfinished game; of
    // two games the first is shown, and the page told so.
    let pasted = json!({"type": "study_pdn", "text": format!("{text}1. c3-d4 f6-e5\n")});
    let first = study(&mut page, pasted).await;
    assert_eq!(first["variant"], "lasca");
    assert_eq!(first["note"], "The first of the 2 games pasted.");
    let bare = study(
        &mut page,
        json!({"type": "study_pdn", "text": "1. c3-d4 f6-e5"}),
    )
    .await;
    assert_eq!(texts(&bare["moves"]), ["c3-d4", "f6-e5"]);
}

#[tokio::test]
async fn play_from_here_starts_a_room_from_an_edited_position() {
    let dir = TempDir::new("gui-from-here");
    let server = gui(&dir, &[]);
    let mut page = server.page().await;
    let edited = "W:c3w,e3wbb,d6b,f6bb 0 1";
    let mut from_here = setup("link", None, "white");
    from_here["start"] = json!(edited);
    let (room, _) = create(&mut page, "Ann", from_here).await;
    let state = room_state(&mut page, |s| s["id"] == room.as_str()).await;
    assert_eq!(state["start_fen"], edited);
    assert_eq!(state["fen"], edited);
    let mut bob = server.page().await;
    bob.send(json!({"type": "join", "room": room, "name": "Bob"}))
        .await;
    let playing = room_state(&mut bob, |s| s["phase"] == "playing").await;
    assert_eq!(playing["fen"], edited);
    assert!(
        texts(&playing["legal"]).contains(&"e3-f4".to_string()),
        "{playing}"
    );
    // Against the engine, which is White here and so moves first, from
    // the edited position.
    let mut against_engine = setup("engine", None, "black");
    against_engine["start"] = json!(edited);
    against_engine["skill"] = json!(1);
    let (engine_room, _) = create(&mut page, "Ann", against_engine).await;
    let answered = room_state(&mut page, |s| {
        s["id"] == engine_room.as_str() && s["moves"].as_array().is_some_and(|m| m.len() == 1)
    })
    .await;
    assert_eq!(answered["start_fen"], edited);
    // A start the rules refuse creates nothing.
    let mut bad = setup("link", None, "white");
    bad["start"] = json!("W:c3w,e4b 0 1");
    page.send(json!({"type": "create", "name": "Ann", "setup": bad}))
        .await;
    assert!(error(&mut page).await.contains("e4"));
}
