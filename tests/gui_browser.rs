//! The board in a real browser: headless Chromium driven over WebDriver
//! (chromedriver), against `bashni gui` with our engine. Screenshots go to
//! target/gui-screenshots/; with BASHNI_UPDATE_SCREENSHOTS set, the two
//! that docs/gui.md shows go to docs/.
//!
//! Each test opens its own browser on its own server, so one failure
//! does not hide the others. Without chromium and chromedriver they fail
//! under CI (CI=true; the CI script installs them) and are skipped with a
//! note elsewhere.

#[path = "support/browser.rs"]
mod browser;
#[path = "support/gui.rs"]
mod gui;
#[path = "support/socket.rs"]
mod socket;

use browser::{
    Driver, ONE_BROWSER, browser, browser_programs, click, click_square, screenshot, select,
    type_into, wait_for,
};
use fantoccini::{Client, Locator};
use futures_util::FutureExt;
use gui::Server;
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;

/// A position with a column of nine: a white king over two white men over
/// six black prisoners on h6 (docs/notation.md).
const TALL: &str = "W:b2w,d2w,a3w,e3w,f4www,g5b,b6wbb,f6bw,h6Wwwbbbbbb,c7b,g7b 0 22";
const LASCA: &str = "W:a1w,c1w,e1w,b2w,f2w,a3w,c3wb,g3w,e5bw,b6b,f6bww,a7b,c7b,g7b 0 9";

/// A script that returns the moves of the move list (as `m`) once
/// `condition` holds.
fn moves_where(condition: &str) -> String {
    format!(
        "const m = [...document.querySelectorAll('#moves span')].map(s => s.textContent);
         return ({condition}) && m"
    )
}

/// The pieces of a drawn column, ordered by where they are drawn from the
/// top of the screen down, and the height its badge shows.
fn stack_script(square: &str) -> String {
    format!(
        "const c = document.querySelector(\".column[data-square='{square}']\");
         if (!c) return null;
         const pieces = [...c.querySelectorAll('.piece')]
           .map(p => [p.getBoundingClientRect().top, p.dataset.piece]);
         pieces.sort((a, b) => a[0] - b[0]);
         const badge = c.querySelector('.badge text');
         const top = c.querySelector('.piece[data-index=\"0\"]');
         return {{ order: pieces.map(p => p[1]).join(''),
                  strictly: pieces.every((p, i) => i == 0 || p[0] > pieces[i - 1][0]),
                  badge: badge ? badge.textContent : null,
                  crown: !!(top && top.querySelector('.crown')) }};"
    )
}

/// Where screenshots go: target/gui-screenshots/, or docs/ for the two that
/// docs/gui.md shows when BASHNI_UPDATE_SCREENSHOTS is set, so that a test
/// run leaves the work tree clean.
fn screenshots(for_docs: bool) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    match std::env::var_os("BASHNI_UPDATE_SCREENSHOTS") {
        Some(_) if for_docs => root.join("docs"),
        _ => root.join("target/gui-screenshots"),
    }
}

