//! The play server in real browsers: three headless Chromium sessions
//! (WebDriver) against `bashni serve`. Ann creates a room, Bob finds it in
//! the lobby and joins, Cat watches by its link; Ann and Bob play a whole
//! game by clicking columns and landing squares, Bob reloads in the middle
//! and keeps his seat, Cat sees every move and the result, and the lobby
//! lists the room and then drops it. A second, private room is joined by
//! its link. Screenshots go to target/serve-screenshots/, or with
//! BASHNI_UPDATE_SCREENSHOTS set, the two docs/serve.md shows to docs/.

#[path = "support/browser.rs"]
mod browser;
#[allow(dead_code)] // the kit's engine helper, of which this file uses part
#[path = "support/engine.rs"]
mod engine;
#[path = "support/serve.rs"]
mod serve;
#[path = "support/socket.rs"]
mod socket;
#[path = "support/temp.rs"]
mod temp;

use browser::{
    Driver, ONE_BROWSER, browser, browser_programs, click, click_square, screenshot, select,
    type_into, wait_for,
};
use engine::Engine;
use fantoccini::{Client, Locator};
use futures_util::FutureExt;
use serde_json::json;
use serve::Serve;
use std::path::PathBuf;
use temp::TempDir;

/// A game this long has gone wrong: the draw rules end a game long before.
const MAX_PLIES: usize = 400;

fn screenshot_path(name: &str) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    match std::env::var_os("BASHNI_UPDATE_SCREENSHOTS") {
        Some(_) => root.join("docs").join(name),
        None => root.join("target/serve-screenshots").join(name),
    }
}

async fn strings(client: &Client, script: &str) -> Vec<String> {
    let value = client.execute(script, vec![]).await.expect("script runs");
    value
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

async fn move_list(client: &Client) -> Vec<String> {
    strings(
        client,
        "return [...document.querySelectorAll('#moves .move')].map(m => m.textContent)",
    )
    .await
}

/// Wait until the page's move list has `n` moves.
async fn moves_reach(client: &Client, n: usize) {
    let script = format!("return document.querySelectorAll('#moves .move').length === {n}");
    wait_for(client, &script, &format!("{n} moves on the page")).await;
}

/// The squares of the board's columns that can move (they glow).
async fn glowing_columns(client: &Client) -> Vec<String> {
    strings(
        client,
        "return [...document.querySelectorAll('#board .glow')].map(g => g.dataset.glow)",
    )
    .await
}

/// The squares the picked column can land on next (green dots).
async fn landing_dots(client: &Client) -> Vec<String> {
    strings(
        client,
        "return [...document.querySelectorAll('#board .target')].map(t => t.dataset.target)",
    )
    .await
}

/// If it is this page's turn (its columns glow), play a move by clicks:
/// a glowing column, then green dots until the move is made. A small
/// linear congruential generator picks, so a run is repeatable.
async fn click_a_move(client: &Client, seed: &mut u64) -> bool {
    let pick = |seed: &mut u64, n: usize| {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*seed >> 33) as usize % n
    };
    let columns = glowing_columns(client).await;
    if columns.is_empty() {
        return false;
    }
    click_square(client, &columns[pick(seed, columns.len())]).await;
    loop {
        let dots = landing_dots(client).await;
        if dots.is_empty() {
            return true;
        }
        click_square(client, &dots[pick(seed, dots.len())]).await;
    }
}

/// If it is this page's turn, play a move by keyboard, as a player
/// typing it would: a square that starts no move is refused with a hint,
/// the first glowing column's square picks it on the board, and the
/// landings typed after it, one by one, play the move. The watcher sees
/// no field to type in.
async fn type_a_move(client: &Client, watcher: &Client) -> bool {
    let columns = glowing_columns(client).await;
    let Some(from) = columns.first() else {
        return false;
    };
    let hidden = "return document.getElementById('move-input').offsetParent === null";
    let watcher_field = watcher.execute(hidden, vec![]).await.expect("script");
    assert_eq!(watcher_field, json!(true), "a watcher has no move to type");
    type_into(client, "move-input", "a2-b3\u{e007}").await;
    // (With a capture due, the hint says so too.)
    let refused = "return document.getElementById('move-hint').textContent.startsWith('No legal move a2-b3 here.')";
    wait_for(client, refused, "the hint for a move that is none").await;
    let mut typed = from.clone();
    type_into(client, "move-input", &typed).await;
    let picked = "return document.querySelector('#board .selected') !== null && document.querySelector('#board .target') !== null";
    wait_for(
        client,
        picked,
        "the typed column picked, its landings shown",
    )
    .await;
    loop {
        let dots = landing_dots(client).await;
        let Some(next) = dots.first() else {
            // The move played itself as it was typed whole: the habitual
            // Enter typed after it, on the emptied field while the move
            // is on its way, said "It is not your move."
            assert_eq!(
                text_of(client, "#move-hint").await,
                "",
                "Enter after a typed move"
            );
            return true;
        };
        typed = format!("{typed}-{next}");
        type_into(client, "move-input", &format!("{typed}\u{e007}")).await;
    }
}

async fn open_page(client: &Client, server: &Serve, path: &str, name: &str) {
    client
        .goto(&format!("{}{path}", server.origin()))
        .await
        .expect("the page loads");
    wait_for(
        client,
        "return document.getElementById('connection').dataset.status === 'online'",
        "online",
    )
    .await;
    type_into(client, "name", name).await;
}

