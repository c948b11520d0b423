//! A load test of `bashni serve` on loopback, bounded in clients and time:
//! 250 rooms of two players plus a watcher in every fifth room (550
//! WebSocket clients) play random legal moves, each as soon as it sees its
//! turn, for 30 seconds; then every stored game must replay legally and
//! equal what each of its clients saw. It prints the moves stored per
//! second, the latency from a move sent to the opponent seeing it, and the
//! server's memory, and holds them to the targets of docs/benchmarks.md.
//!
//! Ignored (it takes the machine for a minute); run it with
//!
//! ```text
//! cargo test --release --test serve_load -- --ignored --nocapture
//! ```
//!
//! `LOAD_ROOMS`, `LOAD_SECONDS` and `LOAD_SEED` change the size, the
//! duration and the seed of the random moves; `LOAD_WATCHER_EVERY` puts a
//! watcher in every so many rooms (5 by default; 200 rooms with a watcher
//! in every second one are the 500 clients in 200 rooms the targets are
//! set for, at least); `LOAD_THINK_MS` makes every
//! player wait that long before each move (a paced load instead of the
//! fastest, to see the latency at a given rate; the targets are asserted
//! only without it).

#[path = "support/serve.rs"]
mod serve;
#[path = "support/socket.rs"]
mod socket;
#[path = "support/temp.rs"]
mod temp;

use bashni::serve::config::GameConfig;
use bashni::serve::store::Store;
use bashni_rules::{Game, Variant};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use serde::Deserialize;
use serde_json::{Value, json};
use serve::{Serve, cpu_time_of, create, room_state, setup};
use socket::Page;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use temp::TempDir;
use tokio_tungstenite::tungstenite::Utf8Bytes;

/// Rooms, each with two players.
const ROOMS: usize = 250;
/// One room in this many also has a watcher.
const WATCHER_EVERY: usize = 5;
/// How long the rooms play.
const PLAY: Duration = Duration::from_secs(30);
/// Rooms set up at once (connections opened in bursts of twice that).
const SETUP_AT_ONCE: usize = 25;
/// How long a client waits for a message before it checks whether the
/// room has stopped.
const POLL: Duration = Duration::from_millis(100);
/// How long after the end of play every client must be done.
const DRAIN: Duration = Duration::from_secs(60);

/// The targets on the reference machine (2 cores), docs/benchmarks.md.
const TARGET_MOVES_PER_SECOND: f64 = 1000.0;
const TARGET_P99: Duration = Duration::from_millis(50);
const TARGET_PEAK_RSS: u64 = 200 * 1024 * 1024;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A move a player sent: when, from which seat, and its text.
struct Sent {
    at: Instant,
    seat: u8,
    text: String,
}

/// What the clients of one room share: the moves they sent, and whether
/// the room has stopped (a player found its turn after the end of play).
struct Plies {
    stopped: bool,
    /// Plies sent per game.
    sent: BTreeMap<u32, usize>,
    /// Every move sent, by game and ply (1 for the first).
    moves: HashMap<(u32, usize), Sent>,
}

struct Shared {
    end: Instant,
    /// How long a player waits before each move.
    think: Duration,
    plies: Mutex<Plies>,
}

impl Shared {
    fn plies(&self) -> std::sync::MutexGuard<'_, Plies> {
        self.plies.lock().expect("no client panicked holding it")
    }

    /// Whether a client that has seen `len` plies of game `game` has seen
    /// everything the room will send: play has stopped and no move it
    /// has not seen was sent.
    fn done(&self, game: u32, len: usize) -> bool {
        let plies = self.plies();
        plies.stopped
            && plies.sent.get(&game).copied().unwrap_or(0) == len
            && !plies.sent.iter().any(|(&g, &n)| g > game && n > 0)
    }
}

/// What one client saw.
struct Report {
    room: usize,
    seat: Option<u8>,
    /// The last move list seen of each game.
    games: BTreeMap<u32, Vec<String>>,
    /// From a move sent by the opponent to this client seeing it.
    latencies: Vec<Duration>,
}

