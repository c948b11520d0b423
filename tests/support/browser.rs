//! Headless Chromium over WebDriver (chromedriver) for the browser tests:
//! the driver process, a session, and small helpers to wait, click and
//! type as a user would.
#![allow(dead_code)] // each test file uses part of it

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Generous: these tests check behaviour, not speed.
pub const PATIENCE: Duration = Duration::from_secs(20);

/// chromium and chromedriver, or `None` with the reason printed; under CI
/// (CI=true, where the CI script installs them) their absence fails.
pub fn browser_programs() -> Option<(PathBuf, PathBuf)> {
    let chromium = find_program(&["chromium", "chromium-browser", "google-chrome"]);
    let chromedriver = find_program(&["chromedriver"]);
    match (chromium, chromedriver) {
        (Some(chromium), Some(chromedriver)) => Some((chromium, chromedriver)),
        _ => {
            let note = "the browser tests need `chromium` and `chromedriver` on PATH \
                        (Debian: apt-get install chromium chromium-driver)";
            assert!(std::env::var_os("CI").is_none(), "{note}");
            eprintln!("skipped: {note}");
            None
        }
    }
}

pub fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

/// chromedriver on a free port; killed when dropped.
pub struct Driver {
    child: Child,
    pub port: u16,
}

impl Driver {
    pub fn start(program: &Path) -> Driver {
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

pub async fn browser(driver: &Driver, chromium: &Path) -> Client {
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
pub async fn wait_for(client: &Client, script: &str, what: &str) -> Value {
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

/// Click the element `css` selects. The page may redraw between finding
/// the element and clicking it (a server message arrived); the click then
/// never happened, and it is tried again on the element drawn in its place,
/// as a player would click the square again.
pub async fn click(client: &Client, css: &str) {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let element = client
            .find(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("no {css}: {e}"));
        match element.click().await {
            Ok(()) => return,
            Err(e) if e.is_stale_element_reference() && Instant::now() < deadline => {}
            Err(e) => panic!("cannot click {css}: {e}"),
        }
    }
}

pub async fn click_square(client: &Client, square: &str) {
    click(client, &format!(".hit[data-square='{square}']")).await;
}

pub async fn select(client: &Client, id: &str, value: &str) {
    let element = client.find(Locator::Id(id)).await.expect("select");
    element.select_by_value(value).await.expect("option");
}

pub async fn type_into(client: &Client, id: &str, text: &str) {
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

pub async fn screenshot(client: &Client, path: &Path) {
    // The notes of the moment (a refusal, an answer) are not the page's
    // picture: hidden for the shot, shown again after it.
    let notes =
        "const n = document.getElementById('errors'); if (n) n.style.visibility = arguments[0];";
    let _ = client.execute(notes, vec![json!("hidden")]).await;
    let png = client.screenshot().await.expect("screenshot");
    let _ = client.execute(notes, vec![json!("")]).await;
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("folder");
    std::fs::write(path, png).expect("write screenshot");
}

/// One browser at a time: each test starts its own chromedriver, Chromium
/// and server, and several at once on two cores would only make each
/// slower than its patience.
pub static ONE_BROWSER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