async fn text_of(client: &Client, css: &str) -> String {
    let script =
        format!("const e = document.querySelector(\"{css}\"); return e ? e.textContent : null");
    client
        .execute(&script, vec![])
        .await
        .expect("script")
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The page's number in the element `id`, once it shows one.
async fn number_in(client: &Client, id: &str) -> u64 {
    let script = format!("return document.getElementById('{id}').textContent");
    let text = client.execute(&script, vec![]).await.expect("script");
    text.as_str().and_then(|t| t.parse().ok()).unwrap_or(0)
}

/// If it is the player's turn, ask the full-strength engine for a move in
/// the position the board shows and enter it by clicks: the column, then
/// each landing until the page has taken the move.
async fn click_engine_move(client: &Client, engine: &mut Engine) -> bool {
    let glowing = client
        .execute(
            "return document.querySelectorAll('#board .glow').length",
            vec![],
        )
        .await
        .expect("script");
    if glowing == json!(0) {
        return false;
    }
    let fen = client
        .execute(
            "return document.getElementById('board').dataset.fen",
            vec![],
        )
        .await
        .expect("script");
    engine.send(&format!(
        "position fen {}",
        fen.as_str().expect("a position")
    ));
    engine.send("go movetime 100");
    let text = engine.bestmove();
    let squares: Vec<&str> = text.split(['-', 'x']).collect();
    click_square(client, squares[0]).await;
    for landing in &squares[1..] {
        let dots = client
            .execute(
                "return document.querySelectorAll('#board .target').length",
                vec![],
            )
            .await
            .expect("script");
        if dots == json!(0) {
            break;
        }
        click_square(client, landing).await;
    }
    true
}

#[tokio::test]
async fn a_scripted_player_climbs_two_rivals_and_the_best_survives_a_reload() {
    let Some((chromium, chromedriver)) = browser_programs() else {
        return;
    };
    let _turn = ONE_BROWSER.lock().await;
    let dir = TempDir::new("serve-ladder-browser");
    let server = Serve::start(
        &format!("sqlite:{}", dir.path().join("serve.db").display()),
        &[],
    );
    let driver = Driver::start(&chromedriver);
    let client = browser(&driver, &chromium).await;
    let outcome = std::panic::AssertUnwindSafe(async {
        let mut engine = Engine::start();
        open_page(&client, &server, "/", "Lia").await;
        click(&client, "#ladder-start").await;
        wait_for(&client, "return document.body.dataset.seated === 'yes' && !document.getElementById('ladder-info').hidden", "the run").await;
        assert_eq!(number_in(&client, "ladder-rival").await, 1);
        assert_eq!(text_of(&client, "#player-top .name").await, "Rival 1");
        let mut scores = Vec::new();
        let mut moves = 0;
        while number_in(&client, "ladder-wins").await < 2 {
            let status = text_of(&client, "#status").await;
            assert!(!status.contains("The run ends"), "the scripted player lost: {status}");
            if status.contains("is next") {
                meet_the_next_rival(&client, number_in(&client, "ladder-wins").await).await;
            }
            let before = move_list(&client).await.len();
            if click_engine_move(&client, &mut engine).await {
                moves += 1;
                let script = format!(
                    "return document.querySelectorAll('#moves .move').length !== {before} \
                     || document.body.dataset.phase !== 'playing'"
                );
                wait_for(&client, &script, "the move on the page").await;
            } else {
                tokio::time::sleep(std::time::Duration::from_millis(30)).await;
            }
            let score = number_in(&client, "ladder-score").await;
            if scores.last() != Some(&score) {
                scores.push(score);
            }
            if number_in(&client, "ladder-wins").await == 1 && moves > 0 && scores.len() == 2 {
                screenshot(&client, &screenshot_path("ladder-run.png")).await;
            }
            assert!(moves < 400, "two rivals take fewer moves than this");
        }
        // The second win's score may arrive just after the wins counter
        // the loop stopped on (the result is published before the run
        // records it).
        wait_for(&client, "return Number(document.getElementById('ladder-score').textContent) >= 20000", "the second win's score").await;
        scores.push(number_in(&client, "ladder-score").await);
        between_rivals_in_the_lobby(&client).await;
        meet_the_next_rival(&client, 2).await;
        scores.dedup();
        assert_eq!(scores.len(), 3, "the score rose after each win: {scores:?}");
        assert!(scores[1] >= 10_000 && scores[2] >= 20_000, "{scores:?}");
        assert_eq!(number_in(&client, "ladder-rival").await, 3);
        assert_eq!(text_of(&client, "#player-top .name").await, "Rival 3");
        // The thinking time per win shown is the one the score counts
        // (its speed bonus is 9999 less the average in tenths of a second).
        let per_win = text_of(&client, "#ladder-per-win").await;
        let shown: f64 = per_win.trim_end_matches(" s").parse().expect("seconds");
        let counted = (29_999 - scores[2]) as f64 / 10.0;
        assert!((shown - counted).abs() < 0.01, "{per_win} against {counted} s");
        let best = number_in(&client, "ladder-best").await;
        assert_eq!(best, scores[2]);
        client.refresh().await.expect("reload");
        wait_for(&client, "return document.body.dataset.seated === 'yes' && !document.getElementById('ladder-info').hidden", "the run after a reload").await;
        assert_eq!(number_in(&client, "ladder-best").await, best, "the best after a reload");
        assert_eq!(number_in(&client, "ladder-wins").await, 2);
        // Each rival's game is a button; game 1 replays from its start.
        let buttons = strings(&client, "return [...document.querySelectorAll('#game-buttons button')].map(b => b.textContent)").await;
        assert_eq!(buttons, ["Rival 1", "Rival 2", "Rival 3"]);
        click(&client, "#game-buttons button[data-game='1']").await;
        wait_for(&client, "return document.getElementById('replay-where').textContent.startsWith('Game 1: start · \\u2068Lia\\u2069 wins with White, 2-0')", "game 1's replay").await;
        assert_eq!(text_of(&client, "#player-top .name").await, "Rival 1", "game 1 was rival 1's");
        click(&client, "#replay-last").await;
        wait_for(&client, "return document.querySelector('#moves .move.current') !== null", "the last move marked").await;
        click(&client, "#replay-prev").await;
        screenshot(&client, &screenshot_path("ladder-replay.png")).await;
        click(&client, "#replay-live").await;
        wait_for(&client, "return document.getElementById('replay-bar').hidden", "back to the game").await;
        assert_eq!(text_of(&client, "#player-top .name").await, "Rival 3");
        // From the lobby the ladder's button leads back to the run.
        let run_page = client.execute("return location.pathname", vec![]).await.expect("script");
        click(&client, "#to-lobby").await;
        wait_for(&client, "return document.getElementById('ladder-start').textContent === 'Continue your run'", "the run offered").await;
        // The lobby shows the player's best before the run is opened.
        let best_shown = format!("return document.getElementById('ladder-own-best').textContent === '{best}'");
        wait_for(&client, &best_shown, "the best in the lobby").await;
        click(&client, "#ladder-start").await;
        let back = format!("return location.pathname === {run_page} && document.body.dataset.seated === 'yes'");
        wait_for(&client, &back, "the run again").await;
        assert_eq!(text_of(&client, "#player-top .name").await, "Rival 3");
    })
    .catch_unwind()
    .await;
    let _ = client.close().await;
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

/// Between the second and the third rival, the lobby's list of the
/// player's games says the run goes on (not just "Won"), and its row
/// leads back to the run.
async fn between_rivals_in_the_lobby(client: &Client) {
    click(client, "#to-lobby").await;
    let row = "document.querySelector('#your-games tr .standing')";
    let said = format!("return {row}?.textContent === 'Beat rival 2; rival 3 is next'");
    wait_for(client, &said, "the run going in the list").await;
    click(client, "#your-games tr button.watch").await;
    wait_for(
        client,
        "return document.body.dataset.seated === 'yes'",
        "the run's room again",
    )
    .await;
}

/// After the run's win number `wins`, the page says so and who is next;
/// the next game starts only when the player asks for it.
async fn meet_the_next_rival(client: &Client, wins: u64) {
    let next = wins + 1;
    let said = format!(
        "return document.getElementById('status').textContent.includes('You beat rival {wins}. Rival {next} is next')"
    );
    wait_for(client, &said, "the win and the next rival").await;
    if wins == 1 {
        screenshot(client, &screenshot_path("ladder-won.png")).await;
    }
    assert_eq!(
        text_of(client, "#rematch").await,
        format!("Play rival {next}")
    );
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let phase = client
        .execute("return document.body.dataset.phase", vec![])
        .await
        .expect("script");
    assert_eq!(phase, json!("over"), "no game starts unasked");
    click(client, "#rematch").await;
    wait_for(
        client,
        "return document.body.dataset.phase === 'playing'",
        "the next rival's game",
    )
    .await;
}

/// After a finished Bashni game of `moves`: a click on the third move
/// shows the position after it (as the rules compute it), the arrows step,
/// and "Back to the game" shows the final position again.
async fn replay_steps_through(client: &Client, moves: &[String]) {
    let rules = bashni_rules::RuleSet::new(bashni_rules::Variant::Bashni);
    let mut game = bashni_rules::Game::new(rules);
    let mut fens = vec![game.position().to_fen()];
    for text in moves {
        game.play_text(text.trim_end_matches(['?', '!']))
            .expect("a legal move");
        fens.push(game.position().to_fen());
    }
    let shows = |ply: usize| {
        format!(
            "return document.getElementById('board').dataset.fen === {}",
            json!(fens[ply])
        )
    };
    click(client, "#moves .move[data-ply='3']").await;
    wait_for(client, &shows(3), "the position after move 3").await;
    let where_text = text_of(client, "#replay-where").await;
    assert!(
        where_text.starts_with(&format!(
            "Game 1: 2. {} (ply 3 of {})",
            moves[2],
            moves.len()
        )),
        "{where_text}"
    );
    click(client, "#replay-prev").await;
    wait_for(client, &shows(2), "one move back").await;
    click(client, "#replay-first").await;
    wait_for(client, &shows(0), "the start").await;
    click(client, "#replay-live").await;
    wait_for(client, &shows(moves.len()), "the game's end again").await;
}

/// Run `body` with three browsers on one server; they are closed even
/// when a check fails. Fails under CI without Chromium.
/// A name is kept as it is typed (a reload with the field still focused
/// keeps it), and a field left empty is this browser's guest name, not a
/// bare "Guest".
async fn a_name_is_kept_as_typed_and_none_is_the_browser_s_guest(client: &Client) {
    type_into(client, "name", "Dora").await;
    wait_for(
        client,
        "return document.getElementById('name-problem').hidden",
        "the name checked",
    )
    .await;
    client.refresh().await.expect("reload");
    let name = "return document.getElementById('name').value";
    assert_eq!(
        wait_for(client, name, "the name field").await,
        json!("Dora")
    );
    // Emptied as a person would: End, then Backspace four times.
    let field = client
        .find(Locator::Id("name"))
        .await
        .expect("the name field");
    field
        .send_keys("\u{e010}\u{e003}\u{e003}\u{e003}\u{e003}")
        .await
        .expect("keys");
    client
        .execute("document.getElementById('name').blur()", vec![])
        .await
        .expect("leave the field");
    let guest = "const g = localStorage.getItem('bashni.guest'); return document.getElementById('name').value === g && g";
    let shown = wait_for(client, guest, "the guest name back in the field").await;
    assert!(
        shown
            .as_str()
            .is_some_and(|g| g.starts_with("Guest ") && g.len() > 6),
        "{shown}"
    );
}

async fn with_three_browsers(args: &[&str], body: impl AsyncFnOnce(&mut Serve, [&Client; 3])) {
    let Some((chromium, chromedriver)) = browser_programs() else {
        return;
    };
    let _turn = ONE_BROWSER.lock().await;
    let dir = TempDir::new("serve-browser");
    let mut server = Serve::start(
        &format!("sqlite:{}", dir.path().join("serve.db").display()),
        args,
    );
    let driver = Driver::start(&chromedriver);
    let ann = browser(&driver, &chromium).await;
    let bob = browser(&driver, &chromium).await;
    let cat = browser(&driver, &chromium).await;
    let outcome = std::panic::AssertUnwindSafe(body(&mut server, [&ann, &bob, &cat]))
        .catch_unwind()
        .await;
    for client in [ann, bob, cat] {
        let _ = client.close().await;
    }
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

#[tokio::test]
async fn two_players_and_a_watcher_play_a_whole_game_in_browsers() {
    with_three_browsers(&[], async |server, [ann, bob, cat]| {
        // A name that is refused is said at its field as it is typed.
        open_page(ann, server, "/", "Rival 3").await;
        let refused = "const p = document.getElementById('name-problem'); \
            return !p.hidden && p.textContent.startsWith('Name refused: a name may not read as the engine')";
        wait_for(ann, refused, "the name refused at its field").await;
        a_name_is_kept_as_typed_and_none_is_the_browser_s_guest(ann).await;
        // Ann creates a public room, White, without a clock.
        type_into(ann, "name", "Ann").await;
        wait_for(ann, "return document.getElementById('name-problem').hidden", "the name taken").await;
        select(ann, "opponent", "anyone").await;
        select(ann, "colour", "white").await;
        select(ann, "clock", "").await;
        click(ann, "#create-button").await;
        let path = wait_for(ann, "return location.pathname.startsWith('/room/') && location.pathname", "the room").await;
        let path = path.as_str().expect("a path").to_string();
        let room = path.trim_start_matches("/room/").to_string();
        wait_for(ann, "return document.getElementById('status').textContent.startsWith('Waiting')", "waiting").await;
        own_room_is_not_joinable_from_another_tab(ann, server, &room).await;

        // A room's address that names no room leads Bob to the lobby,
        // with the reason shown.
        open_page(bob, server, &format!("/room/{}", "0".repeat(32)), "Bob").await;
        wait_for(bob, "return location.pathname === '/' && document.body.dataset.view === 'lobby'", "the lobby").await;
        assert!(text_of(bob, "#errors").await.contains("No room"));

        // Bob finds it in the lobby and joins.
        open_page(bob, server, "/", "Bob").await;
        let row = format!("#open-rooms tr[data-room='{room}']");
        wait_for(bob, &format!("return !!document.querySelector(\"{row}\")"), "the room in the lobby").await;
        assert_eq!(
            text_of(bob, &format!("{row} .players")).await,
            "\u{2068}Ann\u{2069} vs (free)",
            "White first: Bob sees he would play Black"
        );
        screenshot(bob, &screenshot_path("serve-lobby.png")).await;
        click(bob, &format!("{row} button.join")).await;
        wait_for(bob, &format!("return location.pathname === '{path}'"), "Bob in the room").await;
        click(bob, "#sound").await;

        // Cat, whose name is markup, opens the room by its link and watches.
        open_page(cat, server, &path, "<b>Cat</b>").await;
        wait_for(cat, "return document.body.dataset.phase === 'playing'", "Cat sees the game").await;
        assert_eq!(text_of(cat, "#player-bottom .name").await, "Ann");
        assert_eq!(text_of(bob, "#player-bottom .name").await, "Bob", "Bob sees the board from Black's side");

        // They play to the end by clicks; Bob reloads after ten moves.
        let mut seed = 7u64;
        let mut plies = 0;
        let mut offered = false;
        let mut stepped_back = false;
        let mut took_back = false;
        let mut chatted = false;
        // Neither side able to move for this long is a page that stopped
        // taking moves: fail, rather than wait for CI's limit.
        let mut idle_since = std::time::Instant::now();
        while plies < MAX_PLIES {
            let over = cat.execute("return document.body.dataset.phase === 'over'", vec![]).await.expect("script");
            if over == json!(true) {
                break;
            }
            if plies == 10 {
                bob.refresh().await.expect("reload");
                wait_for(bob, "return document.body.dataset.seated === 'yes'", "Bob's seat after a reload").await;
            }
            if plies == 12 {
                screenshot(ann, &screenshot_path("serve-room.png")).await;
            }
            if plies == 6 && !stepped_back {
                key_step_back(cat, plies).await;
                stepped_back = true;
            }
            if plies == 4 && !offered {
                offer_and_decline_a_draw(ann, bob).await;
                offered = true;
            }
            if plies == 4 && offered && !took_back {
                plies = take_back_two_plies(ann, bob, cat, plies).await;
                took_back = true;
            }
            // Two moves, one each, are typed rather than clicked.
            let moved = if plies == 8 || plies == 9 {
                type_a_move(ann, cat).await || type_a_move(bob, cat).await
            } else {
                click_a_move(ann, &mut seed).await || click_a_move(bob, &mut seed).await
            };
            if moved {
                idle_since = std::time::Instant::now();
                plies += 1;
                // Cat, stepped back, sees the new move in the list too.
                for client in [ann, bob, cat] {
                    moves_reach(client, plies).await;
                }
                sounded_the_last_move(cat).await;
                if plies == 7 {
                    key_end_is_the_live_game(cat, plies).await;
                }
                if plies == 3 {
                    watcher_flips_the_board(cat).await;
                }
                // Once: the takeback brings ply 3 round again.
                if plies == 3 && !chatted {
                    players_chat_and_the_watcher_sees_none(ann, bob, cat).await;
                    chatted = true;
                }
                // A takeback is offered only where it would not undo a
                // first move: White, to move, after 2 plies no, after 4 yes.
                if plies == 2 || plies == 4 {
                    let shown = ann.execute("return !document.getElementById('takeback').hidden", vec![]).await.expect("script");
                    assert_eq!(shown, json!(plies == 4), "Ann's takeback after {plies} plies");
                    // The tab says whose move it is.
                    let title = "return document.title";
                    assert_eq!(ann.execute(title, vec![]).await.expect("script"), json!("Your move · bashni"));
                    assert_eq!(bob.execute(title, vec![]).await.expect("script"), json!("Ann vs Bob · bashni"));
                    // No engine's help for a game going on.
                    let study = ann.execute("return document.getElementById('to-study').hidden", vec![]).await.expect("script");
                    assert_eq!(study, json!(true), "no analysis board during the game");
                }
            } else {
                assert!(idle_since.elapsed() < std::time::Duration::from_secs(60), "no side could move for a minute at ply {plies}");
                tokio::time::sleep(std::time::Duration::from_millis(30)).await;
            }
        }
        assert!(plies < MAX_PLIES, "the game ended by the rules");
        for client in [ann, bob, cat] {
            wait_for(client, "return document.getElementById('status').textContent.startsWith('Game over')", "the result").await;
        }
        // The result is told as a note too (on a phone it is below the
        // board), to the watcher as to the players.
        let result = text_of(cat, "#status").await;
        told(cat, &result, "the watcher told the result").await;
        told(ann, &result, "Ann told the result").await;
        let silent = "return [document.getElementById('sound').textContent, document.body.dataset.sound ?? null]";
        assert_eq!(bob.execute(silent, vec![]).await.expect("script"), json!(["Sound: off", null]), "Bob's sounds stayed off, a reload too");
        click(bob, "#sound").await;
        let seen = move_list(cat).await;
        assert_eq!(seen.len(), plies, "Cat saw every move");
        assert_eq!(seen, move_list(ann).await);
        assert_eq!(text_of(cat, "#status").await, text_of(ann, "#status").await);
        replay_steps_through(cat, &seen).await;
        // Bob asks for a rematch: Ann is told, not only shown a button.
        click(bob, "#rematch").await;
        told(ann, "Your opponent asks for a rematch.", "Ann told of Bob's rematch request").await;
        assert_eq!(text_of(ann, "#rematch").await, "Accept rematch");
        // Ann declines it: Bob is told, and may not ask again; Ann asks
        // herself later, and Bob accepts.
        click(ann, "#decline-rematch").await;
        told(bob, "Your rematch request was declined.", "Bob told his request was declined").await;
        wait_for(bob, "return document.getElementById('rematch').hidden", "Bob's request not offered again").await;
        wait_for(ann, "return document.getElementById('decline-rematch').hidden", "nothing left to decline").await;

        // Cat goes back to the lobby, which the finished room has left
        // (before the rematch brings it back as a game being played).
        click(cat, "#to-lobby").await;
        let gone = format!("return !document.querySelector(\"tr[data-room='{room}']\")");
        wait_for(cat, &gone, "the finished room leaves the lobby").await;

        // Ann has the game analysed; a click on the graph replays it to
        // the move clicked, marked on the graph.
        click(ann, "#analyse").await;
        wait_for(ann, "return document.querySelectorAll('#graph rect.hit').length > 0", "the analysis graph").await;
        let strips = ann.execute("return document.querySelectorAll('#graph rect.hit').length", vec![]).await.expect("script");
        assert_eq!(strips, json!(plies), "one strip per move");
        click(ann, "#graph rect.hit[data-ply='3']").await;
        wait_for(ann, "return document.getElementById('replay-where').textContent.includes('(ply 3 of')", "the replay at move 3").await;
        wait_for(ann, "return document.querySelector('#graph line.cursor') !== null", "the move marked on the graph").await;
        screenshot(ann, &screenshot_path("serve-analysis.png")).await;
        // The address names the move shown: a reload (or the link shared)
        // comes back to it.
        assert_eq!(ann.execute("return location.hash", vec![]).await.expect("script"), json!("#3"));
        ann.refresh().await.expect("reload");
        wait_for(ann, "return document.getElementById('replay-where').textContent.includes('(ply 3 of')", "the replay at move 3 after a reload").await;
        click(ann, "#replay-live").await;
        wait_for(ann, "return location.hash === ''", "the game as it stands has a bare address").await;
        // Once the rematch has begun, a replay of the first game still
        // brings its analysis (stored with the game): the graph, the marks.
        let marked = move_list(ann).await;
        click(ann, "#rematch").await;
        wait_for(bob, "return document.getElementById('rematch').textContent === 'Accept rematch'", "Bob asked").await;
        click(bob, "#rematch").await;
        wait_for(ann, "return !document.getElementById('games').hidden", "the second game").await;
        wait_for(ann, "return document.querySelectorAll('#graph rect.hit').length === 0", "no analysis of the new game").await;
        click(ann, "#game-buttons button[data-game='1']").await;
        wait_for(ann, "return document.querySelectorAll('#graph rect.hit').length > 0", "the first game's graph").await;
        assert_eq!(move_list(ann).await, marked, "the first game's moves with their marks");
        // Ann, Black now, played White then: the replay shows her below.
        let bottom = "return [document.getElementById('player-bottom').dataset.colour, document.querySelector('#player-bottom .name').textContent]";
        assert_eq!(strings(ann, bottom).await, ["white", "Ann"]);
        click(ann, "#replay-last").await;
        let address = format!("return location.hash === '#g1-{plies}'");
        wait_for(ann, &address, "the first game's last move in the address").await;
        // The finished game goes to the analysis board whole, with its
        // rules (the room's 15-move draw, not the variant's own).
        let end = ann.execute("return document.getElementById('board').dataset.fen", vec![]).await.expect("script");
        click(ann, "#to-study").await;
        let study_end = format!("return document.body.dataset.view === 'study' && document.querySelectorAll('#study-moves .move').length === {plies} && document.getElementById('study-board').dataset.fen === {end}");
        wait_for(ann, &study_end, "the game on the analysis board").await;
        let rules = text_of(ann, "#study-rules").await;
        assert!(rules.contains("15-move draw"), "{rules}");
        // With who played it then: Ann had White in the first game.
        let players = text_of(ann, "#study-header").await;
        assert_eq!(players, "\u{2068}Ann\u{2069} – \u{2068}Bob\u{2069}");
        // Its pieces are painted: one set of gradients serves every board
        // (a second board's copy of an id is passed over, and a board in a
        // hidden view painted nothing).
        let gradients = "return ['face-white', 'face-black'].map((id) => document.querySelectorAll(`[id=\"${id}\"]`).length)";
        assert_eq!(ann.execute(gradients, vec![]).await.expect("script"), json!([1, 1]));

        // The watcher's name stayed text (Cat is no seat, so check the
        // lobby's copy of a markup name instead: Cat creates a room).
        // Lasca's kings do not fly: where they land is no choice there
        // (and Bashni's choice is kept while Lasca is looked at).
        let landing_hidden = "return document.getElementById('king-landing-choice').hidden";
        select(cat, "king-landing", "free").await;
        select(cat, "variant", "lasca").await;
        assert_eq!(cat.execute(landing_hidden, vec![]).await.expect("script"), json!(true));
        select(cat, "variant", "bashni").await;
        assert_eq!(cat.execute(landing_hidden, vec![]).await.expect("script"), json!(false));
        let landing = cat.execute("return document.getElementById('king-landing').value", vec![]).await.expect("script");
        assert_eq!(landing, json!("free"));
        select(cat, "king-landing", "continue").await;
        select(cat, "opponent", "link").await;
        // A draw rule ticked with no move to count is stopped on the page,
        // with the field marked; a count of moves goes through.
        type_into(cat, "no-progress-moves", "0").await;
        click(cat, "#create-button").await;
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        let stopped = cat
            .execute("return location.pathname === '/' && !!document.querySelector('#no-progress-moves:invalid')", vec![])
            .await
            .expect("script");
        assert_eq!(stopped, json!(true), "an empty draw rule is not sent");
        type_into(cat, "no-progress-moves", "15").await;
        // A clock set by hand: out of the server's bounds it is stopped
        // at its field; within them it is the room's.
        select(cat, "clock", "custom").await;
        type_into(cat, "clock-minutes", "500").await;
        type_into(cat, "clock-increment", "2").await;
        click(cat, "#create-button").await;
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let stopped = "return location.pathname === '/' && !!document.querySelector('#clock-minutes:invalid')";
        assert_eq!(cat.execute(stopped, vec![]).await.expect("script"), json!(true), "500 minutes is over the bound");
        type_into(cat, "clock-minutes", "6.5").await;
        click(cat, "#create-button").await;
        let private = wait_for(cat, "return location.pathname.startsWith('/room/') && location.pathname", "the private room").await;
        let private = private.as_str().expect("a path").to_string();
        wait_for(cat, "return document.getElementById('room-title').textContent.includes(' · 6.5+2 · ')", "the clock set by hand").await;
        wait_for(cat, "return document.querySelector('#player-bottom .name').textContent === '<b>Cat</b>'", "the name as text").await;
        let bold = cat.execute("return document.querySelectorAll('#player-bottom b').length", vec![]).await.expect("script");
        assert_eq!(bold, json!(0), "no markup from a name reaches the page");

        // Ann joins the private room by its link.
        open_page(ann, server, &private, "Ann").await;
        wait_for(ann, "return !document.getElementById('take-seat').hidden", "the free seat").await;
        let waiting = text_of(ann, "#status").await;
        assert_eq!(waiting, "\u{2068}<b>Cat</b>\u{2069} is waiting for an opponent: take the free seat to play.");
        // Copying the link says whether it worked.
        click(ann, "#copy-link").await;
        let said = "const t = document.getElementById('copy-link').textContent; return t === 'Link copied' || t === 'Copy it from the address bar'";
        wait_for(ann, said, "the copy's outcome on the button").await;
        click(ann, "#take-seat").await;
        wait_for(ann, "return document.body.dataset.seated === 'yes' && document.body.dataset.phase === 'playing'", "Ann seated").await;
        wait_for(cat, "return document.body.dataset.phase === 'playing'", "Cat's game starts").await;

        // On a phone's width the board, both clocks and the lobby's tables
        // (with an open game listed) fit the screen: nothing needs a
        // sideways scroll.
        click(bob, "#nav-lobby").await;
        wait_for(bob, "return document.body.dataset.view === 'lobby'", "Bob's lobby").await;
        select(bob, "opponent", "anyone").await;
        click(bob, "#create-button").await;
        wait_for(bob, "return document.body.dataset.phase === 'waiting'", "Bob's open game").await;
        cat.set_window_size(390, 844).await.expect("phone size");
        fits_the_width(cat, "the room").await;
        click(cat, "#nav-lobby").await;
        wait_for(cat, "return document.querySelector('#open-rooms tr[data-room]') !== null", "the lobby with a game").await;
        fits_the_width(cat, "the lobby").await;
        // Bob calls his open game off: he is in the lobby, and it is gone.
        click(bob, "#cancel").await;
        wait_for(bob, "return document.body.dataset.view === 'lobby'", "Bob back in the lobby").await;
        wait_for(cat, "return document.querySelector('#open-rooms tr[data-room]') === null", "Bob's game gone").await;

        // Against the engine (at the Elo the form offers: any whole number
        // in the range is taken), before both sides have moved, the game
        // is aborted, not resigned; the engine, White, has moved.
        select(cat, "opponent", "engine").await;
        select(cat, "strength-kind", "elo").await;
        select(cat, "colour", "black").await;
        let elo = cat.execute("return document.getElementById('elo').value", vec![]).await.expect("script");
        click(cat, "#create-button").await;
        wait_for(cat, "return document.body.dataset.view === 'room' && document.body.dataset.phase === 'playing'", "the engine's game").await;
        moves_reach(cat, 1).await;
        let actions = "return ['abort', 'resign', 'offer-draw', 'takeback'].filter((id) => !document.getElementById(id).hidden)";
        assert_eq!(strings(cat, actions).await, ["abort"]);
        click(cat, "#abort").await;
        assert_eq!(text_of(cat, "#abort").await, "Really abort?");
        click(cat, "#abort").await;
        let aborted = "const t = document.getElementById('status').textContent; return t.startsWith('Game aborted (') && t.endsWith(' aborted the game)')";
        wait_for(cat, aborted, "the game aborted, and by whom").await;
        let pdn_shown = "return !document.getElementById('pdn-link').hidden";
        assert_eq!(cat.execute(pdn_shown, vec![]).await.expect("script"), json!(false), "no PDN of a game called off");
        // In the rematch, once both have moved, resigning is offered; no
        // draw offer or takeback, which the engine would decline.
        click(cat, "#rematch").await;
        wait_for(cat, "return document.body.dataset.phase === 'playing'", "the rematch").await;
        let mut seed = 11u64;
        while move_list(cat).await.len() < 2 {
            if !click_a_move(cat, &mut seed).await {
                tokio::time::sleep(std::time::Duration::from_millis(30)).await;
            }
        }
        wait_for(cat, "return document.getElementById('abort').hidden", "no abort once both moved").await;
        assert_eq!(strings(cat, actions).await, ["resign"]);
        // Stepped back while the game is played, the clocks are the
        // game's, not the position's shown: the one to move still runs.
        cat.execute(&key("ArrowLeft"), vec![]).await.expect("key");
        let running = "return !document.getElementById('replay-bar').hidden && document.querySelector('.clock.running') !== null";
        wait_for(cat, running, "a clock running while stepped back").await;
        cat.execute(&key("End"), vec![]).await.expect("key");
        // One click only asks; the second resigns.
        click(cat, "#resign").await;
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        assert_eq!(text_of(cat, "#resign").await, "Really resign?");
        let phase = cat.execute("return document.body.dataset.phase", vec![]).await.expect("script");
        assert_eq!(phase, json!("playing"), "one click does not resign");
        click(cat, "#resign").await;
        wait_for(cat, "return document.body.dataset.phase === 'over'", "resigned on the second click").await;
        // "New game" makes another room like it: the engine again, the
        // same rules and clock.
        let title = text_of(cat, "#room-title").await;
        let resigned_in = cat.execute("return location.pathname", vec![]).await.expect("script");
        click(cat, "#new-game").await;
        let moved_on = format!("return location.pathname !== {resigned_in} && document.body.dataset.phase === 'playing'");
        wait_for(cat, &moved_on, "the new game").await;
        assert_eq!(text_of(cat, "#room-title").await, title);
        let engine = text_of(cat, "#player-top .name").await;
        assert_eq!(engine, format!("Engine (Elo {})", elo.as_str().expect("text")));
    })
    .await;
}

#[tokio::test]
async fn two_players_asking_for_the_same_quick_game_meet() {
    with_three_browsers(&[], async |server, [ann, bob, _]| {
        let quick = "button.quick[data-variant='lasca'][data-clock='3+2']";
        open_page(ann, server, "/", "Ann").await;
        click(ann, quick).await;
        let path = wait_for(
            ann,
            "return location.pathname.startsWith('/room/') && location.pathname",
            "Ann's room",
        )
        .await;
        wait_for(
            ann,
            "return document.getElementById('status').textContent.startsWith('Waiting')",
            "Ann waits",
        )
        .await;
        // Ann looks at the lobby meanwhile, and the server restarts: her
        // page asks for her game again, which still waits, and goes back
        // to it once Bob sits down.
        click(ann, "#nav-lobby").await;
        wait_for(
            ann,
            "return document.body.dataset.view === 'lobby'",
            "Ann in the lobby",
        )
        .await;
        server.restart();
        // Listed for a page that comes after the restart: Ann's page is
        // back on her game.
        open_page(bob, server, "/", "Bob").await;
        let listed = "return document.querySelector('#open-rooms tr[data-room]') !== null";
        wait_for(bob, listed, "Ann's game listed again").await;
        click(bob, quick).await;
        wait_for(
            bob,
            &format!("return location.pathname === {path}"),
            "Bob in Ann's room",
        )
        .await;
        wait_for(
            ann,
            &format!("return location.pathname === {path}"),
            "Ann back in her room",
        )
        .await;
        for client in [ann, bob] {
            wait_for(
                client,
                "return document.body.dataset.phase === 'playing'",
                "the game on",
            )
            .await;
        }
        let title = text_of(bob, "#room-title").await;
        assert!(title.starts_with("Lasca 7×7 · 3+2"), "{title}");
    })
    .await;
}

#[tokio::test]
async fn a_premove_plays_itself_and_a_game_the_opponent_left_is_called_a_draw() {
    with_three_browsers(&["--claim-after-seconds", "3"], async |server, [ann, bob, _]| {
        open_page(ann, server, "/", "Ann").await;
        select(ann, "opponent", "link").await;
        select(ann, "colour", "white").await;
        select(ann, "clock", "").await;
        click(ann, "#create-button").await;
        let path = wait_for(ann, "return location.pathname.startsWith('/room/') && location.pathname", "the room").await;
        open_page(bob, server, path.as_str().expect("a path"), "Bob").await;
        click(bob, "#take-seat").await;
        premove_is_played_when_the_turn_comes(ann, bob).await;
        let claim_shown = "return !document.getElementById('claim-draw').hidden";
        assert_eq!(ann.execute(claim_shown, vec![]).await.expect("script"), json!(false));
        // Bob goes to the lobby: Ann is told, and counted down to the claim.
        click(bob, "#nav-lobby").await;
        let told = "return document.getElementById('opponent-gone-text').textContent.startsWith('\\u2068Bob\\u2069 left the game. If they are not back in')";
        wait_for(ann, told, "Ann told Bob left").await;
        wait_for(ann, claim_shown, "the claim offered once the wait is over").await;
        click(ann, "#claim-draw").await;
        let over = "return document.getElementById('status').textContent";
        wait_for(ann, "return document.body.dataset.phase === 'over'", "the game over").await;
        assert_eq!(
            ann.execute(over, vec![]).await.expect("script"),
            json!("Game over: Draw, 1-1 (Black left; White called it a draw)")
        );
        assert_eq!(ann.execute("return document.getElementById('opponent-gone').hidden", vec![]).await.expect("script"), json!(true));
        // On the analysis board the game ends as it did, not as a
        // position with moves to play.
        click(ann, "#to-study").await;
        let studied = "return document.body.dataset.view === 'study' && document.getElementById('study-status').textContent";
        let said = wait_for(ann, studied, "the game on the analysis board").await;
        assert_eq!(said, json!("Game over: Draw, 1-1 (Black left; White called it a draw)"));
        // Her lobby lists the game among her own, as it ended.
        click(ann, "#nav-lobby").await;
        let room = path.as_str().and_then(|p| p.strip_prefix("/room/")).expect("a room's path");
        let listed = format!(
            "const row = document.querySelector('#your-games tr[data-room=\"{room}\"]'); \
             return row !== null && row.querySelector('.standing').textContent === 'Draw' \
             && row.querySelector('.players').textContent === 'Bob'"
        );
        wait_for(ann, &listed, "the game in Ann's own games").await;
    })
    .await;
}

/// Bob (Black) picks b6-a5 ahead while Ann thinks over her first move;
/// a click elsewhere takes it back, he types it instead (a move that
/// cannot be picked ahead is refused), and once Ann has moved his page
/// plays it without a click.
async fn premove_is_played_when_the_turn_comes(ann: &Client, bob: &Client) {
    wait_for(
        bob,
        "return document.body.dataset.phase === 'playing'",
        "Bob's game on",
    )
    .await;
    let marked = "return [...document.querySelectorAll('#board .premove')].map((r) => r.dataset.premove).join(' ')";
    click_square(bob, "b6").await;
    click_square(bob, "a5").await;
    assert_eq!(
        bob.execute(marked, vec![]).await.expect("script"),
        json!("b6 a5")
    );
    click_square(bob, "h6").await;
    assert_eq!(
        bob.execute(marked, vec![]).await.expect("script"),
        json!(""),
        "taken back"
    );
    type_into(bob, "move-input", "b6-b5\u{e007}").await;
    let refused = "return document.getElementById('move-hint').textContent === 'No move b6-b5 to pick ahead.'";
    wait_for(
        bob,
        refused,
        "the hint for a move that cannot be picked ahead",
    )
    .await;
    type_into(bob, "move-input", "b6a5").await;
    assert_eq!(
        bob.execute(marked, vec![]).await.expect("script"),
        json!("b6 a5"),
        "typed ahead"
    );
    let mut seed = 3u64;
    assert!(click_a_move(ann, &mut seed).await, "Ann's first move");
    moves_reach(ann, 2).await;
    assert_eq!(move_list(ann).await[1], "b6-a5", "played as picked");
    assert_eq!(
        bob.execute(marked, vec![]).await.expect("script"),
        json!("")
    );
    // A move picked ahead lives for one move of the opponent: Bob picks
    // one, then takes his last move back (Ann grants it), and it is
    // dropped, not played in a position he never saw.
    for (client, plies) in [(ann, 3), (bob, 4)] {
        while !click_a_move(client, &mut seed).await {
            tokio::time::sleep(std::time::Duration::from_millis(30)).await;
        }
        moves_reach(client, plies).await;
    }
    let ahead = "return document.querySelector('#board .hit[data-ahead]').dataset.square";
    let from = bob.execute(ahead, vec![]).await.expect("script");
    click_square(bob, from.as_str().expect("a square")).await;
    while bob.execute(marked, vec![]).await.expect("script") == json!("") {
        let dots = landing_dots(bob).await;
        click_square(bob, dots.first().expect("a landing")).await;
    }
    click(bob, "#takeback").await;
    wait_for(
        ann,
        "return !document.getElementById('takeback-asked').hidden",
        "Ann asked",
    )
    .await;
    click(ann, "#accept-takeback").await;
    moves_reach(bob, 3).await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(
        move_list(bob).await.len(),
        3,
        "the move picked ahead was not played"
    );
    assert_eq!(
        bob.execute(marked, vec![]).await.expect("script"),
        json!("")
    );
}

/// Wait until the page shows the notice `text` (news such as an answer
/// to an offer); `what` names it if it never comes.
async fn told(client: &Client, text: &str, what: &str) {
    let script = format!(
        "return [...document.querySelectorAll('#errors .notice')].some((n) => n.textContent === {})",
        json!(text)
    );
    wait_for(client, &script, what).await;
}

/// A script pressing the key `name`.
fn key(name: &str) -> String {
    format!("document.dispatchEvent(new KeyboardEvent('keydown', {{key: '{name}'}}))")
}

/// During a game the arrow keys step back through it: a replay opens, at
/// the move before the last of `plies`.
async fn key_step_back(client: &Client, plies: usize) {
    client
        .execute(&key("ArrowLeft"), vec![])
        .await
        .expect("key");
    let back = format!(
        "return !document.getElementById('replay-bar').hidden && document.getElementById('replay-where').textContent.includes('(ply {} of {plies})')",
        plies - 1
    );
    wait_for(client, &back, "one move back").await;
}

/// A watcher sees White at the bottom; "Flip board" puts Bob's Black
/// there (the board and both players' bars), and a second click puts it
/// back.
async fn watcher_flips_the_board(client: &Client) {
    let bottom = "const bar = document.getElementById('player-bottom'); return [bar.dataset.colour, bar.querySelector('.name').textContent]";
    assert_eq!(strings(client, bottom).await, ["white", "Ann"]);
    click(client, "#flip").await;
    assert_eq!(strings(client, bottom).await, ["black", "Bob"]);
    click(client, "#flip").await;
    assert_eq!(strings(client, bottom).await, ["white", "Ann"]);
}

/// The page sounded the last move of its list: the game's end, a
/// capture or a plain move.
async fn sounded_the_last_move(client: &Client) {
    let script = "const last = [...document.querySelectorAll('#moves .move')].at(-1).textContent; \
        const want = document.body.dataset.phase === 'over' ? 'end' : last.includes('x') ? 'capture' : 'move'; \
        return document.body.dataset.sound === want";
    wait_for(client, script, "the sound of the last move").await;
}

/// Ann says a line in the chat with Enter: Bob reads it under her name,
/// its markup as text; Cat, watching, has no chat at all. Bob hides the
/// chat and shows it again.
async fn players_chat_and_the_watcher_sees_none(ann: &Client, bob: &Client, cat: &Client) {
    type_into(ann, "chat-input", "good luck <i>Bob</i>\u{e007}").await;
    let line = "const l = document.querySelector('#chat-lines li'); return !!l && l.textContent === 'Ann good luck <i>Bob</i>' && !l.querySelector('i')";
    wait_for(bob, line, "Bob reads Ann's line").await;
    wait_for(ann, line, "Ann sees her own line").await;
    let field = "return document.getElementById('chat-input').value";
    assert_eq!(
        ann.execute(field, vec![]).await.expect("script"),
        json!(""),
        "the field is emptied"
    );
    let errors = "return document.getElementById('errors').textContent";
    let no_error = ann.execute(errors, vec![]).await.expect("script");
    assert_eq!(no_error, json!(""), "one line sent, and taken");
    // A line the server refuses stays in the field, to be mended.
    type_into(ann, "chat-input", "good luck <i>Bob</i>\u{e007}").await;
    let refused =
        "return document.getElementById('errors').textContent.includes('You said that just now.')";
    wait_for(ann, refused, "the repeat refused").await;
    let kept = ann.execute(field, vec![]).await.expect("script");
    assert_eq!(kept, json!("good luck <i>Bob</i>"), "the refused line kept");
    // The field takes no more than a line's 140 characters, counted as
    // the server counts them (an accented letter typed is one).
    type_into(ann, "chat-input", &"é".repeat(150)).await;
    let typed = "return [...document.getElementById('chat-input').value].length";
    assert_eq!(
        ann.execute(typed, vec![]).await.expect("script"),
        json!(140)
    );
    let clear = "document.getElementById('chat-input').value = ''";
    ann.execute(clear, vec![]).await.expect("script");
    let watcher = "return [document.getElementById('chat').hidden, document.querySelectorAll('#chat-lines li').length]";
    assert_eq!(
        cat.execute(watcher, vec![]).await.expect("script"),
        json!([true, 0])
    );
    click(bob, "#chat-toggle").await;
    let hidden = "return document.getElementById('chat-lines').hidden && document.getElementById('chat-toggle').textContent === 'Show chat'";
    wait_for(bob, hidden, "Bob's chat hidden").await;
    click(bob, "#chat-toggle").await;
    wait_for(
        bob,
        "return !document.getElementById('chat-lines').hidden",
        "Bob's chat shown again",
    )
    .await;
}

/// After a move was made while this page stepped back (to the ply before
/// the last but one of `plies`), its replay has the move as well, and End
/// is the live game again.
async fn key_end_is_the_live_game(client: &Client, plies: usize) {
    let still = format!(
        "return document.getElementById('replay-where').textContent.includes('(ply {} of {plies})')",
        plies - 2
    );
    wait_for(client, &still, "the replay where it was, with the new move").await;
    client.execute(&key("End"), vec![]).await.expect("key");
    wait_for(
        client,
        "return document.getElementById('replay-bar').hidden",
        "live again",
    )
    .await;
}

/// Ann, to move after `plies`, asks to take back her last move (and
/// Bob's reply); Bob grants it and Ann is told so. The plies left.
async fn take_back_two_plies(ann: &Client, bob: &Client, cat: &Client, plies: usize) -> usize {
    click(ann, "#takeback").await;
    wait_for(
        bob,
        "return !document.getElementById('takeback-asked').hidden",
        "Bob asked for a takeback",
    )
    .await;
    click(bob, "#accept-takeback").await;
    let left = plies - 2;
    for client in [ann, bob, cat] {
        moves_reach(client, left).await;
    }
    told(
        ann,
        "Your takeback request was accepted.",
        "Ann told her takeback was granted",
    )
    .await;
    left
}

/// Ann offers a draw: her button says it stands and cannot be pressed
/// again, Bob is asked; he declines, Ann is told so, and her button is
/// dimmed for ten moves, saying so (an offer is a question on the
/// opponent's screen).
async fn offer_and_decline_a_draw(ann: &Client, bob: &Client) {
    click(ann, "#offer-draw").await;
    wait_for(ann, "const b = document.getElementById('offer-draw'); return b.disabled && b.textContent === 'Draw offered'", "the offer shown as sent").await;
    wait_for(
        bob,
        "return !document.getElementById('draw-offered').hidden",
        "Bob asked",
    )
    .await;
    told(bob, "Your opponent offers a draw.", "Bob told in a note").await;
    let offer_shown = bob
        .execute(
            "return !document.getElementById('offer-draw').hidden",
            vec![],
        )
        .await
        .expect("script");
    assert_eq!(
        offer_shown,
        json!(false),
        "Bob answers the offer, not offers one"
    );
    click(bob, "#decline-draw").await;
    // Answered, the question's note goes (it stayed for its six seconds,
    // over "Draw agreed" when the offer was accepted).
    wait_for(
        bob,
        "return document.getElementById('draw-offered').hidden",
        "Bob's answer shown",
    )
    .await;
    let asked = "return [...document.querySelectorAll('#errors .notice')].some((n) => n.textContent === 'Your opponent offers a draw.')";
    assert_eq!(
        bob.execute(asked, vec![]).await.expect("script"),
        json!(false),
        "Bob's note taken down"
    );
    wait_for(ann, "const b = document.getElementById('offer-draw'); return !b.hidden && b.disabled && b.textContent === 'Offer a draw' && b.title === 'You may offer a draw again in 10 moves.'", "the offer answered").await;
    told(
        ann,
        "Your draw offer was declined.",
        "Ann told her offer was declined",
    )
    .await;
}

/// In a second tab of the creator's browser, the lobby offers the room
/// as the creator's own game to open, not to join a second time, and the
/// create form is as the creator last used it.
async fn own_room_is_not_joinable_from_another_tab(client: &Client, server: &Serve, room: &str) {
    let first = client.window().await.expect("window");
    let second = client.new_window(true).await.expect("new tab").handle;
    client.switch_to_window(second).await.expect("switch");
    client
        .goto(&format!("{}/", server.origin()))
        .await
        .expect("lobby");
    let row = format!("#open-rooms tr[data-room='{room}']");
    wait_for(
        client,
        &format!("return !!document.querySelector(\"{row}\")"),
        "the own room in the lobby",
    )
    .await;
    let buttons = strings(
        client,
        &format!(
            "return [...document.querySelectorAll(\"{row} button\")].map((b) => b.textContent)"
        ),
    )
    .await;
    assert_eq!(buttons, ["Your game"], "no Join for the creator's own room");
    // The create form comes back as it was last used (White, no clock),
    // not at its defaults (a random colour, 5+3).
    let form = strings(
        client,
        "return [document.getElementById('colour').value, document.getElementById('clock').value]",
    )
    .await;
    assert_eq!(form, ["white", ""], "the form as Ann left it");
    // A seat taken here keeps the seats other tabs took since this one
    // loaded (its own copy of the list, written back, dropped them).
    let other_tab = "0123456789abcdef0123456789abcdef";
    let kept = format!(
        "const t = JSON.parse(localStorage.getItem('bashni.tokens')); t['{other_tab}'] = '{other_tab}'; \
         localStorage.setItem('bashni.tokens', JSON.stringify(t))"
    );
    client
        .execute(&kept, vec![])
        .await
        .expect("another tab's seat");
    select(client, "opponent", "link").await;
    click(client, "#create-button").await;
    let seats = wait_for(
        client,
        "return location.pathname.startsWith('/room/') && Object.keys(JSON.parse(localStorage.getItem('bashni.tokens')))",
        "the new room",
    )
    .await;
    for seat in [room, other_tab] {
        assert!(
            seats.as_array().is_some_and(|s| s.contains(&json!(seat))),
            "{seat} kept: {seats}"
        );
    }
    client.close_window().await.expect("close tab");
    client.switch_to_window(first).await.expect("back");
}

/// Nothing on the page reaches past the window's right edge.
async fn fits_the_width(client: &Client, page: &str) {
    let script = "const out = [...document.querySelectorAll('.board, .clock, table, .panel')] \
        .filter((e) => e.offsetParent && e.getBoundingClientRect().right > innerWidth + 1) \
        .map((e) => e.getAttribute('class') || e.tagName); \
        if (document.documentElement.scrollWidth > innerWidth) out.push('the page'); \
        return out;";
    let wide = strings(client, script).await;
    assert!(wide.is_empty(), "{page} is wider than a phone: {wide:?}");
}
