//! The analysis board and the position editor in a real browser: headless
//! Chromium driven over WebDriver (chromedriver), against `bashni gui`
//! with our engine. Screenshots go to target/gui-screenshots/; with
//! BASHNI_UPDATE_SCREENSHOTS set, the ones docs/gui.md shows go to docs/.
//!
//! Each test opens its own browser on its own server, so one failure does
//! not hide the others. Without chromium and chromedriver they fail under
//! CI (CI=true; the CI script installs them) and are skipped with a note
//! elsewhere.

#[path = "support/browser.rs"]
mod browser;
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
use fantoccini::Client;
use futures_util::FutureExt;
use serde_json::{Value, json};
use serve::Serve;
use std::path::PathBuf;
use std::time::Duration;
use temp::TempDir;

/// A position with a column of nine: a white king over two white men over
/// six black prisoners on h6 (docs/notation.md). White has two moves.
const TALL: &str = "W:b2w,d2w,a3w,e3w,f4www,g5b,b6wbb,f6bw,h6Wwwbbbbbb,c7b,g7b 0 22";

/// Where screenshots go: target/gui-screenshots/, or docs/ for the ones
/// docs/gui.md shows when BASHNI_UPDATE_SCREENSHOTS is set, so that a test
/// run leaves the work tree clean.
fn screenshot_path(name: &str, for_docs: bool) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    match std::env::var_os("BASHNI_UPDATE_SCREENSHOTS") {
        Some(_) if for_docs => root.join("docs").join(name),
        _ => root.join("target/gui-screenshots").join(name),
    }
}

