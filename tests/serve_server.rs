//! `bashni serve` driven as browsers would drive it, over its WebSocket,
//! with the real binary and a real database: games between pages and a
//! watcher, seats kept by tokens, engine seats, hostile clients, and a
//! `kill -9` in the middle of games.

#[allow(dead_code)] // the kit's engine helper, of which this file uses part
#[path = "support/engine.rs"]
mod engine;
#[path = "support/lost_answer.rs"]
mod lost_answer;
#[path = "support/postgres.rs"]
mod postgres;
#[path = "support/serve.rs"]
mod serve;
#[path = "support/socket.rs"]
mod socket;
#[path = "support/temp.rs"]
mod temp;

use engine::Engine;
use serde_json::{Value, json};
use serve::{Serve, create, error, exited, first_legal, moves, room_state, setup};
use socket::Page;
use std::time::{Duration, Instant};
use temp::TempDir;

fn sqlite(dir: &TempDir) -> String {
    format!("sqlite:{}", dir.path().join("serve.db").display())
}

/// Ann creates a room (White, the given clock), Bob joins it: both pages,
/// the room's id, both tokens, and the state once both see the game
/// started.
async fn two_players(
    server: &Serve,
    clock: Option<&str>,
) -> (Page, Page, String, [String; 2], Value) {
    let mut ann = server.page().await;
    let (room, ann_token) = create(&mut ann, "Ann", setup("anyone", clock, "white")).await;
    room_state(&mut ann, |s| s["phase"] == "waiting").await;
    let mut bob = server.page().await;
    bob.send(json!({"type": "join", "room": room, "name": "Bob"}))
        .await;
    let (seated, _) = bob.until(|m| m["type"] == "seated").await;
    assert_eq!(seated["seat"], 1);
    let bob_token = seated["token"].as_str().expect("token").to_string();
    room_state(&mut ann, |s| s["phase"] == "playing").await;
    let state = room_state(&mut bob, |s| s["phase"] == "playing").await;
    (ann, bob, room, [ann_token, bob_token], state)
}

/// The side to move plays its first legal move; every page in `others`
/// sees it. The state after it, as the mover saw it.
async fn play_one(mover: &mut Page, others: &mut [&mut Page], state: &Value) -> Value {
    let text = first_legal(state);
    let ply = moves(state).len() + 1;
    mover.send(json!({"type": "move", "text": text})).await;
    let after = room_state(mover, |s| moves(s).len() == ply).await;
    for page in others.iter_mut() {
        let seen = room_state(page, |s| moves(s).len() == ply).await;
        assert_eq!(
            moves(&seen),
            moves(&after),
            "every viewer sees the same moves"
        );
    }
    after
}

/// Ann (White) and Bob take turns for `plies` moves from `state`; the
/// state after the last, as its mover saw it.
async fn play_plies(ann: &mut Page, bob: &mut Page, mut state: Value, plies: usize) -> Value {
    for ply in 0..plies {
        let (mover, other) = match ply % 2 {
            0 => (&mut *ann, &mut *bob),
            _ => (&mut *bob, &mut *ann),
        };
        state = play_one(mover, &mut [other], &state).await;
    }
    state
}

#[tokio::test]
async fn an_open_game_leaves_the_lobby_while_its_creator_is_away() {
    let dir = TempDir::new("serve-away");
    let server = Serve::start(&sqlite(&dir), &[]);
    let mut ann = server.page().await;
    let (room, token) = create(&mut ann, "Ann", setup("anyone", Some("5+3"), "white")).await;
    // Her page cannot take the other seat of her own game too.
    ann.send(json!({"type": "join", "room": room, "name": "Ann again"}))
        .await;
    assert!(error(&mut ann).await.contains("already sit in this room"));
    let listed = |m: &Value, yes: bool| {
        m["type"] == "lobby" && m["rooms"].to_string().contains(&room) == yes
    };
    let mut lobby = server.page().await;
    lobby.send(json!({"type": "lobby"})).await;
    lobby.until(|m| listed(m, true)).await;
    // Ann's tab closes: her game is no longer offered to anyone.
    drop(ann);
    lobby.until(|m| listed(m, false)).await;
    // She comes back by the room's address: offered again.
    let mut back = server.page().await;
    back.send(json!({"type": "open", "room": room, "token": token}))
        .await;
    let (seated, _) = back.until(|m| m["type"] == "seated").await;
    assert_eq!(seated["seat"], 0);
    lobby.until(|m| listed(m, true)).await;
}

#[tokio::test]
async fn a_room_that_is_not_there_is_answered_by_kind_so_the_page_can_leave_it() {
    let dir = TempDir::new("serve-no-room");
    let server = Serve::start(&sqlite(&dir), &[]);
    let mut page = server.page().await;
    let (closed, _) = create(&mut page, "Ann", setup("anyone", None, "white")).await;
    page.send(json!({"type": "leave"})).await;
    page.until(|m| m["type"] == "left").await;
    let never = "0".repeat(32);
    for (room, why) in [
        (never.as_str(), "no room"),
        ("doesnotexist", "no room"),
        (closed.as_str(), "closed before anyone joined"),
    ] {
        page.send(json!({"type": "open", "room": room})).await;
        let (answer, _) = page
            .until(|m| m["type"] == "no_room" || m["type"] == "error")
            .await;
        assert_eq!(answer["type"], "no_room", "{room}: {answer}");
        assert_eq!(answer["room"], room);
        let message = answer["message"].as_str().unwrap_or_default();
        assert!(message.contains(why), "{room}: {message}");
    }
    // Nor has the closed room a game to download.
    let own_host = format!("127.0.0.1:{}", server.port);
    let (status, body) = server.get(&format!("/pdn/{closed}"), &own_host, &[]);
    assert_eq!(
        (status, body.trim()),
        (404, "no game was played in this room")
    );
}

#[tokio::test]
async fn a_game_may_be_aborted_until_both_sides_have_moved() {
    let dir = TempDir::new("serve-abort");
    let server = Serve::start(&sqlite(&dir), &[]);
    let (mut ann, mut bob, _, _, state) = two_players(&server, Some("5+3")).await;
    assert_eq!(state["first_moves"], true);
    for colour in [0, 1] {
        assert_eq!(
            state["may"][colour],
            json!({"abort": true, "resign": true, "offer_draw": false, "takeback": false, "rematch": false, "claim": false}),
            "until both have moved: abort, no draw"
        );
    }
    let wait = state["abort_in_ms"].as_u64().expect("a first-move wait");
    assert!(
        wait > 20_000 && wait <= 30_000,
        "{wait} ms to make a first move"
    );
    let state = play_plies(&mut ann, &mut bob, state, 2).await;
    assert_eq!(state["first_moves"], false);
    assert_eq!(state["abort_in_ms"], Value::Null);
    assert_eq!(state["may"][0]["abort"], false);
    assert_eq!(state["may"][0]["offer_draw"], true);
    // No clock ran for the first moves; White's runs now, from Black's
    // reply.
    assert_eq!(state["clock_ms"][1], 300_000, "{state}");
    let white = state["clock_ms"][0].as_i64().expect("White's clock");
    assert!((299_000..=300_000).contains(&white), "{white}");
    ann.send(json!({"type": "abort"})).await;
    assert!(error(&mut ann).await.contains("can no longer be aborted"));

    let (mut ann, mut bob, room, _, state) = two_players(&server, Some("5+3")).await;
    play_plies(&mut ann, &mut bob, state, 1).await;
    bob.send(json!({"type": "abort"})).await;
    let over = room_state(&mut ann, |s| s["phase"] == "over").await;
    assert_eq!(over["result"]["result"], "*");
    assert_eq!(over["result"]["reason"], "Black aborted the game");
    assert_eq!(over["clock_ms"], json!([300_000, 300_000]));
    // A game called off is no game to keep (PDN's "*" would say it goes
    // on): the room's PDN has none to give.
    let host = format!("127.0.0.1:{}", server.port);
    let (status, _) = server.get(&format!("/pdn/{room}"), &host, &[]);
    assert_eq!(status, 404);
    // The rematch, colours swapped, is the room's one game, going on.
    ann.send(json!({"type": "rematch"})).await;
    bob.send(json!({"type": "rematch"})).await;
    let state = room_state(&mut bob, |s| s["game_no"] == 2).await;
    play_plies(&mut bob, &mut ann, state, 2).await;
    let (status, pdn) = server.get(&format!("/pdn/{room}"), &host, &[]);
    assert_eq!(status, 200);
    assert!(
        pdn.contains("[Round \"2\"]") && !pdn.contains("[Round \"1\"]"),
        "{pdn}"
    );
    assert!(pdn.contains("[Result \"*\"]"), "{pdn}");
    assert!(
        pdn.contains("[TimeControl \"300+3\"]"),
        "seconds, as PGN has it: {pdn}"
    );
}

#[tokio::test]
async fn two_pages_play_a_watcher_sees_every_move_and_the_result() {
    let dir = TempDir::new("serve-game");
    let server = Serve::start(&sqlite(&dir), &[]);
    let (mut ann, mut bob, room, _, _) = two_players(&server, Some("5+3")).await;
    let mut lobby = server.page().await;
    lobby.send(json!({"type": "lobby"})).await;
    let (listed, _) = lobby
        .until(|m| m["type"] == "lobby" && m["rooms"].to_string().contains(&room))
        .await;
    assert!(listed["rooms"].to_string().contains("Ann"), "{listed}");
    let mut watcher = server.page().await;
    watcher.send(json!({"type": "open", "room": room})).await;
    let mut state = room_state(&mut watcher, |s| s["phase"] == "playing").await;
    let white_ms = state["clock_ms"][0].as_i64().expect("a clock");
    assert!(
        (290_000..=300_000).contains(&white_ms),
        "White's clock runs: {white_ms}"
    );
    assert_eq!(state["clock_ms"][1], 300_000, "Black's waits");
    for ply in 0..6 {
        let (mover, other) = match ply % 2 {
            0 => (&mut ann, &mut bob),
            _ => (&mut bob, &mut ann),
        };
        state = play_one(mover, &mut [other, &mut watcher], &state).await;
        assert_eq!(moves(&state).len(), ply + 1);
    }
    watcher
        .send(json!({"type": "move", "text": first_legal(&state)}))
        .await;
    assert!(error(&mut watcher).await.contains("you hold no seat"));
    bob.send(json!({"type": "move", "text": first_legal(&state)}))
        .await;
    assert!(error(&mut bob).await.contains("not your turn"));
    ann.send(json!({"type": "offer_draw"})).await;
    room_state(&mut bob, |s| s["draw_offer"] == "white").await;
    bob.send(json!({"type": "decline_draw"})).await;
    room_state(&mut ann, |s| s["draw_offer"].is_null()).await;
    ann.send(json!({"type": "resign"})).await;
    for page in [&mut ann, &mut bob, &mut watcher] {
        let over = room_state(page, |s| s["phase"] == "over").await;
        assert_eq!(over["result"]["result"], "0-2");
        assert_eq!(over["result"]["reason"], "White resigned");
    }
    lobby
        .until(|m| m["type"] == "lobby" && !m["rooms"].to_string().contains(&room))
        .await;
    // Anyone in the room may ask for the analysis; everyone gets it.
    watcher.send(json!({"type": "analyse"})).await;
    for page in [&mut watcher, &mut ann] {
        let analysed = room_state(page, |s| s["analysis"]["status"] == "done").await;
        let analysis = &analysed["analysis"];
        assert_eq!(
            analysis["evals"].as_array().map(Vec::len),
            Some(6),
            "{analysis}"
        );
        assert_eq!(
            analysis["marks"].as_array().map(Vec::len),
            Some(6),
            "{analysis}"
        );
    }
    let (status, pdn) = server.get(
        &format!("/pdn/{room}"),
        &format!("127.0.0.1:{}", server.port),
        &[],
    );
    assert_eq!(status, 200);
    assert!(
        pdn.contains("[Result \"0-2\"]") && pdn.contains("[White \"Ann\"]"),
        "{pdn}"
    );
    assert!(pdn.contains(&moves(&state)[5]), "{pdn}");
}

