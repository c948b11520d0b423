//! The board in a real browser: headless Chromium driven over WebDriver
//! (chromedriver), against `bashni gui` with our engine. Screenshots go to
//! target/gui-screenshots/; with BASHNI_UPDATE_SCREENSHOTS set, the two
//! that docs/gui.md shows go to docs/.
//!
//! Without chromium and chromedriver the test fails under CI (CI=true; the
//! CI script installs them) and is skipped with a note elsewhere.

#[path = "support/gui.rs"]
mod gui;

use fantoccini::{Client, ClientBuilder, Locator};
use futures_util::FutureExt;
use gui::{PATIENCE, Server};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A position with a column of nine: a white king over two white men over
/// six black prisoners on h6 (docs/notation.md).
const TALL: &str = "W:b2w,d2w,a3w,e3w,f4www,g5b,b6wbb,f6bw,h6Wwwbbbbbb,c7b,g7b 0 22";
const LASCA: &str = "W:a1w,c1w,e1w,b2w,f2w,a3w,c3wb,g3w,e5bw,b6b,f6bww,a7b,c7b,g7b 0 9";

fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

/// chromedriver on a free port; killed when dropped.
struct Driver {
    child: Child,
    port: u16,
}

impl Driver {
    fn start(program: &Path) -> Driver {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new(program)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let deadline = Instant::now() + PATIENCE;
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not listen");
            std::thread::sleep(Duration::from_millis(50));
        }
        Driver { child, port }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn browser(driver: &Driver, chromium: &Path) -> Client {
    let mut capabilities = serde_json::Map::new();
    capabilities.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": chromium,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--window-size=1280,820"]
        }),
    );
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    ClientBuilder::new(connector)
        .capabilities(capabilities)
        .connect(&format!("http://127.0.0.1:{}", driver.port))
        .await
        .expect("a browser session")
}