/// Open the board (the Bashni start) in a fresh Chromium and run `body`;
/// the browser is closed even when a check in `body` fails. Without
/// chromium and chromedriver this fails under CI (CI=true; the CI script
/// installs them) and is skipped with a printed reason elsewhere.
async fn on_the_board(body: impl AsyncFnOnce(&Client)) {
    let Some((chromium, chromedriver)) = browser_programs() else {
        return;
    };
    let _turn = ONE_BROWSER.lock().await;
    let driver = Driver::start(&chromedriver);
    let client = browser(&driver, &chromium).await;
    let server = Server::start(&[]);
    let outcome = std::panic::AssertUnwindSafe(async {
        client.goto(&server.url).await.expect("the page loads");
        let count = "return document.querySelectorAll('#board .column').length";
        assert_eq!(wait_for(&client, count, "the board").await, json!(24));
        body(&client).await;
    })
    .catch_unwind()
    .await;
    let _ = client.close().await;
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

/// The analysis lines' texts once there are `n` of them.
fn lines(n: usize) -> String {
    format!(
        "const l = [...document.querySelectorAll('#lines .pv')];
         return l.length == {n} && l.map(d => d.textContent)"
    )
}

async fn set_position(client: &Client, fen: &str) {
    type_into(client, "fen", fen).await;
    click(client, "#fen-set").await;
}

#[tokio::test]
async fn option_controls_take_their_ranges_from_the_engine() {
    on_the_board(async |client| {
        let ranges = "const s = document.getElementById('skill');
                      return s.options.length > 0 && [s.options.length, s.options[0].textContent,
                        document.getElementById('threads').max, document.getElementById('multipv').min]";
        let ranges = wait_for(client, ranges, "the option ranges").await;
        assert_eq!(ranges, json!([21, "full", "1024", "1"]));
    })
    .await;
}

#[tokio::test]
async fn a_move_by_clicks_gets_the_engines_reply_on_the_board() {
    on_the_board(async |client| {
        type_into(client, "movetime", "0.2").await;
        click(client, "#flip").await; // leaves the field: its change is sent
        click(client, "#flip").await;
        let movetime = client.find(Locator::Id("movetime")).await.unwrap();
        assert_eq!(
            movetime.prop("value").await.unwrap().as_deref(),
            Some("0.2")
        );
        click_square(client, "c3").await;
        click_square(client, "d4").await;
        let moves = wait_for(client, &moves_where("m.length == 2"), "the reply").await;
        assert_eq!(moves[0], "c3-d4");
        let reply = moves[1].as_str().expect("a move");
        let (from, to) = (&reply[..2], &reply[reply.len() - 2..]);
        let on =
            |sq: &str| format!("return !!document.querySelector(\".column[data-square='{sq}']\")");
        for (square, occupied) in [(to, true), (from, false), ("c3", false)] {
            let found = client.execute(&on(square), vec![]).await.unwrap();
            assert_eq!(found, json!(occupied), "{square} after {moves}");
        }
        screenshot(client, &screenshots(false).join("after-reply.png")).await;
    })
    .await;
}

#[tokio::test]
async fn a_tall_column_is_drawn_piece_by_piece() {
    on_the_board(async |client| {
        set_position(client, TALL).await;
        let tall =
            "return document.querySelector(\".column[data-square='h6']\")?.dataset.height == '9'";
        wait_for(client, tall, "the tall column").await;
        let stack = wait_for(client, &stack_script("h6"), "the tall column").await;
        assert_eq!(stack["order"], "Wwwbbbbbb", "top first: {stack}");
        assert_eq!(stack["strictly"], true, "{stack}");
        assert_eq!(stack["badge"], "9");
        assert_eq!(stack["crown"], true, "the king commands");
        let small = wait_for(client, &stack_script("b6"), "b6").await;
        assert_eq!(
            (small["order"].as_str(), small["crown"].as_bool()),
            (Some("wbb"), Some(false))
        );
    })
    .await;
}

/// Analysis of the tall-column position: a line per legal move, scores
/// first; clicking a line plays it.
#[tokio::test]
async fn analysis_shows_a_line_per_move_and_clicking_one_plays_it() {
    on_the_board(async |client| {
        set_position(client, TALL).await;
        select(client, "mode", "analysis").await;
        // White has two moves here, so two lines.
        let shown = wait_for(client, &lines(2), "two analysis lines").await;
        for line in shown.as_array().unwrap() {
            let text = line.as_str().unwrap();
            assert!(text.starts_with(['+', '-', '#']), "a score first: {text}");
        }
        tokio::time::sleep(Duration::from_millis(600)).await;
        screenshot(client, &screenshots(true).join("gui-bashni.png")).await;
        let first = "return document.querySelector('#lines .pv .moves').textContent.split(' ')[0]";
        let first_move = client.execute(first, vec![]).await.unwrap();
        click(client, "#lines .pv").await;
        // The line may have grown a ply between reading and clicking; its
        // first move is settled (the engine has found a win).
        let played = wait_for(client, &moves_where("m.length > 0"), "the line").await;
        assert_eq!(played[0], first_move, "{played}");
        assert!(
            played.as_array().unwrap().len() >= 2,
            "a whole line: {played}"
        );
    })
    .await;
}

/// A game goes out as PDN, a Lasca position is analysed in between (the
/// docs' second screenshot), and the PDN comes back as the same game.
#[tokio::test]
async fn a_game_goes_out_as_pdn_and_comes_back_after_a_lasca_game() {
    on_the_board(async |client| {
        select(client, "mode", "humans").await;
        set_position(client, TALL).await;
        let played = ["h6xf8", "c7xa5"];
        for (count, mv) in played.iter().enumerate() {
            click_square(client, &mv[..2]).await;
            click_square(client, &mv[3..]).await;
            // The board is drawn anew after each move.
            let shown = format!("m.length == {}", count + 1);
            wait_for(client, &moves_where(&shown), mv).await;
        }
        click(client, "#pdn-box summary").await;
        click(client, "#pdn-export").await;
        let pdn = wait_for(
            client,
            "return document.getElementById('pdn').value",
            "the PDN",
        )
        .await;
        let pdn = pdn.as_str().unwrap().to_string();
        assert!(pdn.contains(&format!("[FEN \"{TALL}\"]")), "{pdn}");

        select(client, "variant", "lasca").await;
        let lasca_start = "return document.querySelectorAll('#board .column').length == 22";
        wait_for(client, lasca_start, "the Lasca start").await;
        set_position(client, LASCA).await;
        let lasca = "return document.getElementById('board').dataset.variant == 'lasca' \
                     && document.querySelectorAll('#board .column').length == 14";
        wait_for(client, lasca, "the Lasca position").await;
        select(client, "mode", "analysis").await;
        wait_for(client, &lines(3), "Lasca analysis").await;
        tokio::time::sleep(Duration::from_millis(600)).await;
        screenshot(client, &screenshots(true).join("gui-lasca.png")).await;

        select(client, "mode", "humans").await;
        type_into(client, "pdn", &pdn).await;
        click(client, "#pdn-import").await;
        let back = "m.length == 2 && document.getElementById('board').dataset.variant == 'bashni'";
        let back = wait_for(client, &moves_where(back), "the imported game").await;
        assert_eq!(back, json!(played));
        screenshot(client, &screenshots(false).join("imported.png")).await;
    })
    .await;
}

/// The editor stacks pieces in click order; then a two-step capture is
/// entered by clicking its landings.
#[tokio::test]
async fn the_editor_stacks_pieces_and_a_chain_is_clicked_landing_by_landing() {
    on_the_board(async |client| {
        select(client, "mode", "humans").await;
        click(client, "#edit").await;
        click(client, "#edit-clear").await;
        select(client, "edit-side", "W").await;
        for (tool, square) in [
            ("b", "c3"),
            ("w", "c3"),
            ("w", "c3"),
            ("w", "a1"),
            ("b", "d4"),
            ("b", "f6"),
        ] {
            click(client, &format!("input[name=tool][value='{tool}']")).await;
            click_square(client, square).await;
        }
        let fen = client.find(Locator::Id("fen")).await.unwrap();
        assert_eq!(
            fen.prop("value").await.unwrap().as_deref(),
            Some("W:a1w,c3wwb,d4b,f6b")
        );
        click(client, "#edit-done").await;
        let edited = "return document.querySelectorAll('#board .column').length == 4";
        wait_for(client, edited, "the edited position").await;
        let stack = wait_for(client, &stack_script("c3"), "the edited column").await;
        assert_eq!(
            (stack["order"].as_str(), stack["badge"].as_str()),
            (Some("wwb"), Some("3"))
        );
        // The only move is c3xe5xg7: picking c3 marks e5 as the next landing.
        click_square(client, "c3").await;
        let next = "return [...document.querySelectorAll('circle.target:not(.final)')].length";
        assert_eq!(wait_for(client, next, "the next landing").await, json!(1));
        click_square(client, "e5").await;
        click_square(client, "g7").await;
        let played = wait_for(client, &moves_where("m.length == 1"), "the capture").await;
        assert_eq!(played, json!(["c3xe5xg7"]));
        let stack = wait_for(client, &stack_script("g7"), "the capturing column").await;
        assert_eq!(stack["order"], "wwbbb", "both prisoners go under");
    })
    .await;
}