/// Watchers opening and leaving a room in a loop do not flood its
/// players with states: the number watching is shown with the next
/// state, at most a second later.
#[tokio::test]
async fn watchers_coming_and_going_do_not_flood_the_players() {
    let dir = TempDir::new("serve-watcher-churn");
    let server = Serve::start(&sqlite(&dir), &[]);
    let (mut ann, _bob, room, _, _) = two_players(&server, None).await;
    let mut cat = server.page().await;
    for _ in 0..8 {
        cat.send(json!({"type": "open", "room": room})).await;
        cat.send(json!({"type": "leave"})).await;
    }
    cat.send(json!({"type": "open", "room": room})).await;
    let mut watchers_shown = Vec::new();
    while let Some(message) = ann.next_within(Duration::from_millis(1500)).await {
        if message["type"] == "room" {
            watchers_shown.push(message["watchers"].clone());
        }
    }
    assert!(watchers_shown.len() <= 2, "{watchers_shown:?}");
    assert_eq!(
        watchers_shown.last(),
        Some(&json!(1)),
        "the watcher who stayed is shown: {watchers_shown:?}"
    );
}

/// Ask `page` to analyse the Bashni start on its analysis board; the
/// first answer about it (`study_lines` or `error`).
async fn analyse_the_start(page: &mut Page) -> Value {
    page.send(json!({"type": "study_position", "variant": "bashni", "moves": []}))
        .await;
    page.until(|m| m["type"] == "study").await;
    page.send(json!({"type": "study_analyse", "lines": 1}))
        .await;
    page.until(|m| m["type"] == "study_lines" || m["type"] == "error")
        .await
        .0
}

/// One address has at most two analyses running or waiting (they share
/// half the engines, and one address's many boards kept everyone else's
/// waiting), and an analysis that waits for the analyses' share says so.
#[tokio::test]
async fn one_address_has_two_analyses_at_once_and_a_waiting_one_says_so() {
    let dir = TempDir::new("serve-analyses");
    let server = Serve::start(&sqlite(&dir), &["--max-engines", "2"]);
    let mut first = server.page().await;
    analyse_the_start(&mut first).await;
    first
        .until(|m| m["type"] == "study_lines" && m["status"] == "analysing")
        .await;
    let mut second = server.page().await;
    let waiting = analyse_the_start(&mut second).await;
    assert_eq!(
        waiting["status"], "waiting for a free engine",
        "the analyses' one engine is taken: {waiting}"
    );
    let mut third = server.page().await;
    assert_eq!(
        analyse_the_start(&mut third).await["message"],
        "at most 2 analyses at once from one address: stop one first"
    );
    first.send(json!({"type": "study_stop"})).await;
    first
        .until(|m| m["type"] == "study_lines" && m["status"] == "stopped")
        .await;
    let started = analyse_the_start(&mut third).await;
    assert_eq!(started["type"], "study_lines", "{started}");
}

/// The engine is a switch, as lichess's is: once on, each position the
/// board shows is analysed, also after an analysis met a finished game
/// (it stopped following then); off after Stop.
#[tokio::test]
async fn the_engine_stays_on_from_position_to_position_until_stopped() {
    let dir = TempDir::new("serve-engine-on");
    let server = Serve::start(&sqlite(&dir), &[]);
    let mut page = server.page().await;
    let at = |cursor: u32| {
        json!({"type": "study_position", "variant": "bashni", "fen": "W:c3w,d4b 0 1",
               "moves": ["c3xe5"], "cursor": cursor})
    };
    page.send(at(1)).await;
    page.until(|m| m["type"] == "study").await;
    page.send(json!({"type": "study_analyse", "lines": 1}))
        .await;
    let (over, _) = page.until(|m| m["type"] == "study_lines").await;
    assert_eq!(over["status"], "the game is over here", "{over}");
    page.send(at(0)).await;
    let (lines, _) = page
        .until(|m| m["type"] == "study_lines" || m["type"] == "error")
        .await;
    assert_eq!(
        lines["running"], true,
        "the position before is analysed: {lines}"
    );
    page.send(json!({"type": "study_stop"})).await;
    page.until(|m| m["type"] == "study_lines" && m["status"] == "stopped")
        .await;
    page.send(at(1)).await;
    page.until(|m| m["type"] == "study").await;
    page.send(at(0)).await;
    page.until(|m| m["type"] == "study").await;
    while let Some(message) = page.next_within(Duration::from_millis(800)).await {
        assert_ne!(
            message["type"], "study_lines",
            "the engine is off: {message}"
        );
    }
}

/// Asks after the rooms of `claims` (room, token) as the lobby does; the
/// lines of the answer, newest first.
async fn your_games(page: &mut Page, claims: &[(&str, &str)]) -> Vec<Value> {
    let rooms: Vec<Value> = (claims.iter())
        .map(|(room, token)| json!({"room": room, "token": token}))
        .collect();
    page.send(json!({"type": "your_games", "rooms": rooms}))
        .await;
    let (answer, _) = page.until(|m| m["type"] == "your_games").await;
    answer["games"].as_array().expect("a list").clone()
}

/// A browser is told of each room it keeps a seat token for, once, from
/// that seat's side and newest first: a token that is not the room's, or
/// a room that is not there, is left out, and a list too long or with a
/// malformed entry is refused saying which.
#[tokio::test]
async fn a_browser_is_told_its_own_games_from_its_side() {
    let dir = TempDir::new("serve-your-games");
    let server = Serve::start(&sqlite(&dir), &[]);
    let (mut ann, mut bob, room, [ann_token, bob_token], state) = two_players(&server, None).await;
    play_plies(&mut ann, &mut bob, state, 3).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    let mut tab = server.page().await;
    let (waiting, waiting_token) =
        create(&mut tab, "Ann", setup("anyone", Some("5+3"), "black")).await;
    let nowhere = "0123456789abcdef0123456789abcdef";
    let mut page = server.page().await;
    let lines = your_games(
        &mut page,
        &[
            (&room, &ann_token),
            (&waiting, &waiting_token),
            (&room, &waiting_token),
            (nowhere, &ann_token),
            (&room, &ann_token),
        ],
    )
    .await;
    assert_eq!(lines.len(), 2, "{lines:?}");
    let (first, second) = (&lines[0], &lines[1]);
    assert_eq!(
        (
            &first["room"],
            &first["phase"],
            &first["colour"],
            &first["opponent"]
        ),
        (
            &json!(waiting),
            &json!("waiting"),
            &json!("black"),
            &Value::Null
        )
    );
    assert_eq!(first["config"]["clock"], "5+3");
    assert_eq!(
        (
            &second["room"],
            &second["phase"],
            &second["colour"],
            &second["opponent"]
        ),
        (
            &json!(room),
            &json!("playing"),
            &json!("white"),
            &json!("Bob")
        )
    );
    assert_eq!(
        (&second["plies"], &second["your_move"]),
        (&json!(3), &json!(false))
    );
    let bobs = your_games(&mut page, &[(&room, &bob_token)]).await;
    assert_eq!(
        (
            &bobs[0]["colour"],
            &bobs[0]["opponent"],
            &bobs[0]["your_move"]
        ),
        (&json!("black"), &json!("Ann"), &json!(true))
    );
    bob.send(json!({"type": "resign"})).await;
    room_state(&mut ann, |s| s["phase"] == "over").await;
    let over = your_games(&mut page, &[(&room, &ann_token)]).await;
    assert_eq!(over[0]["phase"], "over");
    assert_eq!(
        over[0]["result"],
        json!({"result": "2-0", "reason": "Black resigned"})
    );
    let many: Vec<Value> = (0..51)
        .map(|_| json!({"room": nowhere, "token": nowhere}))
        .collect();
    page.send(json!({"type": "your_games", "rooms": many}))
        .await;
    assert_eq!(
        error(&mut page).await,
        "your games: 51 rooms asked for, at most 50"
    );
    let bad = json!([{"room": nowhere, "token": nowhere}, {"room": "../x", "token": nowhere}]);
    page.send(json!({"type": "your_games", "rooms": bad})).await;
    assert_eq!(
        error(&mut page).await,
        "your games: room 2 of the list is no room id"
    );
}

/// A finished game's analysis is the `--engine`'s: its scores (from the
/// side to move's view) are the graph's, from White's.
#[tokio::test]
async fn a_finished_game_is_analysed_by_the_servers_engine() {
    let dir = TempDir::new("serve-review");
    let engine = serve::proxy_engine(&[0, 10, 20, 30, 40, 50, 60], None);
    let server = Serve::start(&sqlite(&dir), &["--engine", &engine]);
    let (mut ann, mut bob, _, _, state) = two_players(&server, None).await;
    play_plies(&mut ann, &mut bob, state, 6).await;
    bob.send(json!({"type": "resign"})).await;
    room_state(&mut ann, |s| s["phase"] == "over").await;
    ann.send(json!({"type": "analyse"})).await;
    let analysed = room_state(&mut ann, |s| s["analysis"]["status"] == "done").await;
    // After move k the side to move is Black for k odd: White's view
    // turns the engine's score round.
    assert_eq!(
        analysed["analysis"]["evals"],
        json!([-10, 20, -30, 40, -50, 60])
    );
}

/// An analysis takes its time (here 3.5 s, half a second a position):
/// a room whose pages all left waits for it before it leaves memory, so
/// it is stored; and once a rematch has begun, a late analysis of the
/// game before goes to that game, not to the one being played.
#[tokio::test]
async fn a_slow_analysis_is_kept_when_its_room_is_left_or_rematched() {
    let dir = TempDir::new("serve-slow-review");
    let engine = serve::proxy_engine(&[0], Some(0.5));
    let args = ["--engine", &engine, "--idle-seconds", "1"];
    let server = Serve::start(&sqlite(&dir), &args);
    let finished = |ann: Page, bob: Page, state| async move {
        let (mut ann, mut bob) = (ann, bob);
        play_plies(&mut ann, &mut bob, state, 6).await;
        bob.send(json!({"type": "resign"})).await;
        room_state(&mut ann, |s| s["phase"] == "over").await;
        ann.send(json!({"type": "analyse"})).await;
        room_state(&mut ann, |s| s["analysis"]["status"] == "running").await;
        (ann, bob)
    };
    // Both leave while the analysis runs.
    let (ann, bob, left, _, state) = two_players(&server, None).await;
    drop(finished(ann, bob, state).await);
    // The other room plays a rematch meanwhile.
    let (ann, bob, rematched, _, state) = two_players(&server, None).await;
    let (mut ann, mut bob) = finished(ann, bob, state).await;
    ann.send(json!({"type": "rematch"})).await;
    bob.send(json!({"type": "rematch"})).await;
    room_state(&mut ann, |s| s["game_no"] == 2 && s["phase"] == "playing").await;
    let mut first = json!(null);
    for _ in 0..100 {
        first = replay(&mut ann, 1).await["analysis"].clone();
        if !first.is_null() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(first["evals"].as_array().map(Vec::len), Some(6), "{first}");
    let mut watcher = server.page().await;
    watcher
        .send(json!({"type": "open", "room": rematched}))
        .await;
    let now = room_state(&mut watcher, |s| s["game_no"] == 2).await;
    assert!(now["analysis"].is_null(), "game 2 is not analysed: {now}");
    let mut watcher = server.page().await;
    watcher.send(json!({"type": "open", "room": left})).await;
    let back = room_state(&mut watcher, |s| s["id"] == left.as_str()).await;
    assert_eq!(back["analysis"]["status"], "done", "{back}");
}

/// The texts of a `chat` message's lines, with the seat that said each.
fn chat_lines(chat: &Value) -> Vec<(u64, String)> {
    chat["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .map(|l| {
            (
                l["seat"].as_u64().expect("seat"),
                l["text"].as_str().expect("text").into(),
            )
        })
        .collect()
}

/// The next chat message of `page` that has `count` lines.
async fn chat_of(page: &mut Page, count: usize) -> Vec<(u64, String)> {
    let wanted =
        |m: &Value| m["type"] == "chat" && m["lines"].as_array().map(Vec::len) == Some(count);
    chat_lines(&page.until(wanted).await.0)
}