/// Poll a script until it returns something truthy; that value.
async fn wait_for(client: &Client, script: &str, what: &str) -> Value {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let value = client.execute(script, vec![]).await.expect("script runs");
        let truthy = !matches!(&value, Value::Null | Value::Bool(false))
            && value != json!(0)
            && value != json!("");
        if truthy {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn click(client: &Client, css: &str) {
    client
        .find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no {css}: {e}"))
        .click()
        .await
        .unwrap_or_else(|e| panic!("cannot click {css}: {e}"));
}

async fn click_square(client: &Client, square: &str) {
    click(client, &format!(".hit[data-square='{square}']")).await;
}

async fn select(client: &Client, id: &str, value: &str) {
    let element = client.find(Locator::Id(id)).await.expect("select");
    element.select_by_value(value).await.expect("option");
}

async fn type_into(client: &Client, id: &str, text: &str) {
    let element = client.find(Locator::Id(id)).await.expect("input");
    // Focused, the field is not refreshed by the page while we type (the
    // WebDriver clear command would take the focus away).
    element.click().await.expect("focus");
    let empty = format!("document.getElementById('{id}').value = ''");
    client
        .execute(&empty, vec![])
        .await
        .expect("empty the field");
    element.send_keys(text).await.expect("type");
}

async fn screenshot(client: &Client, path: &Path) {
    let png = client.screenshot().await.expect("screenshot");
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("folder");
    std::fs::write(path, png).expect("write screenshot");
}

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

#[tokio::test]
async fn the_board_in_chromium() {
    let chromium = find_program(&["chromium", "chromium-browser", "google-chrome"]);
    let chromedriver = find_program(&["chromedriver"]);
    let (Some(chromium), Some(chromedriver)) = (chromium, chromedriver) else {
        let note = "the browser test needs `chromium` and `chromedriver` on PATH \
                    (Debian: apt-get install chromium chromium-driver)";
        assert!(std::env::var_os("CI").is_none(), "{note}");
        eprintln!("skipped: {note}");
        return;
    };
    let driver = Driver::start(&chromedriver);
    let client = browser(&driver, &chromium).await;
    // Close the browser even when a check fails.
    let outcome = std::panic::AssertUnwindSafe(drive(&client))
        .catch_unwind()
        .await;
    let _ = client.close().await;
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

async fn drive(client: &Client) {
    let shots = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/gui-screenshots");
    // The two that docs/gui.md shows are rewritten in docs/ only on demand,
    // so that a test run leaves the work tree clean.
    let docs = match std::env::var_os("BASHNI_UPDATE_SCREENSHOTS") {
        Some(_) => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs"),
        None => shots.clone(),
    };
    let server = Server::start(&[]);
    client.goto(&server.url).await.expect("the page loads");
    let count = "return document.querySelectorAll('#board .column').length";
    assert_eq!(wait_for(client, count, "the board").await, json!(24));

    // The option controls take their ranges from the engine's handshake.
    let ranges = "const s = document.getElementById('skill');
                  return s.options.length > 0 && [s.options.length, s.options[0].textContent,
                    document.getElementById('threads').max, document.getElementById('multipv').min]";
    let ranges = wait_for(client, ranges, "the option ranges").await;
    assert_eq!(ranges, json!([21, "full", "1024", "1"]));

    // A move by clicks; the engine (Black by default) answers on the board.
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
    let on = |sq: &str| format!("return !!document.querySelector(\".column[data-square='{sq}']\")");
    assert_eq!(client.execute(&on(to), vec![]).await.unwrap(), json!(true));
    assert_eq!(
        client.execute(&on(from), vec![]).await.unwrap(),
        json!(false)
    );
    assert_eq!(
        client.execute(&on("c3"), vec![]).await.unwrap(),
        json!(false)
    );
    screenshot(client, &shots.join("after-reply.png")).await;

    // A set position with a tall column, drawn piece by piece.
    type_into(client, "fen", TALL).await;
    click(client, "#fen-set").await;
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

    // Analysis: several lines; clicking one plays it.
    select(client, "mode", "analysis").await;
    // White has two moves here, so two lines.
    let lines = |n: usize| {
        format!(
            "const l = [...document.querySelectorAll('#lines .pv')];
             return l.length == {n} && l.map(d => d.textContent)"
        )
    };
    let shown = wait_for(client, &lines(2), "two analysis lines").await;
    for line in shown.as_array().unwrap() {
        let text = line.as_str().unwrap();
        assert!(text.starts_with(['+', '-', '#']), "a score first: {text}");
    }
    tokio::time::sleep(Duration::from_millis(600)).await;
    screenshot(client, &docs.join("gui-bashni.png")).await;
    let first_line: Vec<String> = client
        .execute(
            "return document.querySelector('#lines .pv .moves').textContent.split(' ')",
            vec![],
        )
        .await
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    click(client, "#lines .pv").await;
    // The line may have grown a ply between reading and clicking; its
    // first move is settled (the engine has found a win).
    let played = wait_for(client, &moves_where("m.length > 0"), "the line").await;
    let played: Vec<String> = serde_json::from_value(played).unwrap();
    assert_eq!(played[0], first_line[0], "{played:?} {first_line:?}");
    assert!(played.len() >= 2, "a whole line: {played:?}");

    // PDN out, a Lasca game in between, and the PDN back in.
    select(client, "mode", "humans").await;
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
    type_into(client, "fen", LASCA).await;
    click(client, "#fen-set").await;
    let lasca = "return document.getElementById('board').dataset.variant == 'lasca' \
                 && document.querySelectorAll('#board .column').length == 14";
    wait_for(client, lasca, "the Lasca position").await;
    select(client, "mode", "analysis").await;
    wait_for(client, &lines(3), "Lasca analysis").await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    screenshot(client, &docs.join("gui-lasca.png")).await;
    select(client, "mode", "humans").await;
    type_into(client, "pdn", &pdn).await;
    click(client, "#pdn-import").await;
    let back = wait_for(
        client,
        &moves_where(&format!(
            "m.length == {} && document.getElementById('board').dataset.variant == 'bashni'",
            played.len()
        )),
        "the imported game",
    )
    .await;
    assert_eq!(back, json!(played));
    screenshot(client, &shots.join("imported.png")).await;

    // The editor stacks pieces in click order; then a two-step capture is
    // entered by clicking its landings.
    click(client, "#edit").await;
    click(client, "#edit-clear").await;
    select(client, "edit-side", "W").await;
    let place = async |tool: &str, square: &str| {
        click(client, &format!("input[name=tool][value='{tool}']")).await;
        click_square(client, square).await;
    };
    place("b", "c3").await;
    place("w", "c3").await;
    place("w", "c3").await;
    place("w", "a1").await;
    place("b", "d4").await;
    place("b", "f6").await;
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
}