/// What a client reads of a server message: only the fields it checks
/// or plays from, borrowed from the text where no escape can occur
/// (serde skips the rest without building values of them; the clients
/// share the server's two cores).
#[derive(Deserialize)]
struct Message<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    message: Option<String>,
    seq: Option<u64>,
    game_no: Option<u32>,
    /// A `room_move`'s plies and move.
    ply: Option<usize>,
    #[serde(rename = "move")]
    text: Option<&'a str>,
    #[serde(borrow)]
    moves: Option<Vec<&'a str>>,
    phase: Option<&'a str>,
    to_move: Option<&'a str>,
    #[serde(default, borrow)]
    seats: Vec<Option<SeatSeen<'a>>>,
    #[serde(default, borrow)]
    legal: Vec<LegalSeen<'a>>,
}

#[derive(Deserialize)]
struct SeatSeen<'a> {
    colour: &'a str,
}

#[derive(Deserialize)]
struct LegalSeen<'a> {
    text: &'a str,
}

/// One client: read every room state (from `first`, the newest it has
/// seen), check it extends the one before, and (a player) play a random
/// legal move on its turn or ask for a rematch once a game is over, until
/// the room stops.
async fn client(
    mut page: Page,
    first: Value,
    room: usize,
    seat: Option<u8>,
    shared: Arc<Shared>,
    seed: u64,
) -> Report {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut report = Report {
        room,
        seat,
        games: BTreeMap::new(),
        latencies: Vec::new(),
    };
    let (mut game, mut seen) = (0u32, Vec::<String>::new());
    // The number of the last state read, and this player's colour.
    let (mut state, mut colour) = (0u64, None::<String>);
    // The (game, plies) this player last acted on, so it acts once each.
    let mut acted: Option<(u32, usize)> = None;
    let mut pending = Some(Utf8Bytes::from(first.to_string()));
    while !shared.done(game, seen.len()) {
        assert!(
            Instant::now() < shared.end + DRAIN,
            "room {room} seat {seat:?}: not done {DRAIN:?} after the end (game {game}, {} plies)",
            seen.len()
        );
        let text = match pending.take() {
            Some(text) => text,
            None => match page.next_text_within(POLL).await {
                Some(text) => text,
                None => continue,
            },
        };
        let now = Instant::now();
        let message: Message = serde_json::from_str(&text).expect("JSON");
        let fresh = match message.kind {
            "room" => {
                let g = message.game_no.expect("game_no");
                assert!(g >= game, "room {room}: game {g} after game {game}");
                if g > game {
                    if game > 0 {
                        report.games.insert(game, std::mem::take(&mut seen));
                    }
                    game = g;
                }
                colour = seat.and_then(|s| {
                    message
                        .seats
                        .get(usize::from(s))?
                        .as_ref()
                        .map(|s| s.colour.to_owned())
                });
                let list = message.moves.as_deref().expect("moves");
                assert!(
                    list.len() >= seen.len() && list[..seen.len()] == seen[..],
                    "room {room} seat {seat:?} game {g}: {list:?} does not extend {seen:?}"
                );
                list[seen.len()..].to_vec()
            }
            "room_move" => {
                // A change is sent only to a page that has the state before.
                assert_eq!(message.seq, Some(state + 1), "room {room} seat {seat:?}");
                assert_eq!(message.game_no, Some(game), "room {room} seat {seat:?}");
                assert_eq!(
                    message.ply,
                    Some(seen.len() + 1),
                    "room {room} seat {seat:?}"
                );
                vec![message.text.expect("move")]
            }
            "error" => panic!("room {room} seat {seat:?}: error {:?}", message.message),
            _ => continue,
        };
        state = message.seq.expect("seq");
        let g = game;
        {
            let plies = shared.plies();
            for (i, text) in fresh.iter().enumerate() {
                let ply = seen.len() + 1 + i;
                let sent = plies
                    .moves
                    .get(&(g, ply))
                    .unwrap_or_else(|| panic!("room {room} game {g} ply {ply}: nobody sent it"));
                assert_eq!(*text, sent.text, "room {room} game {g} ply {ply}");
                if seat.is_some_and(|s| s != sent.seat) {
                    report.latencies.push(now - sent.at);
                }
            }
        }
        seen.extend(fresh.iter().map(|text| text.to_string()));
        let Some(seat) = seat else { continue };
        let on_move = colour
            .as_deref()
            .is_some_and(|c| message.to_move == Some(c));
        let phase = match message.kind {
            "room_move" => Some("playing"),
            _ => message.phase,
        };
        let wants = match phase {
            Some("playing") if on_move => "move",
            Some("over") => "rematch",
            _ => continue,
        };
        if acted == Some((g, seen.len())) {
            continue;
        }
        acted = Some((g, seen.len()));
        if !shared.think.is_zero() {
            tokio::time::sleep(shared.think).await;
        }
        let now = Instant::now();
        let request = {
            let mut plies = shared.plies();
            if plies.stopped || now >= shared.end {
                plies.stopped = true;
                continue;
            }
            if wants == "rematch" {
                json!({"type": "rematch"})
            } else {
                let legal = &message.legal;
                assert!(!legal.is_empty(), "room {room}: playing without a move");
                let text = legal[rng.random_range(0..legal.len())].text.to_string();
                let ply = seen.len() + 1;
                plies.sent.insert(g, ply);
                plies.moves.insert(
                    (g, ply),
                    Sent {
                        at: Instant::now(),
                        seat,
                        text: text.clone(),
                    },
                );
                json!({"type": "move", "text": text})
            }
        };
        page.send(request).await;
    }
    if game > 0 {
        report.games.insert(game, seen);
    }
    report
}