#[tokio::test]
async fn the_players_chat_is_stored_reaches_both_players_and_never_a_watcher() {
    let dir = TempDir::new("serve-chat");
    let mut server = Serve::start(&sqlite(&dir), &[]);
    let (mut ann, mut bob, room, [ann_token, bob_token], _) = two_players(&server, None).await;
    let mut watcher = server.page().await;
    watcher.send(json!({"type": "open", "room": room})).await;
    room_state(&mut watcher, |s| s["id"] == room.as_str()).await;
    ann.send(json!({"type": "say", "text": "  good luck <b>Bob</b> "}))
        .await;
    let said = vec![(0, "good luck <b>Bob</b>".to_string())];
    assert_eq!(chat_of(&mut ann, 1).await, said);
    assert_eq!(
        chat_of(&mut bob, 1).await,
        said,
        "as typed, trimmed, markup only text"
    );
    watcher
        .send(json!({"type": "say", "text": "play c3-d4!"}))
        .await;
    assert!(error(&mut watcher).await.contains("you hold no seat"));
    for (text, why) in [
        ("", "a chat line has 1 to 140 characters"),
        ("a\nb", "character 2 of the chat line (U+000A) is a control"),
        ("good luck <b>Bob</b>", "you said that just now"),
    ] {
        ann.send(json!({"type": "say", "text": text})).await;
        let refused = error(&mut ann).await;
        assert!(refused.starts_with(why), "{text:?}: {refused}");
    }
    let mut expected = said.clone();
    for n in 1..=5 {
        bob.send(json!({"type": "say", "text": format!("line {n}")}))
            .await;
        expected.push((1, format!("line {n}")));
    }
    bob.send(json!({"type": "say", "text": "line 6"})).await;
    assert!(
        error(&mut bob).await.contains("wait a moment"),
        "a flood is held back"
    );
    assert_eq!(chat_of(&mut ann, 6).await, expected);
    // Ann goes on from another page; the first opens the room without
    // her token, and watches from then on.
    let mut phone = server.page().await;
    phone
        .send(json!({"type": "open", "room": room, "token": ann_token}))
        .await;
    assert_eq!(
        chat_of(&mut phone, 6).await,
        expected,
        "a seat's page gets the chat"
    );
    ann.send(json!({"type": "open", "room": room})).await;
    room_state(&mut ann, |s| s["id"] == room.as_str()).await;
    phone
        .send(json!({"type": "say", "text": "from my phone"}))
        .await;
    expected.push((0, "from my phone".into()));
    assert_eq!(chat_of(&mut bob, 7).await, expected);
    // Neither watcher got a line of the chat from then to the end.
    phone.send(json!({"type": "resign"})).await;
    for page in [&mut watcher, &mut ann] {
        let (_, seen) = page
            .until(|m| m["type"] == "room" && m["phase"] == "over")
            .await;
        assert!(seen.iter().all(|m| m["type"] != "chat"), "{seen:?}");
        assert!(!seen.iter().any(|m| m.to_string().contains("from my phone")));
    }
    drop((ann, bob, watcher, phone));
    tokio::time::sleep(Duration::from_millis(500)).await;
    server.kill9();
    let server = Serve::start(&sqlite(&dir), &[]);
    for (token, seat) in [(&ann_token, 0), (&bob_token, 1)] {
        let mut page = server.page().await;
        page.send(json!({"type": "open", "room": room, "token": token}))
            .await;
        let (seated, _) = page.until(|m| m["type"] == "seated").await;
        assert_eq!(seated["seat"], seat);
        assert_eq!(
            chat_of(&mut page, 7).await,
            expected,
            "stored before it was shown"
        );
    }
}

#[tokio::test]
async fn a_game_the_opponent_left_may_be_claimed_once_they_stay_away() {
    let dir = TempDir::new("serve-claim");
    let server = Serve::start(&sqlite(&dir), &["--claim-after-seconds", "2"]);
    let (mut ann, mut bob, room, [_, bob_token], state) = two_players(&server, None).await;
    let state = play_plies(&mut ann, &mut bob, state, 2).await;
    assert_eq!(state["claim_in_ms"], json!([null, null]), "both here");
    drop(bob);
    let gone = room_state(&mut ann, |s| s["claim_in_ms"][0].is_u64()).await;
    assert_eq!(gone["may"][0]["claim"], false, "not yet: {gone}");
    assert!(gone["claim_in_ms"][0].as_u64() > Some(0));
    ann.send(json!({"type": "claim_win"})).await;
    assert!(error(&mut ann).await.contains("may still come back"));
    // Bob comes back in time: nothing to claim; he leaves again.
    let mut bob = server.page().await;
    bob.send(json!({"type": "open", "room": room, "token": bob_token}))
        .await;
    room_state(&mut ann, |s| s["claim_in_ms"][0].is_null()).await;
    ann.send(json!({"type": "claim_win"})).await;
    assert!(error(&mut ann).await.contains("has not left"));
    drop(bob);
    // The server tells Ann when the wait is over, without her asking.
    let open = room_state(&mut ann, |s| s["may"][0]["claim"] == true).await;
    assert_eq!(open["claim_in_ms"][0], 0);
    ann.send(json!({"type": "claim_win"})).await;
    let over = room_state(&mut ann, |s| s["phase"] == "over").await;
    assert_eq!(over["result"]["result"], "2-0");
    assert_eq!(over["result"]["reason"], "Black left the game");
    assert_eq!(moves(&over), moves(&state));
    // The engine never leaves: nothing to wait for, however long.
    let mut eve = server.page().await;
    let mut engine_setup = setup("engine", None, "white");
    engine_setup["skill"] = json!(1);
    create(&mut eve, "Eve", engine_setup).await;
    room_state(&mut eve, |s| s["seats"][1]["engine"] == true).await;
    eve.send(json!({"type": "claim_win"})).await;
    assert!(error(&mut eve).await.contains("has not left"));
}

/// Ask for a quick game as `name` from the browser `device`: the room
/// and the seat it gave.
async fn quick(
    page: &mut Page,
    name: &str,
    device: &str,
    variant: &str,
    clock: &str,
) -> (String, u64) {
    page.send(json!({"type": "quick", "variant": variant, "clock": clock, "name": name, "device": device}))
        .await;
    let (seated, _) = page.until(|m| m["type"] == "seated").await;
    let room = seated["room"].as_str().expect("room").to_string();
    (room, seated["seat"].as_u64().expect("seat"))
}

#[tokio::test]
async fn a_quick_game_meets_the_first_other_player_waiting_for_the_same() {
    let dir = TempDir::new("serve-quick");
    let server = Serve::start(&sqlite(&dir), &[]);
    let (ann_device, bob_device) = ("a".repeat(32), "b".repeat(32));
    let mut ann = server.page().await;
    let (first, seat) = quick(&mut ann, "Ann", &ann_device, "bashni", "3+2").await;
    assert_eq!(seat, 0, "nobody waits: a new room");
    let mut lobby = server.page().await;
    lobby.send(json!({"type": "lobby"})).await;
    lobby
        .until(|m| m["type"] == "lobby" && m["rooms"].to_string().contains(&first))
        .await;
    // Ann's other tab is not paired with her, nor given a second room
    // of the same game: it is led to the room she waits in. Another
    // game of hers, another clock, another variant wait apart.
    let mut tab = server.page().await;
    tab.send(json!({"type": "quick", "variant": "bashni", "clock": "3+2", "name": "Ann", "device": ann_device}))
        .await;
    let (waits, _) = tab.until(|m| m["type"] == "quick_waiting").await;
    assert_eq!(waits["room"], first.as_str(), "led to her own room");
    let mut tab = server.page().await;
    let (own, _) = quick(&mut tab, "Ann", &ann_device, "bashni", "10+5").await;
    assert_ne!(own, first, "another game of hers waits apart");
    let mut cat = server.page().await;
    let (other_clock, _) = quick(&mut cat, "Cat", &"c".repeat(32), "bashni", "5+3").await;
    let mut cat = server.page().await;
    let (other_variant, _) = quick(&mut cat, "Cat", &"c".repeat(32), "lasca", "3+2").await;
    assert!(![&first, &own].contains(&&other_clock) && ![&first, &own].contains(&&other_variant));
    // Bob meets Ann in the oldest room of the game he asks for.
    let mut bob = server.page().await;
    let (met, seat) = quick(&mut bob, "Bob", &bob_device, "bashni", "3+2").await;
    assert_eq!((met.as_str(), seat), (first.as_str(), 1));
    let playing = room_state(&mut ann, |s| s["phase"] == "playing").await;
    assert_eq!(playing["config"]["clock"], "3+2");
    assert_eq!(playing["seats"][1]["name"], "Bob");
    // A double click asks once.
    bob.send(json!({"type": "quick", "variant": "bashni", "clock": "3+2", "name": "Bob", "device": bob_device}))
        .await;
    assert!(error(&mut bob).await.contains("a moment ago"));
    for (bad, why) in [
        (
            json!({"variant": "chess", "clock": "3+2", "device": bob_device}),
            "variant",
        ),
        (
            json!({"variant": "bashni", "clock": "3+2", "device": "nope"}),
            "device",
        ),
        (
            json!({"variant": "bashni", "clock": "999+0", "device": bob_device}),
            "clock",
        ),
    ] {
        let mut page = server.page().await;
        let mut message = bad.clone();
        message["type"] = json!("quick");
        message["name"] = json!("Eve");
        page.send(message).await;
        assert!(error(&mut page).await.contains(why), "{bad}");
    }
}

#[tokio::test]
async fn quick_games_meet_only_each_other_and_when_asked_at_once() {
    let dir = TempDir::new("serve-quick-once");
    let server = Serve::start(&sqlite(&dir), &[]);
    // A room from the form with the same game: its creator chose White.
    let mut dan = server.page().await;
    let (form_room, _) = create(&mut dan, "Dan", setup("anyone", Some("10+5"), "white")).await;
    room_state(&mut dan, |s| s["phase"] == "waiting").await;
    let mut eve = server.page().await;
    let (room, seat) = quick(&mut eve, "Eve", &"e".repeat(32), "bashni", "10+5").await;
    assert_eq!(seat, 0, "not Dan's room from the form");
    assert_ne!(room, form_room);
    // Two players asking at the same moment meet, however often.
    for (n, clock) in ["1+0", "15+10", "0.5+1"].iter().enumerate() {
        let (mut first, mut second) = (server.page().await, server.page().await);
        let ask = |device: &str| json!({"type": "quick", "variant": "lasca", "clock": clock, "name": format!("P{n}"), "device": device.repeat(32)});
        tokio::join!(first.send(ask("1")), second.send(ask("2")));
        let (a, _) = first.until(|m| m["type"] == "seated").await;
        let (b, _) = second.until(|m| m["type"] == "seated").await;
        assert_eq!(a["room"], b["room"], "{clock}: they meet");
        assert_ne!(a["seat"], b["seat"]);
    }
}

/// A quick game waiting when the server is killed is paired again after
/// the restart (once its creator's page is back on it), with another
/// browser only.
#[tokio::test]
async fn a_quick_game_waiting_through_a_restart_is_paired_after_it() {
    let dir = TempDir::new("serve-quick-restart");
    let mut server = Serve::start(&sqlite(&dir), &[]);
    let ann_device = "a".repeat(32);
    let mut ann = server.page().await;
    ann.send(json!({"type": "quick", "variant": "lasca", "clock": "1+0", "name": "Ann", "device": ann_device}))
        .await;
    let (seated, _) = ann.until(|m| m["type"] == "seated").await;
    let (room, token) = (seated["room"].clone(), seated["token"].clone());
    server.kill9();
    let server = Serve::start(&sqlite(&dir), &[]);
    let mut ann = server.page().await;
    ann.send(json!({"type": "open", "room": room, "token": token}))
        .await;
    room_state(&mut ann, |s| s["phase"] == "waiting").await;
    let mut tab = server.page().await;
    tab.send(json!({"type": "quick", "variant": "lasca", "clock": "1+0", "name": "Ann", "device": ann_device}))
        .await;
    let (waits, _) = tab.until(|m| m["type"] == "quick_waiting").await;
    assert_eq!(waits["room"], room, "still Ann's quick game");
    let mut bob = server.page().await;
    let (met, seat) = quick(&mut bob, "Bob", &"b".repeat(32), "lasca", "1+0").await;
    assert_eq!((json!(met), seat), (room, 1), "Bob meets Ann");
}

#[tokio::test]
async fn nobody_chats_with_an_engine_or_an_empty_seat() {
    let dir = TempDir::new("serve-chat-alone");
    let server = Serve::start(&sqlite(&dir), &[]);
    let mut ann = server.page().await;
    create(&mut ann, "Ann", setup("anyone", None, "white")).await;
    ann.send(json!({"type": "say", "text": "anyone here?"}))
        .await;
    assert!(error(&mut ann).await.contains("has not sat down yet"));
    let mut eve = server.page().await;
    let mut engine_setup = setup("engine", None, "white");
    engine_setup["skill"] = json!(1);
    create(&mut eve, "Eve", engine_setup).await;
    room_state(&mut eve, |s| s["seats"][1]["engine"] == true).await;
    eve.send(json!({"type": "say", "text": "hello engine"}))
        .await;
    assert!(error(&mut eve).await.contains("no chat with the engine"));
}