/// Open `path` of a fresh `bashni gui` in a fresh Chromium and run `body`;
/// the browser is closed even when a check in `body` fails.
async fn on_the_page(path: &str, body: impl AsyncFnOnce(&Client)) {
    let Some((chromium, chromedriver)) = browser_programs() else {
        return;
    };
    let _turn = ONE_BROWSER.lock().await;
    let dir = TempDir::new("gui-browser");
    let database = format!("sqlite:{}", dir.path().join("gui.db").display());
    let server = Serve::gui(&["--database", &database], &[]);
    let driver = Driver::start(&chromedriver);
    let client = browser(&driver, &chromium).await;
    let outcome = std::panic::AssertUnwindSafe(async {
        let url = format!("{}{path}", server.origin());
        client.goto(&url).await.expect("the page loads");
        let online = "return document.getElementById('connection').dataset.status === 'online'";
        wait_for(&client, online, "online").await;
        body(&client).await;
    })
    .catch_unwind()
    .await;
    let _ = client.close().await;
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

/// [`on_the_page`] of the analysis board opened by a link to the Bashni
/// position `fen`, once the board shows it.
async fn on_a_linked_position(fen: &str, body: impl AsyncFnOnce(&Client)) {
    let query = format!("/analysis?variant=bashni&fen={}", fen.replace(' ', "%20"));
    on_the_page(&query, async |client| {
        let linked = format!(
            "return document.getElementById('study-board').dataset.fen == {}",
            json!(fen)
        );
        wait_for(client, &linked, "the position linked").await;
        body(client).await;
    })
    .await;
}

async fn run(client: &Client, script: &str) -> Value {
    client.execute(script, vec![]).await.expect("script runs")
}

/// The analysis board's move list once `condition` holds of it (as `m`).
async fn study_moves_where(client: &Client, condition: &str) -> Value {
    let script = format!(
        "const m = [...document.querySelectorAll('#study-moves .move')].map(s => s.textContent);
         return ({condition}) && m"
    );
    wait_for(client, &script, condition).await
}

/// The position the board `id` shows, once it shows one.
async fn fen_of(client: &Client, id: &str) -> String {
    let script = format!("return document.getElementById('{id}').dataset.fen");
    let fen = wait_for(client, &script, id).await;
    fen.as_str().expect("a position").to_string()
}

/// Put a PDN text on the analysis board by the import box.
async fn import(client: &Client, pdn: &str) {
    type_into(client, "study-pdn", pdn).await;
    click(client, "#study-import").await;
}

/// Pick the editor's tool (`w`, `W`, `b`, `B`, `clear`).
async fn tool(client: &Client, value: &str) {
    click(
        client,
        &format!("input[name='editor-tool'][value='{value}']"),
    )
    .await;
}

/// The pieces of a drawn column, ordered by where they are drawn from the
/// top of the screen down, and the height its badge shows.
fn stack_script(board: &str, square: &str) -> String {
    format!(
        "const c = document.querySelector(\"#{board} .column[data-square='{square}']\");
         if (!c) return null;
         const pieces = [...c.querySelectorAll('.piece')]
           .map(p => [p.getBoundingClientRect().top, p.classList[1], !!p.querySelector('.crown')]);
         pieces.sort((a, b) => a[0] - b[0]);
         return {{ order: pieces.map(p => p[1]).join(''),
                  strictly: pieces.every((p, i) => i == 0 || p[0] > pieces[i - 1][0]),
                  badge: c.querySelector('.badge text').textContent,
                  crown: pieces[0][2] }};"
    )
}

#[tokio::test]
async fn the_engines_lines_appear_per_move_and_clicking_one_plays_it() {
    on_the_page("/analysis", async |client| {
        import(client, &format!("[FEN \"{TALL}\"]\n[Variant \"bashni\"]\n*\n")).await;
        let tall = "return document.querySelector(\"#study-board .column[data-square='h6']\")?.dataset.height == '9'";
        wait_for(client, tall, "the imported position").await;
        click(client, "#study-analyse").await;
        // White has two moves here, so two lines, each a score first.
        let lines = "const l = [...document.querySelectorAll('#study-lines .line')];
                     return l.length == 2 && l.map(d => [d.dataset.first, d.textContent])";
        let shown = wait_for(client, lines, "two lines").await;
        let firsts: Vec<&str> = (shown.as_array().expect("lines").iter())
            .map(|l| l[0].as_str().expect("a move"))
            .collect();
        assert_ne!(firsts[0], firsts[1], "a line per move: {shown}");
        for line in shown.as_array().expect("lines") {
            let (first, text) = (line[0].as_str().expect("a move"), line[1].as_str().expect("text"));
            assert!(text.starts_with(['+', '-']), "a score first: {text}");
            assert!(text.contains(&format!(" 22. {first}")), "numbered from the position's move 22: {text}");
        }
        tokio::time::sleep(Duration::from_millis(600)).await;
        screenshot(client, &screenshot_path("gui-analysis.png", true)).await;
        let first = run(client, "return document.querySelector('#study-lines .line').dataset.first").await;
        click(client, "#study-lines .line").await;
        let played = study_moves_where(client, "m.length == 1").await;
        assert_eq!(played[0], first, "{played}");
        let start = run(client, "return document.getElementById('study-moves').start").await;
        assert_eq!(start, json!(22), "the move list counts from move 22");
        // From Black's move 22 on: the engine's lines and the move list
        // number Black's first move 22..., the list's row with an empty
        // place for White's.
        let black = wait_for(client, "const f = document.getElementById('study-board').dataset.fen; return f.startsWith('B:') && f", "Black to move").await;
        import(client, &format!("[FEN \"{}\"]\n[Variant \"bashni\"]\n*\n", black.as_str().expect("a position"))).await;
        wait_for(client, "return document.querySelectorAll('#study-moves .move').length == 0", "the imported position").await;
        click(client, "#study-analyse").await;
        let black_line = "const l = document.querySelector('#study-lines .line'); return !!l && / 22\\.\\.\\. /.test(l.textContent) && l.dataset.first";
        let first = wait_for(client, black_line, "a line numbered 22...").await;
        click(client, "#study-lines .line").await;
        study_moves_where(client, "m.length == 1").await;
        let row = run(client, "const li = document.querySelector('#study-moves li'); return [li.parentNode.start, li.textContent]").await;
        assert_eq!(row, json!([22, format!("… {}", first.as_str().expect("a move"))]));
        let engine = "return document.getElementById('study-engine').textContent";
        let status = run(client, engine).await;
        assert!(status.as_str().is_some_and(|s| s.starts_with("Engine:")), "{status}");
        // The engine stays on across a reload, and off once stopped.
        client.refresh().await.expect("reload");
        let lines_shown = "return document.querySelectorAll('#study-lines .line').length > 0";
        wait_for(client, lines_shown, "the engine's lines after a reload").await;
        click(client, "#study-stop").await;
        wait_for(client, "return document.getElementById('study-engine').textContent == 'Engine: stopped'", "stopped").await;
        client.refresh().await.expect("reload");
        fen_of(client, "study-board").await;
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert_eq!(run(client, engine).await, json!(""), "no analysis after a reload once stopped");
    })
    .await;
}

/// The editor builds a nine-piece column from the bottom up, drawn piece
/// by piece; a position the rules refuse is named; an edited position's
/// capture chain is clicked landing by landing on the analysis board.
#[tokio::test]
async fn the_editor_stacks_pieces_and_a_chain_is_clicked_landing_by_landing() {
    on_the_page("/editor", async |client| {
        wait_for(
            client,
            "return document.querySelectorAll('#editor-board .column').length == 24",
            "the start",
        )
        .await;
        // On a phone the pieces to pick sit right under the board, all on
        // the first screen with it: no scrolling between a piece and its
        // square.
        client.set_window_size(390, 844).await.expect("phone size");
        let gap = "const board = document.getElementById('editor-board').getBoundingClientRect(); \
            const tools = document.getElementById('editor-tools').getBoundingClientRect(); \
            return [tools.top - board.bottom, innerHeight - tools.bottom];";
        let gap = run(client, gap).await;
        assert!(gap[0].as_f64().is_some_and(|g| (0.0..20.0).contains(&g)), "under the board: {gap}");
        assert!(gap[1].as_f64().is_some_and(|g| g >= 0.0), "on the first screen: {gap}");
        client.set_window_size(1280, 820).await.expect("desktop size");
        click(client, "#editor-empty").await;
        click(client, "#editor-done").await;
        let empty = "return document.getElementById('editor-error').textContent === 'The board is empty'";
        wait_for(client, empty, "the empty board refused").await;
        for (piece, times) in [("b", 5), ("B", 1), ("w", 2), ("W", 1)] {
            tool(client, piece).await;
            for _ in 0..times {
                click_square(client, "h6").await;
            }
        }
        let stack = wait_for(
            client,
            &stack_script("editor-board", "h6"),
            "the tall column",
        )
        .await;
        assert_eq!(stack["order"], "WwwBbbbbb", "top first: {stack}");
        assert_eq!(stack["strictly"], true, "{stack}");
        assert_eq!(stack["badge"], "9");
        assert_eq!(stack["crown"], true, "the king commands");
        // The buried king is marked, and the column says what it holds.
        let marked = "return [...document.querySelectorAll(\"#editor-board .column[data-square='h6'] .buried-king\")].map(k => k.parentNode.classList[1])";
        assert_eq!(run(client, marked).await, json!(["B"]));
        let told = "return document.querySelector(\"#editor-board .hit[data-square='h6'] title\").textContent";
        assert_eq!(
            run(client, told).await,
            "h6: 9 pieces, top first: white king, white man, white man, black king, \
             black man, black man, black man, black man, black man"
        );
        // A man on the far rank: the server names the square, the editor stays.
        tool(client, "w").await;
        click_square(client, "b8").await;
        click(client, "#editor-done").await;
        let error = wait_for(
            client,
            "return document.getElementById('editor-error').textContent",
            "the error",
        )
        .await;
        assert!(error.as_str().is_some_and(|e| e.starts_with("Column on b8")), "said alone, not after the whole position: {error}");
        assert_eq!(
            run(client, "return document.body.dataset.view").await,
            "editor"
        );
        tool(client, "clear").await;
        click_square(client, "b8").await;
        // c3 takes d4 to e5, then d6 to c7 or f6 to g7: two ways on (the
        // king on h6 has no capture, so none but this chain is legal).
        tool(client, "w").await;
        click_square(client, "c3").await;
        tool(client, "b").await;
        for square in ["d4", "d6", "f6"] {
            click_square(client, square).await;
        }
        screenshot(client, &screenshot_path("gui-editor.png", true)).await;
        click(client, "#editor-done").await;
        wait_for(
            client,
            "return document.body.dataset.view == 'study'",
            "the analysis board",
        )
        .await;
        let fen = fen_of(client, "study-board").await;
        assert!(fen.contains("c3w") && fen.contains("f6b"), "{fen}");
        click_square(client, "c3").await;
        click_square(client, "e5").await;
        let waiting = "return document.querySelectorAll('#study-board .target').length";
        assert_eq!(wait_for(client, waiting, "two ways on").await, json!(2));
        click_square(client, "g7").await;
        let played = study_moves_where(client, "m.length == 1").await;
        assert_eq!(played, json!(["c3xe5xg7"]));
        // The chain typed instead: its first landing picks and waits
        // (Enter says it goes on), the other way shortened to start and
        // end plays at once.
        click(client, "#study-back").await;
        wait_for(
            client,
            &format!(
                "return document.getElementById('study-board').dataset.fen == {}",
                json!(fen)
            ),
            "back at the start",
        )
        .await;
        // A quiet move where a capture is due says why it is refused.
        type_into(client, "study-move-input", "c3-b4\u{e007}").await;
        let hint = "return document.getElementById('study-move-hint').textContent";
        assert_eq!(
            run(client, hint).await,
            "No legal move c3-b4 here. A capture is compulsory."
        );
        type_into(client, "study-move-input", "C3:E5\u{e007}").await;
        assert_eq!(
            wait_for(client, waiting, "two ways on, typed").await,
            json!(2)
        );
        assert_eq!(run(client, hint).await, "Type on: the move goes further.");
        type_into(client, "study-move-input", "c3-c7").await;
        let played = study_moves_where(client, "m.length == 1 && m[0] == 'c3xe5xc7'").await;
        assert_eq!(played, json!(["c3xe5xc7"]));
        let left = run(
            client,
            "return document.getElementById('study-move-input').value",
        )
        .await;
        assert_eq!(left, "", "the field is ready for the next move");
    })
    .await;
}

/// From the lobby's link to the analysis board: a Lasca game by clicks,
/// out as PDN, a new Bashni game, and the PDN back; the move list walked
/// by clicks and keys.
#[tokio::test]
async fn a_lasca_game_goes_out_as_pdn_and_comes_back() {
    on_the_page("/", async |client| {
        click(client, "#nav-study").await;
        wait_for(client, "return document.body.dataset.view == 'study' && document.getElementById('study-variant').options.length", "the analysis board").await;
        // Choosing the variant starts a new game of it.
        select(client, "study-variant", "lasca").await;
        wait_for(client, "return document.querySelectorAll('#study-board .column').length == 22", "Lasca's start").await;
        let after_start = fen_of(client, "study-board").await;
        // Each move is answered by the server before the next is entered,
        // as a player waits to see a move land.
        click_square(client, "a3").await;
        click_square(client, "b4").await;
        study_moves_where(client, "m.length == 1").await;
        click_square(client, "c5").await;
        click_square(client, "a3").await;
        study_moves_where(client, "m.length == 2").await;
        let end = fen_of(client, "study-board").await;
        // A reload keeps the line.
        client.refresh().await.expect("reload");
        let kept = study_moves_where(client, "m.length == 2").await;
        assert_eq!(kept, json!(["a3-b4", "c5xa3"]));
        assert_eq!(fen_of(client, "study-board").await, end);
        click(client, "#study-export").await;
        let pdn = wait_for(client, "return document.getElementById('study-pdn').value", "the PDN").await;
        let pdn = pdn.as_str().expect("text").to_string();
        assert!(pdn.contains("[Variant \"lasca\"]") && pdn.contains("a3-b4") && pdn.contains("c5xa3"), "{pdn}");
        select(client, "study-variant", "bashni").await;
        wait_for(client, "return document.querySelectorAll('#study-board .column').length == 24", "Bashni's start").await;
        import(client, &pdn).await;
        let back = study_moves_where(client, "m.length == 2").await;
        assert_eq!(back, json!(["a3-b4", "c5xa3"]));
        assert_eq!(fen_of(client, "study-board").await, end);
        // Back to the start by a click on the first move and a key.
        click(client, "#study-moves .move[data-ply='1']").await;
        wait_for(client, "return document.querySelector('#study-moves .current')?.dataset.ply == '1'", "ply 1").await;
        run(client, "document.activeElement.blur(); document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowLeft'}))").await;
        let script = format!("return document.getElementById('study-board').dataset.fen == '{after_start}'");
        wait_for(client, &script, "the start again").await;
    })
    .await;
}

#[tokio::test]
async fn play_from_here_starts_a_room_from_an_edited_position() {
    on_the_page("/editor", async |client| {
        wait_for(client, "return document.querySelectorAll('#editor-board .column').length == 24", "the start").await;
        click(client, "#editor-empty").await;
        tool(client, "w").await;
        for square in ["c3", "e3"] {
            click_square(client, square).await;
        }
        tool(client, "b").await;
        for square in ["d6", "f6", "f6"] {
            click_square(client, square).await;
        }
        // A reload keeps the position being edited.
        let before = run(client, "return document.getElementById('editor-fen').textContent").await;
        client.refresh().await.expect("reload");
        let script = format!("return document.getElementById('editor-fen').textContent == {before}");
        wait_for(client, &script, "the edited position after a reload").await;
        click(client, "#editor-done").await;
        wait_for(client, "return document.body.dataset.view == 'study'", "the analysis board").await;
        let edited = fen_of(client, "study-board").await;
        assert!(edited.contains("f6bb"), "{edited}");
        // On a phone the form is a few screens down the lobby: it is
        // brought to view; the room made from it shows from its top.
        client.set_window_size(390, 844).await.expect("phone size");
        click(client, "#study-play").await;
        wait_for(client, "return document.body.dataset.view == 'lobby' && !document.getElementById('start-from').hidden", "the create form").await;
        let form_top = "return document.getElementById('create-panel').getBoundingClientRect().top";
        let top = run(client, form_top).await.as_f64().expect("a number");
        assert!((-2.0..100.0).contains(&top), "the form in view: its top at {top}");
        select(client, "opponent", "engine").await;
        select(client, "colour", "white").await;
        select(client, "clock", "").await;
        click(client, "#create-button").await;
        wait_for(client, "return document.body.dataset.view == 'room'", "the room").await;
        assert_eq!(run(client, "return window.scrollY").await, json!(0), "the room from its top");
        let script = format!("return document.getElementById('board').dataset.fen == '{edited}'");
        wait_for(client, &script, "the edited position in the room").await;
        wait_for(client, "return document.querySelectorAll('#board .glow').length > 0", "White to move").await;
    })
    .await;
}

/// A game pasted that ended by resignation says so at its end, after a
/// reload too (the position alone does not tell), and keeps it in its
/// PDN; a step back, or another move, and the board is a game going on.
#[tokio::test]
async fn a_resigned_game_pasted_says_how_it_ended() {
    on_the_page("/analysis", async |client| {
        import(client, "[Variant \"bashni\"]\n[White \"Ann\"]\n[Black \"?\"]\n[Event \"Club game\"]\n[Termination \"Black resigned\"]\n1. c3-d4 f6-g5 2-0\n").await;
        let status_is = |text: &str| format!("return document.getElementById('study-status').textContent == '{text}'");
        let resigned = status_is("Game over: \u{2068}Ann\u{2069} wins with White, 2-0 (Black resigned)");
        wait_for(client, &resigned, "the recorded end").await;
        // Who played it is shown, and kept through a reload and variations.
        let header = "return document.getElementById('study-header').textContent == '\u{2068}Ann\u{2069} – \u{2068}?\u{2069}, Club game'";
        wait_for(client, header, "the players and the event").await;
        assert_eq!(run(client, "return document.getElementById('study-play').disabled").await, json!(false), "a resigned game plays on");
        client.refresh().await.expect("reload");
        wait_for(client, &resigned, "the end after a reload").await;
        click(client, "#study-export").await;
        let pdn = wait_for(client, "const t = document.getElementById('study-pdn').value; return t.includes('[Termination') && t", "the PDN").await;
        let pdn = pdn.as_str().expect("text");
        assert!(pdn.contains("[Termination \"Black resigned\"]") && pdn.trim_end().ends_with("2-0"), "{pdn}");
        assert!(pdn.contains("[White \"Ann\"]") && pdn.contains("[Event \"Club game\"]"), "{pdn}");
        click(client, "#study-moves .move[data-ply='1']").await;
        wait_for(client, &status_is("Black to move."), "a step back").await;
        click(client, "#study-moves .move[data-ply='2']").await;
        wait_for(client, &resigned, "the end again").await;
        type_into(client, "study-move-input", "g3-h4\u{e007}").await;
        study_moves_where(client, "m.length == 3").await;
        wait_for(client, &status_is("Black to move."), "the line is another").await;
        click(client, "#study-moves .move[data-ply='2']").await;
        wait_for(client, &status_is("White to move."), "no end in the middle of another line").await;
        client.refresh().await.expect("reload");
        wait_for(client, header, "the players after a variation and a reload").await;
    })
    .await;
}

/// A file of games far longer than one message is cut into its games on
/// the page, each offered by its players; a game too long is said so at
/// the box, as is a bad one; a position string alone is a position.
#[tokio::test]
async fn a_file_of_many_games_is_offered_game_by_game() {
    on_the_page("/analysis", async |client| {
        let comment = "x".repeat(12_000);
        let game = |n: u32, moves: &str| {
            format!("[Event \"Club {n}\"]\n[White \"Ann {n}\"]\n[Black \"Bob\"]\n[Result \"2-0\"]\n{{{comment}}} {moves} 2-0\n\n")
        };
        let file = [game(1, "1. c3-d4"), game(2, "1. a3-b4 f6-g5"), game(3, "1. e3-f4 b6-a5 2. g3-h4")].concat();
        assert!(file.len() > 32 * 1024, "more than one message may carry");
        let paste = |text: &str| {
            let text = text.to_owned();
            async move {
                let script = "document.getElementById('study-pdn').value = arguments[0]";
                client.execute(script, vec![json!(text)]).await.expect("paste");
                click(client, "#study-import").await;
            }
        };
        paste(&file).await;
        study_moves_where(client, "m.length == 1").await;
        let titles = "return [...document.querySelectorAll('#study-pdn-games option')].map(o => o.textContent)";
        assert_eq!(run(client, titles).await, json!(["1. Ann 1 – Bob, Club 1, 2-0", "2. Ann 2 – Bob, Club 2, 2-0", "3. Ann 3 – Bob, Club 3, 2-0"]));
        select(client, "study-pdn-games", "2").await;
        study_moves_where(client, "m.length == 3 && m[2] == 'g3-h4'").await;
        let header = run(client, "return document.getElementById('study-header').textContent").await;
        assert_eq!(header, json!("\u{2068}Ann 3\u{2069} – \u{2068}Bob\u{2069}, Club 3"));
        // One game longer than a message may be is said so at the box.
        let problem = "return document.getElementById('study-pdn-problem').textContent";
        paste(&format!("{{{}}} 1. c3-d4 *", "y".repeat(40_000))).await;
        let said = wait_for(client, &format!("const t = (() => {{ {problem} }})(); return t != '' && t"), "the size said").await;
        assert_eq!(said, json!("This game is 40 KB; one game may have at most 32 KB."));
        // A bad move is named at the box too, and the board stays.
        paste("1. c3-d4 f6-e5 2. d4-c5 *").await;
        let said = wait_for(client, &format!("const t = (() => {{ {problem} }})(); return t.startsWith('PDN') && t"), "the error at the box").await;
        assert!(said.as_str().expect("text").contains("move 2 (White) 'd4-c5'"), "{said}");
        study_moves_where(client, "m.length == 3 && m[2] == 'g3-h4'").await;
        // A position string alone is the position, of the variant chosen.
        paste(TALL).await;
        let tall = "return document.querySelector(\"#study-board .column[data-square='h6']\")?.dataset.height == '9'";
        wait_for(client, tall, "the position pasted").await;
        assert_eq!(run(client, problem).await, json!(""));
        assert_eq!(run(client, "return document.getElementById('study-pdn-pick').hidden").await, json!(true));
    })
    .await;
}

/// The moves of the game pasted by [`play_a_variation_off_a_game`], and
/// of the variation it plays (as `study_moves_where` conditions).
const GAME_LINE: &str = "m.length == 4 && m[3] == 'g7-f6'";
const VARIATION: &str = "m.length == 2 && m[1] == 'b6-a5'";

/// Paste a game, go back to its first move and play another answer for
/// Black: the board shows the variation, the game's line set aside.
async fn play_a_variation_off_a_game(client: &Client) {
    import(
        client,
        "[Variant \"bashni\"]\n1. c3-d4 f6-g5 2. g3-h4 g7-f6 *\n",
    )
    .await;
    study_moves_where(client, GAME_LINE).await;
    click(client, "#study-moves .move[data-ply='1']").await;
    wait_for(
        client,
        "return document.getElementById('study-board').dataset.fen.startsWith('B:')",
        "Black to move",
    )
    .await;
    type_into(client, "study-move-input", "b6-a5\u{e007}").await;
    study_moves_where(client, VARIATION).await;
}

/// Another move played in the middle of a game sets the game's line
/// aside, not away: one click brings it back (at the move where the two
/// part), another the variation; a reload keeps both, a new game neither.
#[tokio::test]
async fn a_move_off_the_games_line_sets_it_aside_to_come_back_to() {
    on_the_page("/analysis", async |client| {
        play_a_variation_off_a_game(client).await;
        let (game, variation) = (GAME_LINE, VARIATION);
        let other = "const b = document.getElementById('study-other-line'); return !b.hidden && b.textContent";
        assert_eq!(wait_for(client, other, "the way back").await, "Back to the game's line");
        client.refresh().await.expect("reload");
        study_moves_where(client, variation).await;
        wait_for(client, other, "the way back after a reload").await;
        click(client, "#study-other-line").await;
        study_moves_where(client, game).await;
        let cursor = "return document.querySelector('#study-moves .move.current')?.dataset.ply";
        assert_eq!(wait_for(client, cursor, "the move shown").await, "1", "where the lines part");
        assert_eq!(wait_for(client, other, "the way to the variation").await, "Back to your variation");
        click(client, "#study-other-line").await;
        study_moves_where(client, variation).await;
        click(client, "#study-new").await;
        study_moves_where(client, "m.length == 0").await;
        wait_for(client, "return document.getElementById('study-other-line').hidden", "nothing set aside").await;
    })
    .await;
}

/// A game's position taken to the editor keeps its move number: back
/// on the board, the line goes on numbered from there.
#[tokio::test]
async fn an_edited_position_keeps_its_move_number() {
    on_the_page("/analysis", async |client| {
        import(client, "[Variant \"bashni\"]\n1. c3-d4 f6-g5 2. g3-h4 *\n").await;
        study_moves_where(client, "m.length == 3").await;
        let shown = fen_of(client, "study-board").await;
        assert!(shown.ends_with(" 0 2"), "{shown}");
        click(client, "#study-edit").await;
        let fen = "const t = document.getElementById('editor-fen').textContent; return document.body.dataset.view == 'editor' && t";
        assert_eq!(wait_for(client, fen, "the editor").await, json!(shown));
        click(client, "#editor-done").await;
        wait_for(client, "return document.body.dataset.view == 'study'", "the board").await;
        type_into(client, "study-move-input", "b6-a5\u{e007}").await;
        let numbered = "const l = document.getElementById('study-moves'); return l.querySelectorAll('.move').length == 1 && l.start";
        assert_eq!(wait_for(client, numbered, "the move").await, json!(2));
    })
    .await;
}

/// A chain's steps that leave no choice are taken for the player: after
/// the king's first landing the board waits where the ways part, and a
/// tap on a landing it took keeps the pick.
#[tokio::test]
async fn a_chain_s_forced_steps_are_taken_for_the_player() {
    on_a_linked_position("W:a1W,c3bb,e3b,g3b,g5b 0 1", async |client| {
        click_square(client, "a1").await;
        click_square(client, "d4").await;
        let targets = "return [...document.querySelectorAll('#study-board .target')].map(t => t.dataset.target).sort()";
        assert_eq!(run(client, targets).await, json!(["d8", "e7", "f6"]), "f2 and h4 are taken");
        click_square(client, "f2").await;
        assert_eq!(run(client, targets).await, json!(["d8", "e7", "f6"]), "still picked");
        click_square(client, "e7").await;
        let played = study_moves_where(client, "m.length == 1").await;
        assert_eq!(played, json!(["a1xd4xf2xh4xe7"]));
    })
    .await;
}

/// A room played from a position with a no-progress count says how near
/// the draw it is, and a capture starts the count again.
#[tokio::test]
async fn a_room_says_how_near_the_no_progress_draw_is() {
    on_a_linked_position("W:a1W,e5b,h8B 13 1", async |client| {
        click(client, "#study-play").await;
        wait_for(
            client,
            "return document.body.dataset.view == 'lobby'",
            "the create form",
        )
        .await;
        select(client, "opponent", "engine").await;
        select(client, "colour", "white").await;
        select(client, "clock", "").await;
        click(client, "#create-button").await;
        let counted =
            "const p = document.getElementById('no-progress'); return !p.hidden && p.textContent";
        let said = wait_for(client, counted, "the count in the room").await;
        assert_eq!(
            said,
            json!("No capture or man move for 6½ moves: a draw at 15 moves.")
        );
        // The king takes the man: the count starts again (at most the
        // engine's king move since).
        click_square(client, "a1").await;
        click_square(client, "f6").await;
        let again = "const p = document.getElementById('no-progress'); \
            return p.hidden || p.textContent.startsWith('No capture or man move for ½ move:')";
        wait_for(client, again, "the count started again").await;
    })
    .await;
}

/// A link to a position opens it on the board; the address is then the
/// board's own, so a reload keeps what was played from it.
#[tokio::test]
async fn a_link_to_a_position_opens_it() {
    let query = format!(
        "/analysis?variant=bashni&fen={}",
        TALL.replace(' ', "%20")
            .replace(',', "%2C")
            .replace(':', "%3A")
    );
    on_the_page(&query, async |client| {
        let tall = "return document.querySelector(\"#study-board .column[data-square='h6']\")?.dataset.height == '9'";
        wait_for(client, tall, "the position linked").await;
        assert_eq!(run(client, "return location.search").await, json!(""));
        click(client, "#study-analyse").await;
        let line = "const l = document.querySelector('#study-lines .line'); return !!l && l.dataset.first";
        let mv = wait_for(client, line, "an engine line").await;
        click(client, "#study-lines .line").await;
        study_moves_where(client, "m.length == 1").await;
        client.refresh().await.expect("reload");
        let kept = study_moves_where(client, "m.length == 1").await;
        assert_eq!(kept[0], mv, "the move played from the linked position");
    })
    .await;
}

/// Two tabs of the board keep their own lines: a new game in one does
/// not take the other's line set aside, nor its line after a reload; a
/// new tab opens on the board kept last. Flip and the number of lines
/// are kept too.
#[tokio::test]
async fn two_tabs_keep_their_own_lines() {
    on_the_page("/analysis", async |client| {
        play_a_variation_off_a_game(client).await;
        let (game, variation) = (GAME_LINE, VARIATION);
        click(client, "#study-flip").await;
        select(client, "study-multipv", "5").await;
        let url = client.current_url().await.expect("url");
        let first = client.window().await.expect("window");
        let second = client.new_window(true).await.expect("new tab").handle;
        client.switch_to_window(second).await.expect("switch");
        client.goto(url.as_str()).await.expect("the board in a new tab");
        study_moves_where(client, variation).await;
        click(client, "#study-new").await;
        study_moves_where(client, "m.length == 0").await;
        type_into(client, "study-move-input", "a3-b4\u{e007}").await;
        study_moves_where(client, "m.length == 1 && m[0] == 'a3-b4'").await;
        client.switch_to_window(first).await.expect("back");
        client.refresh().await.expect("reload");
        study_moves_where(client, variation).await;
        let other = "const b = document.getElementById('study-other-line'); return !b.hidden && b.textContent";
        assert_eq!(wait_for(client, other, "the way back").await, "Back to the game's line");
        click(client, "#study-other-line").await;
        study_moves_where(client, game).await;
        let flipped = "const board = document.getElementById('study-board').getBoundingClientRect(); \
                       return document.querySelector(\"#study-board .column[data-square='a1']\").getBoundingClientRect().top < board.top + board.height / 2";
        assert_eq!(run(client, flipped).await, json!(true), "a1 at the top");
        assert_eq!(run(client, "return document.getElementById('study-multipv').value").await, json!("5"));
    })
    .await;
}

/// A room's game played with captures optional and free king landings,
/// pasted as PDN, is played on by its own rules (a reload keeps them),
/// and "Play from here" carries them to the new room.
#[tokio::test]
async fn a_game_pasted_with_its_rules_is_played_on_by_them() {
    on_the_page("/analysis", async |client| {
        // White could take d4, but captures were not forced.
        import(client, "[Variant \"bashni\"]\n[FEN \"W:c3w,g3w,d4b,h8b 0 1\"]\n[ForcedCapture \"false\"]\n[KingLanding \"free\"]\n1. g3-h4 *\n").await;
        study_moves_where(client, "m.length == 1 && m[0] == 'g3-h4'").await;
        let rules = "return document.getElementById('study-rules').textContent";
        let said = run(client, rules).await;
        let said = said.as_str().expect("text").to_string();
        assert!(said.contains("captures optional") && said.contains("free king landing"), "{said}");
        client.refresh().await.expect("reload");
        study_moves_where(client, "m.length == 1 && m[0] == 'g3-h4'").await;
        assert_eq!(run(client, rules).await, json!(said), "a reload keeps the rules");
        click(client, "#study-play").await;
        wait_for(client, "return document.body.dataset.view == 'lobby' && !document.getElementById('start-from').hidden", "the create form").await;
        let form = run(client, "return [document.getElementById('forced-capture').checked, document.getElementById('king-landing').value]").await;
        assert_eq!(form, json!([false, "free"]));
        select(client, "opponent", "engine").await;
        select(client, "colour", "black").await;
        select(client, "clock", "").await;
        click(client, "#create-button").await;
        wait_for(client, "return document.body.dataset.view == 'room'", "the room").await;
        let title = wait_for(client, "const t = document.getElementById('room-title').textContent; return t.length > 0 && t", "the room's title").await;
        let title = title.as_str().expect("text");
        assert!(title.contains("captures optional") && title.contains("free king landing"), "{title}");
    })
    .await;
}