/// A client's page, the newest room state it has read, and its seat.
type Client = (Page, Value, Option<u8>);

/// A room with both players seated and the game started (and a watcher
/// for some): the room's id and its clients.
async fn set_up(server: &Serve, i: usize) -> (String, Vec<Client>) {
    let mut ann = server.page().await;
    let (room, _) = create(
        &mut ann,
        &format!("Ann {i}"),
        setup("anyone", None, "white"),
    )
    .await;
    let mut bob = server.page().await;
    bob.send(json!({"type": "join", "room": room, "name": format!("Bob {i}")}))
        .await;
    let (seated, _) = bob
        .until(|m| m["type"] == "seated" || m["type"] == "error")
        .await;
    assert_eq!(seated["seat"], 1, "{seated}");
    let ann_state = room_state(&mut ann, |s| s["phase"] == "playing").await;
    let bob_state = room_state(&mut bob, |s| s["phase"] == "playing").await;
    let mut pages = vec![(ann, ann_state, Some(0)), (bob, bob_state, Some(1))];
    if i.is_multiple_of(env_or("LOAD_WATCHER_EVERY", WATCHER_EVERY).max(1)) {
        let mut watcher = server.page().await;
        watcher.send(json!({"type": "open", "room": room})).await;
        let state = room_state(&mut watcher, |s| s["phase"] == "playing").await;
        pages.push((watcher, state, None));
    }
    (room, pages)
}

/// The machine's CPU time counters (`cpu` line of /proc/stat: user,
/// nice, system, idle, iowait, irq, softirq, steal...), if readable.
fn machine_ticks() -> Option<Vec<u64>> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    line.split_whitespace()
        .skip(1)
        .map(|n| n.parse().ok())
        .collect()
}