/// One address has at most `--engine-games-per-address` games against
/// the engine going (the engines are everyone's), however many it asks
/// for at once: one more is refused until one of them ends, and a
/// rematch in an engine room counts as a new game.
#[tokio::test]
async fn one_address_has_a_bounded_number_of_engine_games_going() {
    let dir = TempDir::new("serve-engine-games");
    let server = Serve::start(&sqlite(&dir), &["--engine-games-per-address", "2"]);
    let mut engine_setup = setup("engine", Some("5+3"), "white");
    engine_setup["skill"] = json!(1);
    let ask = json!({"type": "create", "name": "Ann", "setup": engine_setup});
    let refusal = "at most 2 games against the engine at once from one address: finish one first";
    let mut seated: Vec<Page> = five_ask_at_once(&server, &ask, refusal)
        .await
        .into_iter()
        .map(|(page, _)| page)
        .collect();
    assert_eq!(seated.len(), 2, "five asked at once, two seated");
    // A room against a person is not counted.
    let mut person = server.page().await;
    create(&mut person, "Ann", setup("anyone", None, "white")).await;
    let first = &mut seated[0];
    room_state(first, |s| s["seats"][1]["engine"] == true).await;
    first.send(json!({"type": "abort"})).await;
    room_state(first, |s| s["phase"] == "over").await;
    let mut third = server.page().await;
    create(&mut third, "Ann", engine_setup).await;
    first.send(json!({"type": "rematch"})).await;
    assert_eq!(
        error(first).await,
        "at most 2 games against the engine at once from one address: finish one first",
        "a rematch is another game"
    );
}

/// `ask` sent at once by five pages of one address: the pages seated,
/// each with its `seated` answer; every other page is refused `refusal`.
async fn five_ask_at_once(server: &Serve, ask: &Value, refusal: &str) -> Vec<(Page, Value)> {
    let mut pages = Vec::new();
    for _ in 0..5 {
        let mut page = server.page().await;
        page.send(ask.clone()).await;
        pages.push(page);
    }
    let mut seated = Vec::new();
    for mut page in pages {
        let (answer, _) = page
            .until(|m| m["type"] == "seated" || m["type"] == "error")
            .await;
        match answer["type"].as_str() {
            Some("seated") => seated.push((page, answer)),
            _ => assert_eq!(answer["message"], refusal),
        }
    }
    seated
}

/// One address has at most `--waiting-rooms-per-address` rooms waiting
/// for an opponent (the lobby lists so many), however many it asks for
/// at once; a room that found its opponent no longer counts, a room
/// against the engine never waits, and one for whoever has its link is
/// not listed.
#[tokio::test]
async fn one_address_has_a_bounded_number_of_rooms_waiting() {
    let dir = TempDir::new("serve-waiting-rooms");
    let server = Serve::start(&sqlite(&dir), &["--waiting-rooms-per-address", "2"]);
    let ask =
        json!({"type": "create", "name": "Ann", "setup": setup("anyone", Some("5+3"), "white")});
    let refusal =
        "at most 2 rooms waiting for an opponent at once from one address: close one first";
    let waiting: Vec<String> = five_ask_at_once(&server, &ask, refusal)
        .await
        .iter()
        .map(|(_, seated)| seated["room"].as_str().expect("room").to_string())
        .collect();
    assert_eq!(waiting.len(), 2, "five asked at once, two seated");
    let mut more = server.page().await;
    more.send(ask.clone()).await;
    assert_eq!(error(&mut more).await, refusal);
    let mut engine_setup = setup("engine", None, "white");
    engine_setup["skill"] = json!(1);
    create(&mut more, "Ann", engine_setup).await;
    // A room for whoever has the link is not in the lobby: not counted.
    create(
        &mut server.page().await,
        "Ann",
        setup("link", None, "white"),
    )
    .await;
    let mut bob = server.page().await;
    bob.send(json!({"type": "join", "room": waiting[0], "name": "Bob"}))
        .await;
    room_state(&mut bob, |s| s["phase"] == "playing").await;
    create(
        &mut server.page().await,
        "Ann",
        setup("anyone", None, "black"),
    )
    .await;
}

/// A game without a clock that both players left leaves memory after
/// `--idle-seconds` (and the lobby's list of games being played), and
/// comes back as it was when a player opens it again; one address brings
/// back so many stored rooms a minute.
#[tokio::test]
async fn an_untimed_game_left_alone_leaves_memory_and_comes_back_when_opened() {
    let dir = TempDir::new("serve-sleep");
    let args = ["--idle-seconds", "1", "--rooms-reopened-per-minute", "1"];
    let server = Serve::start(&sqlite(&dir), &args);
    let (mut ann, mut bob, room, [ann_token, bob_token], state) = two_players(&server, None).await;
    let state = play_plies(&mut ann, &mut bob, state, 2).await;
    let listed = |m: &Value, yes: bool| {
        m["type"] == "lobby" && m["rooms"].to_string().contains(&room) == yes
    };
    let mut lobby = server.page().await;
    lobby.send(json!({"type": "lobby"})).await;
    lobby.until(|m| listed(m, true)).await;
    drop((ann, bob));
    lobby.until(|m| listed(m, false)).await;
    let mut ann = server.page().await;
    ann.send(json!({"type": "open", "room": room, "token": ann_token}))
        .await;
    let (seated, _) = ann.until(|m| m["type"] == "seated").await;
    assert_eq!(seated["seat"], 0, "her seat is hers again");
    let back = room_state(&mut ann, |s| s["phase"] == "playing").await;
    assert_eq!(moves(&back), moves(&state), "the moves as they were");
    assert_eq!(back["to_move"], "white");
    let mut bob = server.page().await;
    bob.send(json!({"type": "open", "room": room, "token": bob_token}))
        .await;
    bob.until(|m| m["type"] == "seated").await;
    play_plies(&mut ann, &mut bob, back, 2).await;
    drop((ann, bob));
    lobby.until(|m| listed(m, false)).await;
    let mut again = server.page().await;
    again
        .send(json!({"type": "open", "room": room, "token": ann_token}))
        .await;
    assert_eq!(
        error(&mut again).await,
        "at most 1 stored rooms opened a minute from one address"
    );
}

#[tokio::test]
async fn a_reload_resumes_the_seat_and_no_other_token_moves() {
    let dir = TempDir::new("serve-seat");
    let server = Serve::start(&sqlite(&dir), &[]);
    let (ann, _bob, room, [ann_token, bob_token], _) = two_players(&server, None).await;
    drop(ann);
    // A reload: a new page with the token the browser kept.
    let mut again = server.page().await;
    again
        .send(json!({"type": "open", "room": room, "token": ann_token}))
        .await;
    let (seated, _) = again.until(|m| m["type"] == "seated").await;
    assert_eq!(seated["seat"], 0);
    let state = room_state(&mut again, |s| s["phase"] == "playing").await;
    // A guessed token, and Bob's token used by someone else on White's turn.
    let mut thief = server.page().await;
    let guess = "0123456789abcdef0123456789abcdef";
    thief
        .send(json!({"type": "open", "room": room, "token": guess}))
        .await;
    assert!(error(&mut thief).await.contains("holds no seat"));
    thief
        .send(json!({"type": "move", "text": first_legal(&state)}))
        .await;
    assert!(error(&mut thief).await.contains("you hold no seat"));
    let mut impostor = server.page().await;
    impostor
        .send(json!({"type": "open", "room": room, "token": bob_token}))
        .await;
    impostor
        .send(json!({"type": "move", "text": first_legal(&state)}))
        .await;
    assert!(error(&mut impostor).await.contains("not your turn"));
    again
        .send(json!({"type": "move", "text": first_legal(&state)}))
        .await;
    let moved = room_state(&mut again, |s| moves(s).len() == 1).await;
    assert_eq!(moves(&moved), [first_legal(&state)]);
}

