//! `bashni gui`'s server driven as a browser would drive it: HTTP requests
//! and the page's WebSocket, against our engine and against fake engines
//! that crash or cheat.

#[path = "support/gui.rs"]
mod gui;
#[path = "support/socket.rs"]
mod socket;

use gui::{Server, settings};
use serde_json::{Value, json};

fn moves(state: &Value) -> Vec<String> {
    state["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| m.as_str().expect("text").to_string())
        .collect()
}

#[test]
fn bad_requests_and_foreign_sites_are_refused() {
    let server = Server::start(&[]);
    let host = format!("127.0.0.1:{}", server.port);
    let page = format!("/?token={}", server.token);
    assert_eq!(server.get(&page, &host, &[]), 200);
    assert_eq!(
        server.get(&page, &format!("localhost:{}", server.port), &[]),
        200
    );
    assert_eq!(server.get("/app.js", &host, &[]), 200);
    // The page needs the token; unknown paths do not exist.
    assert_eq!(server.get("/", &host, &[]), 403);
    assert_eq!(server.get("/?token=0123", &host, &[]), 403);
    assert_eq!(server.get("/nothing", &host, &[]), 404);
    // DNS rebinding: another name for 127.0.0.1.
    assert_eq!(server.get(&page, "evil.example", &[]), 403);
    assert_eq!(server.get(&page, "127.0.0.1:1", &[]), 403);
    // A script on another site.
    let foreign = [("Origin", "http://evil.example")];
    assert_eq!(server.get(&page, &host, &foreign), 403);
    // The WebSocket path without the upgrade.
    let ws = format!("/ws?token={}", server.token);
    assert_eq!(server.get(&ws, &host, &[]), 400);
}

#[tokio::test]
async fn the_websocket_needs_the_token_and_our_origin() {
    let server = Server::start(&[]);
    let origin = server.origin();
    assert_eq!(server.connect(None, Some(&origin)).await.err(), Some(403));
    let wrong = "0".repeat(server.token.len());
    assert_eq!(
        server.connect(Some(&wrong), Some(&origin)).await.err(),
        Some(403)
    );
    let token = server.token.clone();
    assert_eq!(
        server
            .connect(Some(&token), Some("http://evil.example"))
            .await
            .err(),
        Some(403)
    );
    assert_eq!(server.connect(Some(&token), None).await.err(), Some(403));
    let localhost = format!("http://localhost:{}", server.port);
    let mut page = server
        .connect(Some(&token), Some(&localhost))
        .await
        .unwrap();
    let state = page.state(|_| true).await;
    assert_eq!(state["variant"], "bashni");
    assert_eq!(state["engine_status"], "idle");
    assert_eq!(state["legal"].as_array().unwrap().len(), 7);
}

#[tokio::test]
async fn bad_messages_get_an_error_and_change_nothing() {
    let server = Server::start(&[]);
    let mut page = server.page().await;
    page.state(|_| true).await;
    for bad in [
        "not json",
        r#"{"type":"launch"}"#,
        r#"{"type":"move"}"#,
        r#"{"type":"move","text":"c3-c4"}"#,
        r#"{"type":"new_game","variant":"chess"}"#,
        r#"{"type":"new_game","variant":"bashni","fen":"W:c3wbw"}"#,
        r#"{"type":"import_pdn","text":"[FEN \"W:a1w\"]\n\n1. c3-d4"}"#,
        r#"{"type":"settings","mode":"play","engine_side":"black","movetime_ms":0,"skill":20,"multipv":1}"#,
    ] {
        page.send_text(bad).await;
        let (error, _) = page.until(|m| m["type"] == "error").await;
        assert!(!error["message"].as_str().unwrap().is_empty(), "{bad}");
        let state = page.state(|_| true).await;
        assert_eq!(moves(&state), Vec::<String>::new(), "{bad}");
        assert_eq!(state["variant"], "bashni", "{bad}");
    }
    page.send(json!({"type": "move", "text": "c3-d4"})).await;
    let state = page.state(|s| !moves(s).is_empty()).await;
    assert_eq!(moves(&state)[0], "c3-d4");
}

#[tokio::test]
async fn the_engine_answers_a_move_and_analyses_with_several_lines() {
    let server = Server::start(&[]);
    let mut page = server.page().await;
    page.state(|_| true).await;
    page.send(settings("play", "black")).await;
    page.send(json!({"type": "move", "text": "c3-d4"})).await;
    let state = page.state(|s| moves(s).len() == 2).await;
    assert_eq!(state["engine_status"], "idle");
    assert!(state["engine_error"].is_null());
    assert!(!state["legal"].as_array().unwrap().is_empty());

    // The start position has seven moves, enough for three lines.
    page.send(json!({"type": "new_game", "variant": "bashni"}))
        .await;
    page.send(settings("analysis", "black")).await;
    let (analysis, _) = page
        .until(|m| {
            m["type"] == "analysis"
                && m["lines"].as_array().is_some_and(|l| l.len() == 3)
                && m["lines"][0]["depth"].as_u64() >= Some(4)
        })
        .await;
    assert_eq!(analysis["ply"], 0);
    let first = &analysis["lines"][0];
    assert!(first["pv"].as_array().is_some_and(|pv| !pv.is_empty()));
    let pv_moves: Vec<&str> = analysis["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["pv"][0].as_str().unwrap())
        .collect();
    assert_ne!(pv_moves[0], pv_moves[1], "MultiPV lines start differently");
    // Playing the first line puts all its moves on the board.
    let line: Vec<Value> = first["pv"].as_array().unwrap().clone();
    page.send(json!({"type": "line", "moves": line.clone()}))
        .await;
    let state = page.state(|s| moves(s).len() == line.len()).await;
    assert_eq!(state["moves"], Value::Array(line));
}

#[tokio::test]
async fn an_engine_that_dies_mid_search_is_reported_and_restarted() {
    let server = Server::with_fake_engine("crash");
    let mut page = server.page().await;
    page.state(|_| true).await;
    page.send(json!({"type": "move", "text": "c3-d4"})).await;
    page.state(|s| moves(s).len() == 1).await;
    // Engine plays Black, is to move, and dies on `go`.
    page.send(settings("play", "black")).await;
    let (error, _) = page.until(|m| m["type"] == "error").await;
    let text = error["message"].as_str().unwrap();
    assert!(
        text.contains("exited") && text.contains("during a search"),
        "{text}"
    );
    let state = page.state(|s| s["engine_status"] == "stopped").await;
    assert_eq!(moves(&state), ["c3-d4"], "the game is kept");
    assert!(state["engine_error"].as_str().is_some());
    // Humans go on; a restarted engine is ready again.
    page.send(settings("humans", "black")).await;
    page.send(json!({"type": "restart"})).await;
    let state = page
        .state(|s| s["engine_status"] == "idle" && s["engine_error"].is_null())
        .await;
    assert_eq!(moves(&state), ["c3-d4"]);
}

#[tokio::test]
async fn an_illegal_engine_move_is_shown_and_the_game_kept() {
    let server = Server::with_fake_engine("illegal");
    let mut page = server.page().await;
    page.state(|_| true).await;
    page.send(settings("play", "white")).await;
    let (error, _) = page.until(|m| m["type"] == "error").await;
    let text = error["message"].as_str().unwrap();
    assert!(text.contains("illegal move 'e1-f2'"), "{text}");
    let state = page.state(|s| !s["engine_error"].is_null()).await;
    assert_eq!(moves(&state), Vec::<String>::new());
    assert_eq!(state["legal"].as_array().unwrap().len(), 7);
}

#[tokio::test]
async fn two_tabs_have_their_own_games_and_engines() {
    let server = Server::start(&[]);
    let mut one = server.page().await;
    let mut two = server.page().await;
    one.state(|_| true).await;
    two.state(|_| true).await;
    one.send(settings("play", "black")).await;
    two.send(json!({"type": "new_game", "variant": "lasca"}))
        .await;
    two.send(settings("play", "black")).await;
    one.send(json!({"type": "move", "text": "c3-d4"})).await;
    two.send(json!({"type": "move", "text": "e3-f4"})).await;
    let state_one = one.state(|s| moves(s).len() == 2).await;
    let state_two = two.state(|s| moves(s).len() == 2).await;
    assert_eq!(state_one["variant"], "bashni");
    assert_eq!(moves(&state_one)[0], "c3-d4");
    assert_eq!(state_two["variant"], "lasca");
    assert_eq!(moves(&state_two)[0], "e3-f4");
}

#[tokio::test]
async fn pdn_export_then_import_gives_the_same_game() {
    let server = Server::start(&[]);
    let mut page = server.page().await;
    page.state(|_| true).await;
    page.send(settings("humans", "black")).await;
    for mv in ["c3-d4", "f6-g5", "g3-h4"] {
        page.send(json!({"type": "move", "text": mv})).await;
    }
    let played = page.state(|s| moves(s).len() == 3).await;
    page.send(json!({"type": "export_pdn"})).await;
    let (pdn, _) = page.until(|m| m["type"] == "pdn").await;
    let text = pdn["text"].as_str().unwrap().to_string();
    assert!(text.contains("1. c3-d4 f6-g5 2. g3-h4 *"), "{text}");
    page.send(json!({"type": "new_game", "variant": "lasca"}))
        .await;
    page.state(|s| s["variant"] == "lasca").await;
    page.send(json!({"type": "import_pdn", "text": text})).await;
    let imported = page.state(|s| s["variant"] == "bashni").await;
    assert_eq!(moves(&imported), moves(&played));
    assert_eq!(imported["fen"], played["fen"]);
}

#[tokio::test]
async fn a_clock_is_kept_for_both_sides_and_sent_to_the_engine() {
    let server = Server::start(&[]);
    let mut page = server.page().await;
    page.state(|_| true).await;
    let mut clocked = settings("play", "black");
    clocked["clock"] = json!({"base_ms": 60_000, "increment_ms": 2_000});
    page.send(clocked).await;
    let state = page.state(|s| !s["clocks_ms"].is_null()).await;
    assert_eq!(state["clocks_ms"][1], 60_000, "Black's clock waits");
    page.send(json!({"type": "move", "text": "c3-d4"})).await;
    let state = page.state(|s| moves(s).len() == 2).await;
    let [white, black] = [0, 1].map(|i| state["clocks_ms"][i].as_i64().unwrap());
    // Each side was charged for its move and got the increment.
    assert!(white > 60_000 && white <= 62_000, "{white}");
    assert!(black > 2_000 && black <= 62_000, "{black}");
    let mut bad = settings("play", "black");
    bad["clock"] = json!({"base_ms": 0, "increment_ms": 0});
    page.send(bad).await;
    let (error, _) = page.until(|m| m["type"] == "error").await;
    assert!(error["message"].as_str().unwrap().contains("clock"));
}

#[tokio::test]
async fn option_ranges_come_from_the_engines_declarations() {
    let server = Server::start(&[
        "--engine",
        &format!("cmd={},option.Hash=32", env!("CARGO_BIN_EXE_bashni")),
    ]);
    let mut page = server.page().await;
    let state = page.state(|_| true).await;
    let options = &state["engine_options"];
    assert_eq!(
        options["Skill Level"],
        json!({"min": 0, "max": 20, "default": 20})
    );
    assert_eq!(options["MultiPV"]["min"], 1);
    assert_eq!(options["Threads"]["min"], 1);
    assert_eq!(options["Move Overhead"]["max"], 5000);
    // The engine starts with --engine's value, so the page shows that.
    assert_eq!(options["Hash"]["default"], 32);
    let mut bad = settings("analysis", "black");
    bad["skill"] = json!(21);
    page.send(bad).await;
    let (error, _) = page.until(|m| m["type"] == "error").await;
    assert_eq!(error["message"], "Skill Level must be 0 to 20");
    // An engine that declares no option gets no control and no check.
    let fake = Server::with_fake_engine("scripted");
    let mut page = fake.page().await;
    let state = page.state(|_| true).await;
    assert_eq!(state["engine_options"], json!({}));
}