/// The idle and stolen shares, in percent, between two readings.
fn share(before: &[u64], after: &[u64]) -> (f64, f64) {
    let spent: Vec<u64> = after.iter().zip(before).map(|(a, b)| a - b).collect();
    let total = spent.iter().sum::<u64>().max(1) as f64;
    let part = |i: usize| 100.0 * spent.get(i).copied().unwrap_or(0) as f64 / total;
    (part(3), part(7))
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a load test: run on demand with --release --ignored --nocapture"]
async fn hundreds_of_clients_play_and_every_move_is_stored_once_in_order() {
    let rooms: usize = env_or("LOAD_ROOMS", ROOMS);
    let play = Duration::from_secs(env_or("LOAD_SECONDS", PLAY.as_secs()));
    let seed: u64 = env_or("LOAD_SEED", 20_261_203);
    let think = Duration::from_millis(env_or("LOAD_THINK_MS", 0));
    let dir = TempDir::new("serve-load");
    let db = dir.path().join("serve.db");
    let server = Serve::start(
        &format!("sqlite:{}", db.display()),
        &[
            "--rooms-per-minute",
            "100000",
            "--connections-per-address",
            "100000",
            "--messages-per-second",
            "1000",
            "--waiting-rooms-per-address",
            "100000",
        ],
    );

    // Set up every room before play starts.
    let setup_started = Instant::now();
    let mut tables = Vec::with_capacity(rooms);
    for chunk in (0..rooms).collect::<Vec<_>>().chunks(SETUP_AT_ONCE) {
        let batch = chunk.iter().map(|&i| set_up(&server, i));
        tables.extend(futures_util::future::join_all(batch).await);
    }
    let clients: usize = tables.iter().map(|(_, pages)| pages.len()).sum();
    let (rss_idle, _) = server.memory().expect("/proc/PID/status");
    println!(
        "{rooms} rooms, {clients} clients set up in {:.1} s; the server holds {:.1} MB",
        setup_started.elapsed().as_secs_f64(),
        rss_idle as f64 / 1e6
    );

    // Play.
    let server_cpu = server.cpu_time().expect("/proc/PID/stat");
    let own_cpu = cpu_time_of("/proc/self/stat").expect("/proc/self/stat");
    let machine = machine_ticks();
    let start = Instant::now();
    let end = start + play;
    let mut tasks = Vec::with_capacity(clients);
    let mut room_ids = Vec::with_capacity(rooms);
    let mut shared_of = Vec::with_capacity(rooms);
    for (i, (room, pages)) in tables.into_iter().enumerate() {
        let shared = Arc::new(Shared {
            end,
            think,
            plies: Mutex::new(Plies {
                stopped: false,
                sent: BTreeMap::new(),
                moves: HashMap::new(),
            }),
        });
        for (j, (page, first, seat)) in pages.into_iter().enumerate() {
            let client_seed = seed ^ ((i as u64) << 8 | j as u64);
            tasks.push(tokio::spawn(client(
                page,
                first,
                i,
                seat,
                Arc::clone(&shared),
                client_seed,
            )));
        }
        room_ids.push(room);
        shared_of.push(shared);
    }
    let mut reports = Vec::with_capacity(clients);
    for task in tasks {
        reports.push(task.await.expect("a client ends without panicking"));
    }
    let elapsed = start.elapsed();
    let (rss, peak_rss) = server.memory().expect("/proc/PID/status");
    let server_cpu = server.cpu_time().expect("/proc/PID/stat") - server_cpu;
    let own_cpu = cpu_time_of("/proc/self/stat").expect("/proc/self/stat") - own_cpu;
    let machine = machine
        .zip(machine_ticks())
        .map(|(before, after)| share(&before, &after));
    drop(server);

    // Every stored game replays legally and is what its clients saw.
    let store = Store::open_sqlite(&db).await.expect("open the database");
    let rules = GameConfig::online(Variant::Bashni).rules();
    let mut stored_total = 0usize;
    let mut games_total = 0usize;
    let mut stored_of = Vec::with_capacity(rooms);
    for (i, id) in room_ids.iter().enumerate() {
        let mut games: BTreeMap<u32, Vec<String>> = BTreeMap::new();
        for record in store.room_moves(id).await.expect("read the moves") {
            let list = games.entry(record.game_no).or_default();
            assert_eq!(
                record.ply as usize,
                list.len() + 1,
                "room {i} game {}: plies in order, none missing or doubled",
                record.game_no
            );
            list.push(record.text);
        }
        for (game_no, list) in &games {
            let mut game = Game::new(rules);
            for (ply, text) in list.iter().enumerate() {
                assert!(
                    game.result().is_none(),
                    "room {i} game {game_no}: ply {} after the end",
                    ply + 1
                );
                game.play_text(text).unwrap_or_else(|e| {
                    panic!("room {i} game {game_no} ply {}: {text}: {e}", ply + 1)
                });
            }
            stored_total += list.len();
            games_total += 1;
        }
        let plies = shared_of[i].plies();
        let sent: BTreeMap<u32, usize> = plies
            .sent
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|(g, n)| (*g, *n))
            .collect();
        let stored: BTreeMap<u32, usize> = games.iter().map(|(g, l)| (*g, l.len())).collect();
        assert_eq!(stored, sent, "room {i}: every move sent is stored");
        stored_of.push(games);
    }
    let mut latencies = Vec::new();
    for report in &reports {
        let stored = &stored_of[report.room];
        let seen: BTreeMap<u32, Vec<String>> = report
            .games
            .iter()
            .filter(|(_, l)| !l.is_empty())
            .map(|(g, l)| (*g, l.clone()))
            .collect();
        match report.seat {
            // A player sees every game to its end.
            Some(_) => assert_eq!(&seen, stored, "room {}: a player's games", report.room),
            // A watcher may miss a game's last states when the next
            // game starts at once, never the end of the last one.
            None => {
                for (g, list) in &seen {
                    let whole = stored.get(g).expect("a game the watcher saw is stored");
                    assert!(whole.starts_with(list), "room {}: watcher", report.room);
                }
                assert_eq!(
                    seen.last_key_value(),
                    stored.last_key_value(),
                    "room {}: the watcher saw the last game to its last move",
                    report.room
                );
            }
        }
        latencies.extend_from_slice(&report.latencies);
    }
    latencies.sort();

    let moves_per_second = stored_total as f64 / elapsed.as_secs_f64();
    let p50 = percentile(&latencies, 0.50);
    let p99 = percentile(&latencies, 0.99);
    let max = latencies.last().copied().unwrap_or_default();
    println!(
        "{clients} clients in {rooms} rooms for {:.1} s: {stored_total} moves stored in \
         {games_total} games, {moves_per_second:.0} moves/s",
        elapsed.as_secs_f64()
    );
    println!(
        "move sent -> opponent sees it: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms over {} moves",
        p50.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3,
        max.as_secs_f64() * 1e3,
        latencies.len()
    );
    println!(
        "server memory: peak {:.1} MB (VmHWM), {:.1} MB at the end (VmRSS)",
        peak_rss as f64 / 1e6,
        rss as f64 / 1e6
    );
    println!(
        "CPU while playing: server {:.1} s ({:.0} us a move), clients {:.1} s",
        server_cpu.as_secs_f64(),
        server_cpu.as_secs_f64() * 1e6 / stored_total.max(1) as f64,
        own_cpu.as_secs_f64()
    );
    if let Some((idle, stolen)) = machine {
        // A virtual machine's neighbours take CPU time from it ("steal"):
        // runs with much of it are slower, and say so.
        println!("machine while playing: {idle:.1} % idle, {stolen:.1} % stolen by the hypervisor");
    }
    assert!(
        stored_total > 0 && !latencies.is_empty(),
        "moves were played"
    );
    if !think.is_zero() {
        return; // a paced run measures; the targets are for the fastest
    }
    assert!(
        moves_per_second >= TARGET_MOVES_PER_SECOND,
        "{moves_per_second:.0} moves/s stored; the target is {TARGET_MOVES_PER_SECOND}"
    );
    assert!(
        p99 <= TARGET_P99,
        "p99 {p99:?}; the target is {TARGET_P99:?}"
    );
    assert!(
        peak_rss <= TARGET_PEAK_RSS,
        "peak RSS {peak_rss} bytes; the target is {TARGET_PEAK_RSS}"
    );
}