#[tokio::test]
async fn hostile_clients_are_refused_and_cut_off() {
    let dir = TempDir::new("serve-hostile");
    let server = Serve::start(&sqlite(&dir), &["--rooms-per-minute", "3"]);
    let own_host = format!("127.0.0.1:{}", server.port);
    assert_eq!(server.get("/", "evil.example", &[]).0, 403, "foreign Host");
    assert_eq!(
        server
            .get("/", &own_host, &[("Origin", "http://evil.example")])
            .0,
        403,
        "foreign Origin"
    );
    let (status, _) = server.get("/", &own_host, &[]);
    assert_eq!(status, 200);
    // An address that names no page, or no room, says so and leads back.
    for path in ["/nonexistent", "/room/doesnotexist", "/room/../etc/passwd"] {
        let (status, body) = server.get(path, &own_host, &[]);
        assert_eq!(status, 404, "{path}");
        assert!(body.contains("Go to the lobby"), "{path}: {body}");
    }
    let room_shaped = format!("/room/{}", "0".repeat(32));
    assert_eq!(server.get(&room_shaped, &own_host, &[]).0, 200);
    let ws = format!("ws://127.0.0.1:{}/ws", server.port);
    assert_eq!(
        Page::open(&ws, Some("http://evil.example")).await.err(),
        Some(403)
    );
    assert_eq!(Page::open(&ws, None).await.err(), Some(403));

    let mut page = server.page().await;
    page.send_text("not json").await;
    assert!(error(&mut page).await.contains("bad message"));
    page.send(json!({"type": "setoption", "name": "Hash", "value": "4096"}))
        .await;
    assert!(error(&mut page).await.contains("unknown variant"));
    let mut engine_setup = setup("engine", None, "white");
    engine_setup["skill"] = json!(99);
    page.send(json!({"type": "create", "name": "Eve", "setup": engine_setup}))
        .await;
    assert!(error(&mut page).await.starts_with("skill: 0 to"));
    page.send(json!({"type": "create", "name": "", "setup": setup("anyone", None, "white")}))
        .await;
    assert_eq!(
        error(&mut page).await,
        "a name needs a character other than a space"
    );
    page.send(
        json!({"type": "create", "name": "Ann\u{200B}", "setup": setup("anyone", None, "white")}),
    )
    .await;
    assert!(
        error(&mut page)
            .await
            .starts_with("character 4 of the name (U+200B) is a control, invisible")
    );

    // A name is checked before it is used, with the words a refusal says.
    for (name, problem) in [
        ("Rival 3", Some("a name may not read as the engine's")),
        ("Ann\u{200B}", Some("character 4 of the name (U+200B)")),
        (" Ann ", None),
    ] {
        page.send(json!({"type": "check_name", "name": name})).await;
        let (answer, _) = page.until(|m| m["type"] == "name_checked").await;
        assert_eq!(answer["name"], name);
        let said = answer["problem"].as_str();
        match problem {
            Some(start) => assert!(said.is_some_and(|p| p.starts_with(start)), "{answer}"),
            None => assert!(answer["problem"].is_null(), "{answer}"),
        }
    }

    // A name with markup travels as text (the page puts it in text nodes).
    let html = "<img src=x onerror=alert(1)>";
    let (room, _) = create(&mut page, html, setup("anyone", None, "white")).await;
    let state = room_state(&mut page, |s| s["id"] == room.as_str()).await;
    assert_eq!(state["seats"][0]["name"], html);
    for name in ["Eve 2", "Eve 3"] {
        create(&mut page, name, setup("link", None, "white")).await;
    }
    page.send(json!({"type": "create", "name": "Eve 4", "setup": setup("anyone", None, "white")}))
        .await;
    assert!(
        error(&mut page)
            .await
            .contains("at most 3 new rooms a minute")
    );

    // Over the 32 KiB a client message may have (a pasted PDN fits): a
    // little over is told the limit; far over closes the socket before
    // the frame is read whole.
    let mut big = server.page().await;
    let oversized = |bytes| format!(r#"{{"type":"move","text":"{}"}}"#, "x".repeat(bytes));
    big.send_text(&oversized(40_000)).await;
    let told = error(&mut big).await;
    assert!(told.contains("at most 32768"), "{told}");
    big.send_text(&oversized(100_000)).await;
    assert_eq!(
        big.close_frame().await,
        Some((1009, "a message far over the size limit".into())),
        "a message far over the limit closes the socket, saying why"
    );
    // A text frame that is not UTF-8 closes it too, saying so.
    let mut garbled = server.page().await;
    assert!(
        garbled
            .try_send_raw_text(b"{\"type\":\"lobby\xff\"}".to_vec())
            .await
    );
    assert_eq!(
        garbled.close_frame().await,
        Some((1007, "a text message that is not UTF-8".into()))
    );

    // Past the burst a page is told to slow down; a page that keeps
    // flooding is cut off.
    let mut flood = server.page().await;
    for _ in 0..60 {
        flood.send(json!({"type": "lobby"})).await;
    }
    assert!(error(&mut flood).await.contains("too many messages"));
    for _ in 0..400 {
        if !flood.try_send(json!({"type": "lobby"})).await {
            break;
        }
    }
    // It is sent a close frame saying why, and the server reads on a
    // moment (what a client still sends) so that the frame is not lost
    // to a reset.
    assert_eq!(
        flood.close_frame().await,
        Some((1008, "too many messages".into())),
        "a flooding page is cut off, told why"
    );
    // Binary messages count against the rate like any other.
    let mut binary = server.page().await;
    for _ in 0..400 {
        if !binary.try_send_binary(vec![0; 8]).await {
            break;
        }
    }
    assert!(binary.is_closed().await, "binary floods too");
    // So do pings: each is answered, so a flood of them is work.
    let mut pings = server.page().await;
    for _ in 0..400 {
        if !pings.try_send_ping().await {
            break;
        }
    }
    assert!(pings.is_closed().await, "ping floods too");
}

/// A page that answers no pings (a lost network closes nothing) is taken
/// for gone: dropped, and its open game leaves the lobby; a page that
/// answers stays.
#[tokio::test]
async fn a_page_that_answers_no_pings_is_dropped() {
    let dir = TempDir::new("serve-pings");
    let server = Serve::start(&sqlite(&dir), &["--ping-seconds", "1"]);
    let mut silent = server.page().await;
    let (room, _) = create(&mut silent, "Ann", setup("anyone", None, "white")).await;
    let mut lobby = server.page().await;
    lobby.send(json!({"type": "lobby"})).await;
    lobby
        .until(|m| m["type"] == "lobby" && m["rooms"].to_string().contains(&room))
        .await;
    // The lobby page reads (and so answers pings); the silent one does
    // not read at all for five pings.
    let (gone, _) = lobby
        .until(|m| m["type"] == "lobby" && !m["rooms"].to_string().contains(&room))
        .await;
    assert!(!gone["rooms"].to_string().contains(&room));
    assert!(silent.is_closed().await, "the silent page is dropped");
    // Reading (and so answering pings) for four more of them.
    let until = tokio::time::Instant::now() + Duration::from_secs(4);
    while tokio::time::Instant::now() < until {
        let _ = tokio::time::timeout_at(until, lobby.next()).await;
    }
    lobby.send(json!({"type": "lobby"})).await;
    assert!(
        lobby.next_within(Duration::from_secs(2)).await.is_some(),
        "a page that answers pings stays"
    );
}

/// Start three games (two with clocks), play a few moves in each (leave
/// a draw offer pending in the first, decline a draw offer in the second
/// and take a move back after it, decline a takeback in the third),
/// finish a fourth, kill the server with SIGKILL, wait, start it again on
/// the same database: every game is back with its moves, offers and
/// clocks (the time a takeback kept spent included), the downtime is not
/// charged, and the players take their seats again and play on; the
/// finished game is shown as it ended, its clocks as they stopped.
async fn kill_nine_and_restart(database: &str) {
    let mut server = Serve::start(database, &[]);
    let mut games = Vec::new();
    for (clock, plies) in [(Some("5+3"), 3), (Some("10+5"), 4), (None, 5)] {
        let (mut ann, mut bob, room, tokens, state) = two_players(&server, clock).await;
        let mut state = play_plies(&mut ann, &mut bob, state, plies).await;
        if games.is_empty() {
            ann.send(json!({"type": "offer_draw"})).await;
            state = room_state(&mut bob, |s| s["draw_offer"] == "white").await;
            ann.send(json!({"type": "say", "text": "a draw?"})).await;
            chat_of(&mut bob, 1).await;
        }
        if games.len() == 1 {
            state = white_asks_black_declines(&mut ann, &mut bob, "offer_draw", "draw_offer").await;
            assert_eq!(state["may"][0]["offer_draw"], false, "not again so soon");
            // A takeback clears the stored offers, but not when each side
            // last offered a draw.
            state = take_back_after_thinking(&mut ann, &mut bob, &state).await;
            assert_eq!(state["may"][0]["offer_draw"], false, "nor after a takeback");
        }
        if games.len() == 2 {
            state = white_asks_black_declines(&mut ann, &mut bob, "takeback", "takeback").await;
            assert_eq!(
                state["may"][0]["takeback"], false,
                "not again in this position"
            );
        }
        games.push((room, tokens, state));
    }
    let (mut ann, mut bob, finished, _, state) = two_players(&server, Some("5+3")).await;
    // Past the first moves (which no clock is charged for), White moves.
    let finished_state = play_plies(&mut ann, &mut bob, state, 3).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    bob.send(json!({"type": "resign"})).await;
    let over = room_state(&mut ann, |s| s["phase"] == "over").await;
    let black_ms = |s: &Value| s["clock_ms"][1].as_i64().expect("Black's clock");
    assert!(
        black_ms(&over) <= black_ms(&finished_state) - 300,
        "Black's clock stops where it ran when he resigned: {} after {}",
        black_ms(&over),
        black_ms(&finished_state)
    );
    ann.send(json!({"type": "analyse"})).await;
    let analysis =
        room_state(&mut ann, |s| s["analysis"]["status"] == "done").await["analysis"].clone();
    let waiting = waiting_room_as_black_from(&server, SET_POSITION).await;
    tokio::time::sleep(Duration::from_millis(2500)).await;
    server.kill9();
    let downtime = Duration::from_secs(6);
    tokio::time::sleep(downtime).await;
    let server = Serve::start(database, &[]);
    assert_eq!(
        server.restored, 4,
        "every unfinished game comes back, and the room still waiting"
    );
    waiting_room_opens_as_made(&server, &waiting, SET_POSITION).await;
    let mut watcher = server.page().await;
    watcher
        .send(json!({"type": "open", "room": finished}))
        .await;
    let ended = room_state(&mut watcher, |s| s["id"] == finished.as_str()).await;
    assert_eq!(
        ended["phase"], "over",
        "a finished room is shown as it ended"
    );
    assert_eq!(ended["result"]["result"], "2-0");
    assert_eq!(ended["result"]["reason"], "Black resigned");
    assert_eq!(moves(&ended), moves(&finished_state));
    assert_eq!(
        ended["clock_ms"], over["clock_ms"],
        "the clocks as they stopped, not as the last move left them"
    );
    assert_eq!(ended["analysis"], analysis, "the analysis as it was shown");
    assert_eq!(ended["may_analyse"], false, "and not asked for again");
    assert_eq!(
        replay(&mut watcher, 1).await["end_clock_ms"],
        over["clock_ms"],
        "a replay's end shows the clocks as they stopped"
    );
    assert_eq!(
        replay(&mut watcher, 1).await["analysis"],
        analysis,
        "a replay carries it"
    );
    analysis_in_pdn(&server, &finished, &analysis);
    assert_eq!(games[0].2["draw_offer"], "white");
    for (room, tokens, before) in &games {
        let to_move = usize::from(before["to_move"] == "black");
        let seat = if before["seats"][0]["colour"] == before["to_move"] {
            0
        } else {
            1
        };
        let mut page = server.page().await;
        page.send(json!({"type": "open", "room": room, "token": tokens[seat]}))
            .await;
        let (seated, _) = page.until(|m| m["type"] == "seated").await;
        assert_eq!(seated["seat"], seat);
        let after = room_state(&mut page, |s| s["id"] == room.as_str()).await;
        assert_eq!(moves(&after), moves(before), "the same moves");
        assert!(
            after["seq"].as_u64() > before["seq"].as_u64(),
            "the restored room numbers its states after the ones pages show \
             (a page ignores older numbers): {} after {}",
            after["seq"],
            before["seq"]
        );
        assert_eq!(after["draw_offer"], before["draw_offer"], "the same offers");
        assert_eq!(
            after["may"], before["may"],
            "what each side may ask, as before: a declined draw or takeback is not asked again at once"
        );
        if *room == games[0].0 {
            let said = vec![(0, "a draw?".to_string())];
            assert_eq!(chat_of(&mut page, 1).await, said, "the same chat");
        }
        assert_eq!(
            after["clock_ms"][1 - to_move],
            before["clock_ms"][1 - to_move],
            "the clock not running is as it was stored"
        );
        if let (Some(was), Some(now)) = (
            before["clock_ms"][to_move].as_i64(),
            after["clock_ms"][to_move].as_i64(),
        ) {
            // Charged at most from its turn's start to the last heartbeat
            // (every 2 s) plus the 2.5 s waited before the kill: never the
            // 6 s the server was down.
            let charged = was - now;
            assert!(charged < 5_000, "{charged} ms charged across the restart");
        }
        page.send(json!({"type": "move", "text": first_legal(&after)}))
            .await;
        let played = room_state(&mut page, |s| moves(s).len() == moves(before).len() + 1).await;
        assert_eq!(played["phase"], "playing");
    }
}

/// A server that comes back under another name (`--server-id`) charges
/// the turn up to the last server's last heartbeat, as under its own: it
/// read only its own name's, found none, and gave the mover the whole
/// turn back.
#[tokio::test]
async fn a_server_back_under_another_name_charges_the_turn() {
    let dir = TempDir::new("serve-rename");
    let database = sqlite(&dir);
    let mut server = Serve::start(&database, &[]);
    let (mut ann, mut bob, room, tokens, state) = two_players(&server, Some("5+0")).await;
    let state = play_plies(&mut ann, &mut bob, state, 2).await;
    tokio::time::sleep(Duration::from_millis(4_500)).await;
    server.kill9();
    let server = Serve::start(&database, &["--server-id", "another"]);
    let mut page = server.page().await;
    page.send(json!({"type": "open", "room": room, "token": tokens[0]}))
        .await;
    let after = room_state(&mut page, |s| s["id"] == room.as_str()).await;
    let white_ms = |s: &Value| s["clock_ms"][0].as_i64().expect("White's clock");
    let charged = white_ms(&state) - white_ms(&after);
    // At least up to the last heartbeat (every 2 s) of the 4.5 s thought.
    assert!(
        (2_000..6_000).contains(&charged),
        "{charged} ms charged across the restart"
    );
}

/// White (Ann) asks by message `ask`, which the room shows in its field
/// `field`; Black (Bob) declines it: the state White is shown after.
async fn white_asks_black_declines(
    ann: &mut Page,
    bob: &mut Page,
    ask: &str,
    field: &str,
) -> Value {
    ann.send(json!({ "type": ask })).await;
    room_state(ann, |s| s[field] == "white").await;
    room_state(bob, |s| s[field] == "white").await;
    let decline = format!("decline_{}", ask.trim_start_matches("offer_"));
    bob.send(json!({ "type": decline })).await;
    room_state(ann, |s| s[field].is_null()).await
}

/// The PDN file of `room` holds `analysis` of its one game: each move's
/// mark, and the score after it as its comment.
fn analysis_in_pdn(server: &Serve, room: &str, analysis: &Value) {
    let (status, pdn) = server.get(
        &format!("/pdn/{room}"),
        &format!("127.0.0.1:{}", server.port),
        &[],
    );
    assert_eq!(status, 200);
    let games = bashni_host::pdn::parse_pdn(&pdn).expect("the PDN reads back");
    let game = &games[0];
    assert!(
        game.tag("Annotator")
            .is_some_and(|a| a.starts_with("bashni serve")),
        "{pdn}"
    );
    let marks: Vec<Value> = game.marks.iter().map(|m| json!(m)).collect();
    assert_eq!(Value::from(marks), analysis["marks"], "{pdn}");
    let pawns = |cp: &Value| format!("{:+.2}", cp.as_f64().unwrap_or(f64::NAN) / 100.0);
    let scores: Vec<Option<String>> = match analysis["evals"].as_array() {
        Some(evals) => evals.iter().map(|cp| Some(pawns(cp))).collect(),
        None => panic!("no scores: {analysis}"),
    };
    assert_eq!(game.comments, scores, "{pdn}");
}

/// A position set for a room's games: Black to move at move 12.
const SET_POSITION: &str = "B:g1w,c3w,e3w,b6b,d6b,h8b 0 12";

/// Cat opens a room in which she plays Black from `start`, and nobody
/// joins yet: its id.
async fn waiting_room_as_black_from(server: &Serve, start: &str) -> String {
    let mut cat = server.page().await;
    let mut made = setup("anyone", None, "black");
    made["start"] = json!(start);
    let (room, _) = create(&mut cat, "Cat", made).await;
    room_state(&mut cat, |s| s["phase"] == "waiting").await;
    // The lobby tells a joiner the game is not from the start.
    let mut lobby = server.page().await;
    lobby.send(json!({"type": "lobby"})).await;
    let (list, _) = lobby
        .until(|m| m["type"] == "lobby" && m["rooms"].to_string().contains(&room))
        .await;
    let line = (list["rooms"].as_array().expect("rooms").iter())
        .find(|r| r["id"] == room.as_str())
        .expect("listed");
    assert_eq!(line["from_position"], true, "{line}");
    room
}

/// Dan joins the waiting `room` after a restart: the game is the one its
/// creator made, Cat Black and the board at `start`.
async fn waiting_room_opens_as_made(server: &Serve, room: &str, start: &str) {
    let mut dan = server.page().await;
    dan.send(json!({"type": "join", "room": room, "name": "Dan"}))
        .await;
    let state = room_state(&mut dan, |s| s["phase"] == "playing").await;
    assert_eq!(state["seats"][0]["name"], "Cat");
    assert_eq!(state["seats"][0]["colour"], "black", "the creator's colour");
    assert_eq!(state["seats"][1]["colour"], "white");
    assert_eq!(state["start_fen"], start, "the creator's start position");
    assert_eq!(state["to_move"], "black");
}

/// With White (Ann) to move, she thinks a while, and Black (Bob) asks to
/// take back his last move, which she grants: Black is to move again, and
/// White's clock has been charged for her thinking (time spent stays
/// spent). The state after it, as Bob saw it.
async fn take_back_after_thinking(ann: &mut Page, bob: &mut Page, state: &Value) -> Value {
    assert_eq!(state["to_move"], "white");
    let thinking = Duration::from_millis(400);
    tokio::time::sleep(thinking).await;
    bob.send(json!({"type": "takeback"})).await;
    room_state(ann, |s| s["takeback"] == "black").await;
    ann.send(json!({"type": "accept_takeback"})).await;
    let plies = moves(state).len() - 1;
    let after = room_state(bob, |s| moves(s).len() == plies).await;
    assert_eq!(after["to_move"], "black");
    let white_ms = |s: &Value| s["clock_ms"][0].as_i64().expect("White's clock");
    assert!(
        white_ms(&after) <= white_ms(state) - 400,
        "White's thinking stays charged: {} after {}",
        white_ms(&after),
        white_ms(state)
    );
    after
}

#[tokio::test]
async fn kill_nine_mid_games_then_every_game_resumes_sqlite() {
    let dir = TempDir::new("serve-kill");
    kill_nine_and_restart(&sqlite(&dir)).await;
}

#[tokio::test]
async fn kill_nine_mid_games_then_every_game_resumes_postgres() {
    let Some(server) = postgres::start_or_skip("the PostgreSQL restart test") else {
        return;
    };
    kill_nine_and_restart(&server.url("postgres")).await;
}

/// While the database does not answer, a move is refused saying so, and
/// not played; once it answers again the game goes on from where it was,
/// the mover's clock not charged the time the server waited on it for the
/// move, nor for the opponent's chat line, but for its own chat line (its
/// lines would stop its clock otherwise).
#[tokio::test]
async fn a_move_while_the_database_is_down_is_refused_then_the_game_goes_on() {
    let Some(pg) = postgres::start_or_skip("the database outage test") else {
        return;
    };
    let server = Serve::start(&pg.url("postgres"), &[]);
    let (mut ann, mut bob, _, _, state) = two_players(&server, Some("1+0")).await;
    let state = play_plies(&mut ann, &mut bob, state, 2).await;
    // Past the free first moves: White's clock runs from here.
    let turn_began = Instant::now();
    pg.stop();
    let text = first_legal(&state);
    let (said, move_wait) = refused_after(&mut ann, json!({"type": "move", "text": text})).await;
    assert_eq!(
        said,
        "not stored, not played: the database does not answer (no connection within 5 s)"
    );
    let (said, bob_wait) =
        refused_after(&mut bob, json!({"type": "say", "text": "still there?"})).await;
    assert!(said.starts_with("not stored, not sent"), "{said}");
    let (said, ann_wait) =
        refused_after(&mut ann, json!({"type": "say", "text": "it is slow"})).await;
    assert!(said.starts_with("not stored, not sent"), "{said}");
    pg.start_again().expect("PostgreSQL back");
    let thought = millis(turn_began.elapsed());
    ann.send(json!({"type": "move", "text": text})).await;
    let after = room_state(&mut bob, |s| moves(s).len() == 3).await;
    assert_eq!(moves(&after)[..2], moves(&state)[..]);
    assert_eq!(moves(&after)[2], text);
    let white_ms = |s: &Value| s["clock_ms"][0].as_i64().expect("White's clock");
    let charged = white_ms(&state) - white_ms(&after);
    let expected = thought - move_wait - bob_wait;
    assert!(
        (charged - expected).abs() <= 1_500,
        "White charged {charged} ms of {thought}, not about {expected}: the move's {move_wait} ms \
         and Bob's line's {bob_wait} ms given back, her own line's {ann_wait} ms not"
    );
}

/// A watcher who opens a game whose clock has run a while gets the
/// clock as it stands at once, not only the last state's (shown as the
/// mover's time three seconds ago for up to a second).
#[tokio::test]
async fn a_watcher_opening_mid_turn_sees_the_clock_as_it_stands() {
    let dir = TempDir::new("serve-watch-clock");
    let server = Serve::start(&sqlite(&dir), &[]);
    let (mut ann, mut bob, room, _, state) = two_players(&server, Some("5+0")).await;
    let state = play_plies(&mut ann, &mut bob, state, 2).await;
    let white_ms = |s: &Value| s["clock_ms"][0].as_i64().expect("White's clock");
    tokio::time::sleep(Duration::from_secs(3)).await;
    let mut cat = server.page().await;
    let opened = Instant::now();
    cat.send(json!({"type": "open", "room": room})).await;
    room_state(&mut cat, |s| white_ms(s) <= white_ms(&state) - 2_500).await;
    let waited = opened.elapsed();
    assert!(
        waited < Duration::from_millis(600),
        "the clock as it stands came {waited:?} after opening"
    );
}

/// A move whose commit reached the database but whose answer was lost
/// (the connection broke on the way back) is played, as the store has
/// it: put back, the room stayed behind its own store, every later move
/// refused as "stored already" until the mover lost on time. (The proxy
/// runs beside the server's start, which blocks its thread.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_stored_whose_answer_was_lost_is_played() {
    let Some(pg) = postgres::start_or_skip("the lost answer test") else {
        return;
    };
    let proxy = lost_answer::LostAnswer::start(pg.port).await;
    let url = format!("postgres://postgres@127.0.0.1:{}/postgres", proxy.port);
    let server = Serve::start(&url, &[]);
    let (mut ann, mut bob, _, _, state) = two_players(&server, Some("5+0")).await;
    let state = play_plies(&mut ann, &mut bob, state, 2).await;
    proxy.arm();
    let text = first_legal(&state);
    ann.send(json!({"type": "move", "text": text})).await;
    let after = room_state(&mut bob, |s| moves(s).len() == 3).await;
    assert_eq!(moves(&after)[2], text);
    assert!(proxy.lost(), "the answer to the move's commit was lost");
    // The game goes on: Bob's answer is stored and shown.
    let reply = first_legal(&after);
    bob.send(json!({"type": "move", "text": reply})).await;
    let on = room_state(&mut ann, |s| moves(s).len() == 4).await;
    assert_eq!(moves(&on)[3], reply);
}

/// `message`, sent by `page` and refused: what was said, and how long the
/// refusal took, in milliseconds.
async fn refused_after(page: &mut Page, message: Value) -> (String, i64) {
    let asked = Instant::now();
    page.send(message).await;
    let said = error(page).await;
    (said, millis(asked.elapsed()))
}

fn millis(time: Duration) -> i64 {
    i64::try_from(time.as_millis()).expect("milliseconds")
}

/// Two servers started at the same moment on a database whose last
/// server is gone: one runs, the other is refused (both found the
/// heartbeats stale, and both ran, until the database's lease).
#[tokio::test]
async fn of_two_servers_started_at_once_one_runs() {
    let dir = TempDir::new("serve-two-at-once");
    let database = sqlite(&dir);
    let mut first = Serve::start(&database, &[]);
    first.kill9();
    // Its heartbeat and lease go stale.
    tokio::time::sleep(Duration::from_millis(4_500)).await;
    let start = |id: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_bashni"))
            .args(["serve", "--listen", "127.0.0.1:0", "--database", &database])
            .args(["--server-id", id])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("bashni runs")
    };
    let mut servers = [start("a"), start("b")];
    let deadline = Instant::now() + Duration::from_secs(30);
    let (loser, status) = loop {
        let ended = (servers.iter_mut().enumerate())
            .find_map(|(i, s)| s.try_wait().expect("its state").map(|status| (i, status)));
        if let Some(ended) = ended {
            break ended;
        }
        if Instant::now() > deadline {
            servers.iter_mut().for_each(|s| drop(s.kill()));
            panic!("both servers run on one database");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let mut said = String::new();
    let stderr = servers[loser].stderr.take().expect("stderr");
    std::io::Read::read_to_string(&mut { stderr }, &mut said).expect("its words");
    assert!(!status.success(), "refused: {said}");
    assert!(said.contains("another bashni server"), "{said}");
    let winner = &mut servers[1 - loser];
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert!(
        winner.try_wait().expect("its state").is_none(),
        "the other runs on"
    );
    let _ = winner.kill();
    let _ = winner.wait();
}

/// A second server on a database another one serves is refused, saying
/// why (both would bring back the same rooms and play them apart); once
/// the first is killed, a server starts there at once.
#[tokio::test]
async fn a_second_server_on_a_served_database_is_refused() {
    let dir = TempDir::new("serve-second");
    let database = sqlite(&dir);
    let mut first = Serve::start(&database, &[]);
    // Its first heartbeat is written before it loads its rooms.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut second = std::process::Command::new(env!("CARGO_BIN_EXE_bashni"))
        .args(["serve", "--listen", "127.0.0.1:0", "--database", &database])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("bashni runs");
    // A second server that starts would run on: it is given 30 s.
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = second.try_wait().expect("its state") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = second.kill();
            panic!("a second server started on a served database");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let mut said = String::new();
    std::io::Read::read_to_string(&mut second.stderr.take().expect("stderr"), &mut said)
        .expect("its words");
    assert!(!status.success(), "refused: {said}");
    assert!(
        said.contains("another bashni server ('main') is running on this database"),
        "{said}"
    );
    first.kill9();
    let again = Serve::start(&database, &[]);
    assert_eq!(again.restored, 0);
}

#[tokio::test]
async fn two_restarts_in_one_turn_charge_neither_downtime() {
    let dir = TempDir::new("serve-two-restarts");
    let mut server = Serve::start(&sqlite(&dir), &[]);
    let (mut ann, mut bob, room, tokens, state) = two_players(&server, Some("5+3")).await;
    // Past the free first moves, White's clock runs.
    let before = play_plies(&mut ann, &mut bob, state, 3).await;
    assert_eq!(before["to_move"], "black");
    let black_ms = |s: &Value| s["clock_ms"][1].as_i64().expect("Black's clock");
    let down = Duration::from_secs(4);
    for up in [Duration::from_millis(1000), Duration::from_millis(2500)] {
        tokio::time::sleep(up).await;
        server.kill9();
        tokio::time::sleep(down).await;
        server = Serve::start(&sqlite(&dir), &[]);
    }
    let mut page = server.page().await;
    page.send(json!({"type": "open", "room": room, "token": tokens[1]}))
        .await;
    let after = room_state(&mut page, |s| s["id"] == room.as_str()).await;
    // Black thought 3.5 s while a server was up (charged up to each run's
    // last heartbeat, every 2 s): never the 8 s the servers were down.
    let charged = black_ms(&before) - black_ms(&after);
    assert!(
        (0..=3_500).contains(&charged),
        "{charged} ms charged over two restarts"
    );
}

#[tokio::test]
async fn an_engine_seat_waits_for_a_free_engine_and_survives_a_crash() {
    let dir = TempDir::new("serve-engine");
    let marker = dir.path().join("crashed");
    let engine = serve::crash_once_engine(&marker);
    let server = Serve::start(&sqlite(&dir), &["--max-engines", "1", "--engine", &engine]);
    let mut engine_setup = setup("engine", None, "black");
    // Full strength: each move takes the whole second a room without a
    // clock gives (a weak level answers at once).
    engine_setup["skill"] = json!(20);
    let mut first = server.page().await;
    let (room, _) = create(&mut first, "Ann", engine_setup.clone()).await;
    // The first process crashes on its first search; a fresh one plays.
    let moved = room_state(&mut first, |s| moves(s).len() == 1).await;
    assert!(marker.exists(), "the first engine process crashed");
    assert_eq!(moved["to_move"], "black");
    // The person answers; while the only engine thinks (a second per
    // move without a clock), a second engine room waits its turn.
    first
        .send(json!({"type": "move", "text": first_legal(&moved)}))
        .await;
    room_state(&mut first, |s| {
        moves(s).len() == 2 && s["engine_status"] == "thinking"
    })
    .await;
    let mut second = server.page().await;
    create(&mut second, "Bob", engine_setup).await;
    let waiting = room_state(&mut second, |s| {
        s["engine_status"]
            .as_str()
            .is_some_and(|t| t.starts_with("waiting for a free engine"))
    })
    .await;
    assert_eq!(waiting["phase"], "playing");
    room_state(&mut first, |s| moves(s).len() == 3).await;
    room_state(&mut second, |s| moves(s).len() == 1).await;
    assert_eq!(
        server
            .get(
                &format!("/pdn/{room}"),
                &format!("127.0.0.1:{}", server.port),
                &[]
            )
            .0,
        200
    );
}

#[tokio::test]
async fn an_engine_that_plays_an_illegal_move_is_replaced() {
    let dir = TempDir::new("serve-illegal-engine");
    let marker = dir.path().join("started");
    let engine = serve::illegal_once_engine(&marker);
    let server = Serve::start(&sqlite(&dir), &["--max-engines", "1", "--engine", &engine]);
    let mut page = server.page().await;
    let mut engine_setup = setup("engine", None, "black");
    engine_setup["skill"] = json!(1);
    create(&mut page, "Ann", engine_setup).await;
    // The first process answers a move that is not legal and would answer
    // so for ever: a fresh one, not it again, is asked next.
    let moved = room_state(&mut page, |s| moves(s).len() == 1).await;
    assert!(marker.exists(), "the first engine process was asked");
    assert_eq!(moved["to_move"], "black");
}

/// A room as a server left it in `dir`'s database: made with `opponent`,
/// `opening`, its creator Ann seated. Its id, Ann's token and the store.
async fn stored_room(
    dir: &TempDir,
    opponent: bashni::serve::config::Opponent,
    opening: bashni::serve::store::Opening,
) -> (
    String,
    bashni::serve::token::SeatToken,
    bashni::serve::store::Store,
) {
    use bashni::serve::config::{GameConfig, RoomConfig};
    use bashni::serve::store::{NewRoom, SeatRecord, Store};
    use bashni::serve::token::{SeatToken, random_hex128};
    let (id, token) = (random_hex128(), SeatToken::generate());
    let store = Store::connect(&sqlite(dir)).await.expect("the store");
    let room = NewRoom {
        id: id.clone(),
        config: RoomConfig {
            game: GameConfig::online(bashni_rules::Variant::Bashni),
            clock: None,
            opponent,
        },
        created_at_ms: 1,
        opening,
    };
    let creator = SeatRecord {
        seat: 0,
        name: "Ann".into(),
        token_hash: Some(token.hash()),
        engine: false,
        joined_at_ms: 1,
    };
    store.create_room(&room, &creator).await.expect("stored");
    (id, token, store)
}

#[tokio::test]
async fn an_engine_room_stored_before_the_engine_sat_down_gets_it_after_a_restart() {
    use bashni::serve::config::{Opponent, Strength};
    use bashni::serve::store::Opening;
    let dir = TempDir::new("serve-engine-unseated");
    // The server stopped between storing the room and seating the engine:
    // the creator alone in a room nobody else may join.
    let opening = Opening {
        creator_colour: bashni_rules::Colour::Black,
        start_fen: None,
        quick_device: None,
    };
    let (id, token, store) = stored_room(&dir, Opponent::Engine(Strength::Skill(1)), opening).await;
    drop(store);
    let server = Serve::start(&sqlite(&dir), &[]);
    assert_eq!(server.restored, 1);
    let mut page = server.page().await;
    page.send(json!({"type": "open", "room": id, "token": token.as_str()}))
        .await;
    let moved = room_state(&mut page, |s| moves(s).len() == 1).await;
    assert_eq!(moved["seats"][1]["name"], "Engine (Skill 1)");
    assert_eq!(moved["to_move"], "black", "the engine, White, moved");
}

#[tokio::test]
async fn a_game_its_stored_moves_ended_gets_its_result_on_a_restart() {
    use bashni::serve::config::Opponent;
    use bashni::serve::store::{MoveRecord, NewGame, Opening, SeatRecord, Write};
    let dir = TempDir::new("serve-result-reached");
    // An older server stored the capture that left Black nothing, and
    // stopped before it stored the result.
    let start = "W:c3w,e3w,d4b 0 1";
    let opening = Opening {
        creator_colour: bashni_rules::Colour::White,
        start_fen: Some(start.into()),
        quick_device: None,
    };
    let (id, _, store) = stored_room(&dir, Opponent::Anyone, opening).await;
    let bob = SeatRecord {
        seat: 1,
        name: "Bob".into(),
        token_hash: Some(bashni::serve::token::SeatToken::generate().hash()),
        engine: false,
        joined_at_ms: 2,
    };
    let game = NewGame {
        game_no: 1,
        white_seat: 0,
        started_at_ms: 2,
        clock_ms: None,
        start_fen: Some(start.into()),
    };
    for write in [
        Write::Seat {
            room_id: id.clone(),
            seat: bob,
        },
        Write::GameStart {
            room_id: id.clone(),
            game,
        },
    ] {
        store.apply(&write).await.expect("stored");
    }
    let capture = MoveRecord {
        room_id: id.clone(),
        game_no: 1,
        ply: 1,
        text: "c3xe5".into(),
        elapsed_ms: 10,
        clock_ms: None,
        moved_at_ms: 3,
    };
    store.append_moves(&[capture]).await.expect("stored");
    drop(store);
    let server = Serve::start(&sqlite(&dir), &[]);
    let host = format!("127.0.0.1:{}", server.port);
    let (status, pdn) = server.get(&format!("/pdn/{id}"), &host, &[]);
    assert_eq!(status, 200);
    assert!(pdn.contains("[Result \"2-0\"]"), "{pdn}");
}

/// The engine's move (100 ms at full strength) in a room state's position.
fn engine_move(engine: &mut Engine, state: &Value) -> String {
    let start = state["start_fen"].as_str().expect("start");
    let played = moves(state);
    let line = match played.is_empty() {
        true => format!("position fen {start}"),
        false => format!("position fen {start} moves {}", played.join(" ")),
    };
    engine.send(&line);
    engine.send("go movetime 100");
    engine.bestmove()
}

/// From `state`, play White's moves with the full-strength engine until
/// the ladder run leaves that game; the first state after it.
async fn beat_rival(page: &mut Page, engine: &mut Engine, mut state: Value) -> Value {
    let game_no = state["game_no"].clone();
    loop {
        if state["game_no"] != game_no || state["phase"] == "over" {
            return state;
        }
        if state["to_move"] == "white" {
            let ply = moves(&state).len();
            page.send(json!({"type": "move", "text": engine_move(engine, &state)}))
                .await;
            state = room_state(page, |s| moves(s).len() > ply || s["game_no"] != game_no).await;
        } else {
            state = room_state(page, |s| s["to_move"] == "white" || s["game_no"] != game_no).await;
        }
    }
}

#[tokio::test]
async fn a_ladder_run_climbs_on_wins_ends_on_a_loss_and_keeps_the_best() {
    let dir = TempDir::new("serve-ladder");
    // Runs of several browsers, all from this machine's one address.
    let server = Serve::start(&sqlite(&dir), &["--engine-games-per-address", "10"]);
    let mut page = server.page().await;
    let device = "00112233445566778899aabbccddeeff";
    page.send(json!({"type": "ladder", "variant": "bashni", "name": "Lia", "device": device}))
        .await;
    let (seated, _) = page.until(|m| m["type"] == "seated").await;
    assert_eq!(seated["seat"], 0, "the player sits first and plays White");
    let first = room_state(&mut page, |s| s["phase"] == "playing").await;
    assert_eq!(first["ladder"]["rival"], 1);
    // One run at a time per browser and variant: climbing again leads
    // back to it; another variant or browser starts its own.
    let climb = |variant: &str, device: &str| json!({"type": "ladder", "variant": variant, "name": "Lia", "device": device});
    page.send(climb("bashni", device)).await;
    let (going, _) = page.until(|m| m["type"] == "seated").await;
    assert_eq!(going["room"], seated["room"], "the run going");
    assert_ne!(going["token"], seated["token"], "its seat's new token");
    let mut stale = server.page().await;
    stale
        .send(json!({"type": "open", "room": seated["room"], "token": seated["token"]}))
        .await;
    let (watching, _) = stale
        .until(|m| m["type"] == "seated" || m["type"] == "error")
        .await;
    assert_eq!(
        watching["type"], "error",
        "the old token seats nobody: {watching}"
    );
    let mut other = server.page().await;
    for (variant, device) in [
        ("lasca", device),
        ("bashni", "0123456789abcdef0123456789abcdef"),
    ] {
        other.send(climb(variant, device)).await;
        let (started, _) = other.until(|m| m["type"] == "seated").await;
        assert_ne!(started["room"], seated["room"]);
    }
    // Three tabs of one browser climbing at the same instant start one run.
    let tabs = [
        server.page().await,
        server.page().await,
        server.page().await,
    ];
    let racing = tabs.map(|mut tab| async move {
        tab.send(climb("bashni", "fedcba9876543210fedcba9876543210"))
            .await;
        let (answer, _) = tab.until(|m| m["type"] == "seated").await;
        answer
    });
    let answers = futures_util::future::join_all(racing).await;
    assert!(
        answers.iter().all(|a| a["room"] == answers[0]["room"]),
        "one run's room for all: {answers:?}"
    );
    assert_eq!(
        first["start_fen"],
        bashni_rules::Variant::Bashni.start_fen()
    );
    assert_eq!(first["seats"][0]["colour"], "white");
    assert_eq!(first["config"]["opponent"], "engine");
    // A run goes on from game to game: its games are resigned, never
    // aborted, even before a move, and the rival takes no offers.
    assert_eq!(
        first["may"][0],
        json!({"abort": false, "resign": true, "offer_draw": false, "takeback": false, "rematch": false, "claim": false})
    );
    page.send(json!({"type": "abort"})).await;
    assert!(error(&mut page).await.contains("no abort"));
    page.send(json!({"type": "rematch"})).await;
    assert!(error(&mut page).await.contains("not over yet"));
    let mut engine = Engine::start();
    let after = beat_rival(&mut page, &mut engine, first).await;
    // The win is shown, and the next rival's game waits for the player.
    let won = room_state(&mut page, |s| s["ladder"]["wins"] == 1).await;
    assert_eq!(
        (&won["game_no"], &won["phase"]),
        (&json!(1), &json!("over"))
    );
    assert_eq!(won["result"]["result"], "2-0", "{after}");
    assert_eq!(
        won["may"][0]["rematch"], true,
        "the next rival may be asked for"
    );
    // The player's list of games says the run goes on, not just "won".
    let mut lists = server.page().await;
    let claim = [(
        seated["room"].as_str().expect("room"),
        going["token"].as_str().expect("token"),
    )];
    let listed = your_games(&mut lists, &claim).await;
    assert_eq!(
        (&listed[0]["phase"], &listed[0]["run"]),
        (&json!("over"), &json!({"wins": 1, "status": "playing"}))
    );
    // The game's thinking shown is what the win added to the run's.
    let game_think_ms = won["ladder"]["game_think_ms"].as_u64().expect("ms");
    assert_eq!(
        Some(game_think_ms / 100),
        won["ladder"]["think_tenths_per_win"].as_u64(),
        "{}",
        won["ladder"]
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    page.send(json!({"type": "rematch"})).await;
    let (next, before) = page
        .until(|m| m["type"] == "room" && m["game_no"] == 2)
        .await;
    assert!(
        before
            .iter()
            .all(|m| m["type"] != "room" || m["game_no"] == 1),
        "no game starts unasked"
    );
    assert_eq!(next["ladder"]["rival"], 2, "a win moves the run up");
    assert!(
        next["ladder"]["game_think_ms"].as_u64() < Some(game_think_ms.max(1)),
        "the new game's count starts again: {}",
        next["ladder"]
    );
    let score = next["ladder"]["score"].as_u64().expect("a score");
    assert!(
        (10_000..=19_999).contains(&score),
        "one win and a speed bonus: {score}"
    );
    assert_eq!(next["ladder"]["best"], score);
    assert_eq!(next["phase"], "playing");
    // A loss ends the run; the score stays.
    page.send(json!({"type": "resign"})).await;
    let over = room_state(&mut page, |s| s["ladder"]["status"] == "lost").await;
    assert_eq!(over["ladder"]["score"], score);
    // The run is over, and no rematch plays on past it.
    assert_eq!(over["may"][0]["rematch"], false);
    page.send(json!({"type": "rematch"})).await;
    assert!(error(&mut page).await.contains("the run is over"));
    assert_eq!(
        over["ladder"]["rival"], 2,
        "the rival the run ended against, not the last one beaten"
    );
    let listed = your_games(&mut lists, &claim).await;
    assert_eq!(listed[0]["run"], json!({"wins": 1, "status": "lost"}));
    // The lobby shows the player's best before a run: per name, device
    // and variant.
    for (name, device, variant, best) in [
        ("Lia", device, "bashni", json!(score)),
        ("Lia", device, "lasca", json!(0)), // a run going, no win yet
        (
            "Lia",
            "abababababababababababababababab",
            "bashni",
            Value::Null,
        ),
        ("Max", device, "bashni", Value::Null),
    ] {
        let asked =
            json!({"type": "ladder_best", "variant": variant, "name": name, "device": device});
        lists.send(asked).await;
        let (answer, _) = lists.until(|m| m["type"] == "ladder_best").await;
        assert_eq!(answer["best"], best, "{name} {device} {variant}");
    }
    page.send(json!({"type": "leaderboard", "variant": "bashni"}))
        .await;
    let (board, _) = page.until(|m| m["type"] == "leaderboard").await;
    assert_eq!(board["lines"][0]["name"], "Lia");
    assert_eq!(board["lines"][0]["best"], score);
    // The next run (a new one: the last is over) starts at rival 1 and
    // knows the best.
    page.send(climb("bashni", device)).await;
    let (seated_again, _) = page.until(|m| m["type"] == "seated").await;
    assert_ne!(seated_again["room"], seated["room"], "a new run's room");
    let again = room_state(&mut page, |s| {
        s["ladder"]["wins"] == 0 && s["phase"] == "playing"
    })
    .await;
    assert_eq!(
        again["ladder"]["best"], score,
        "the best is kept per name and device"
    );
}

/// What a replay must show: game `moves` replayed by the (ladder's)
/// rules from `start`: the position after each move, and how it ended.
fn replayed(start: &str, moves: &[String]) -> (Vec<String>, Option<bashni_rules::GameEnd>) {
    let rules = bashni_rules::RuleSet::new(bashni_rules::Variant::Bashni);
    let mut game = bashni_rules::Game::from_fen(rules, start).expect("start");
    let fens = moves
        .iter()
        .map(|m| {
            game.play_text(m).expect("a stored move is legal");
            game.position().to_fen()
        })
        .collect();
    (fens, game.result())
}

/// Ask for game `game_no` of the room shown; the replay that comes.
async fn replay(page: &mut Page, game_no: u32) -> Value {
    page.send(json!({"type": "replay", "game": game_no})).await;
    page.until(|m| m["type"] == "replay" || m["type"] == "error")
        .await
        .0
}

#[tokio::test]
async fn a_ladder_run_survives_kill_nine_then_replays_and_downloads_every_game() {
    let dir = TempDir::new("serve-ladder-restart");
    let database = sqlite(&dir);
    let mut server = Serve::start(&database, &[]);
    let mut page = server.page().await;
    let device = "ffeeddccbbaa99887766554433221100";
    page.send(json!({"type": "ladder", "variant": "bashni", "name": "Rui", "device": device}))
        .await;
    let (seated, _) = page.until(|m| m["type"] == "seated").await;
    let room = seated["room"].as_str().expect("room").to_string();
    let token = seated["token"].as_str().expect("token").to_string();
    let first = room_state(&mut page, |s| s["phase"] == "playing").await;
    let mut engine = Engine::start();
    beat_rival(&mut page, &mut engine, first).await;
    room_state(&mut page, |s| s["ladder"]["wins"] == 1).await;
    page.send(json!({"type": "rematch"})).await;
    let second = room_state(&mut page, |s| s["game_no"] == 2).await;
    play_one(&mut page, &mut [], &second).await;
    let second = room_state(&mut page, |s| {
        moves(s).len() == 2 && s["to_move"] == "white"
    })
    .await;
    // An analysis keeps the pool's engine (the rival's, idle while White
    // is to move) searching.
    page.send(json!({"type": "study_position", "variant": "lasca", "moves": []}))
        .await;
    page.send(json!({"type": "study_analyse", "lines": 2}))
        .await;
    page.until(|m| m["type"] == "study_lines" && m["running"] == true)
        .await;
    // Let a heartbeat pass, then kill the server in the middle of game 2.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let engines = server.children();
    assert_eq!(engines.len(), 1, "the pool's one engine: {engines:?}");
    server.kill9();
    // No engine outlives the server, even in a search: it reads the end
    // of its input and quits.
    let waited = std::time::Instant::now();
    while !engines.iter().all(|&pid| exited(pid)) {
        assert!(
            waited.elapsed() < Duration::from_secs(10),
            "engines {engines:?} still run after the server was killed"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let server = Serve::start(&database, &[]);
    assert_eq!(server.restored, 1, "the run's room comes back");
    let mut page = server.page().await;
    page.send(json!({"type": "open", "room": room, "token": token}))
        .await;
    let back = room_state(&mut page, |s| s["id"] == room.as_str()).await;
    assert_eq!(back["game_no"], 2);
    assert_eq!(moves(&back), moves(&second), "the same moves");
    assert_eq!(back["ladder"]["rival"], 2);
    assert_eq!(back["ladder"]["wins"], 1);
    assert_eq!(back["ladder"]["score"], second["ladder"]["score"]);
    // The run goes on: White moves, the rival answers from the pool.
    page.send(json!({"type": "move", "text": first_legal(&back)}))
        .await;
    room_state(&mut page, |s| moves(s).len() == 4).await;
    page.send(json!({"type": "resign"})).await;
    let over = room_state(&mut page, |s| s["ladder"]["status"] == "lost").await;

    // Every game replays move by move, by the rules, as it was stored.
    let game_one = replay(&mut page, 1).await;
    assert_eq!(game_one["type"], "replay", "{game_one}");
    assert_eq!(game_one["games"], 2);
    assert_eq!(game_one["white"], "Rui");
    assert_eq!(game_one["result"]["result"], "2-0", "rival 1 was beaten");
    let texts: Vec<String> = game_one["plies"]
        .as_array()
        .expect("plies")
        .iter()
        .map(|p| p["move"]["text"].as_str().expect("text").to_string())
        .collect();
    let start = game_one["start_fen"].as_str().expect("start");
    let fens: Vec<String> = game_one["plies"]
        .as_array()
        .expect("plies")
        .iter()
        .map(|p| p["fen"].as_str().expect("fen").to_string())
        .collect();
    let (positions, end) = replayed(start, &texts);
    assert_eq!(fens, positions, "the position after every move");
    assert_eq!(
        end.and_then(|e| e.winner()),
        Some(bashni_rules::Colour::White),
        "game 1 ends with the rival beaten by the rules"
    );
    let game_two = replay(&mut page, 2).await;
    assert_eq!(game_two["result"]["reason"], "White resigned");
    assert_eq!(game_two["plies"].as_array().map(Vec::len), Some(4));
    let missing = replay(&mut page, 3).await;
    assert_eq!(missing["type"], "error");

    // The PDN file holds both games of the run.
    let (status, pdn) = server.get(
        &format!("/pdn/{room}"),
        &format!("127.0.0.1:{}", server.port),
        &[],
    );
    assert_eq!(status, 200);
    let games = bashni_host::pdn::parse_pdn(&pdn).expect("our PDN reads back");
    assert_eq!(games.len(), 2, "{pdn}");
    assert_eq!(games[0].tag("Result"), Some("2-0"));
    assert_eq!(games[0].tag("Black"), Some("Rival 1"));
    assert_eq!(games[1].tag("Black"), Some("Rival 2"));
    assert_eq!(games[0].moves, texts);
    assert_eq!(games[1].tag("Result"), Some("0-2"));
    assert_eq!(games[1].moves, moves(&over));
    assert_eq!(
        server
            .get(
                "/pdn/not-a-room",
                &format!("127.0.0.1:{}", server.port),
                &[]
            )
            .0,
        404
    );
}

/// Whether the server closes `tcp` within `wait` (reads the end of the
/// stream, or an error), reading and dropping whatever it sends first.
fn closed_within(tcp: &mut std::net::TcpStream, wait: Duration) -> bool {
    use std::io::Read;
    let until = std::time::Instant::now() + wait;
    let mut buf = [0u8; 1024];
    loop {
        let left = until.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return false;
        }
        tcp.set_read_timeout(Some(left)).expect("timeout");
        match tcp.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.kind() == std::io::ErrorKind::TimedOut =>
            {
                return false;
            }
            Err(_) => return true,
        }
    }
}

/// Connections that never finish a request are bounded before HTTP sees
/// them: past twice the WebSocket limit an address's connections are
/// closed at once, one silent for four pings is closed, and so is one
/// whose headers are not whole after four pings, however it trickles.
#[tokio::test]
async fn unfinished_http_connections_are_bounded() {
    use std::io::Write;
    let dir = TempDir::new("serve-slow-http");
    let server = Serve::start(
        &sqlite(&dir),
        &["--ping-seconds", "1", "--connections-per-address", "2"],
    );
    let open = || {
        let mut tcp = std::net::TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
        let partial = format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n", server.port);
        tcp.write_all(partial.as_bytes()).expect("write");
        tcp
    };
    let mut held: Vec<_> = (0..4).map(|_| open()).collect();
    let mut fifth = open();
    assert!(
        closed_within(&mut fifth, Duration::from_secs(1)),
        "a fifth connection from the address is closed at once"
    );
    assert!(
        !closed_within(&mut held[0], Duration::from_secs(1)),
        "the first four wait for the rest of their request"
    );
    assert!(
        closed_within(&mut held[0], Duration::from_secs(8)),
        "silent past four pings, it is closed"
    );
    for tcp in &mut held[1..] {
        assert!(closed_within(tcp, Duration::from_secs(2)));
    }
    let own_host = format!("127.0.0.1:{}", server.port);
    assert_eq!(
        server.get("/", &own_host, &[]).0,
        200,
        "then the address is served again"
    );
    // Headers trickling in a byte at a time are cut off once the request
    // has taken four pings, though the connection never goes silent: the
    // first request's, and a later one's on a connection kept alive.
    let trickled_out = |mut trickle: std::net::TcpStream| {
        let started = std::time::Instant::now();
        let cut = loop {
            if trickle.write_all(b"X").is_err()
                || closed_within(&mut trickle, Duration::from_millis(300))
            {
                break started.elapsed();
            }
            assert!(
                started.elapsed() < Duration::from_secs(12),
                "still open after 12 s"
            );
        };
        assert!(
            cut >= Duration::from_secs(3),
            "cut after {cut:?}: before its time"
        );
    };
    trickled_out(open());
    let mut kept_alive = open();
    kept_alive
        .write_all(b"\r\n")
        .expect("the first request whole");
    assert!(
        !closed_within(&mut kept_alive, Duration::from_millis(500)),
        "answered, kept alive"
    );
    kept_alive
        .write_all(format!("GET / HTTP/1.1\r\nHost: {own_host}\r\n").as_bytes())
        .expect("a second request begun");
    trickled_out(kept_alive);
    // A WebSocket, once switched from HTTP, is no request taking long:
    // a page answering its pings stays past four of them.
    let mut page = server.page().await;
    let until = tokio::time::Instant::now() + Duration::from_secs(6);
    while tokio::time::Instant::now() < until {
        page.send(json!({"type": "lobby"})).await;
        page.until(|m| m["type"] == "lobby").await;
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}
