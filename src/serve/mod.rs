//! `bashni serve`: a play server for many people. Public rooms with two
//! seats and any number of watchers, server-kept clocks, engine seats from
//! a capped pool, and every game kept in a database so that a restart
//! resumes it.
//!
//! Built in layers, each usable and tested on its own:
//! - [`config`]: what a room is created with (variant, rules, clock, who
//!   may take the other seat);
//! - [`token`]: seat tokens (128 random bits) and the hashes the database
//!   keeps instead of them;
//! - [`room`]: the room as a sans-IO state machine: moves, clocks (time is
//!   passed in), draw offers, takebacks, rematches, and the events to
//!   broadcast;
//! - [`store`]: the storage (SQLite or PostgreSQL, one schema, versioned
//!   migrations);
//! - [`ladder`]: the ladder of computer rivals: the rivals, their seeded
//!   random moves, the handicapped starts, the score and a run; [`climb`]:
//!   a run as a room plays it;
//! - [`wire`] and [`view`]: what the page sends (checked) and what it is
//!   sent; [`history`]: a room's stored games as PDN and as a replay;
//! - [`actor`]: one task per room, which stores an event before anyone
//!   sees it;
//! - [`engines`]: the engine processes; [`lobby`]: the public list;
//!   [`hub`]: the rooms, their limits and the restart;
//! - [`study`] and [`desk`]: the analysis board of a page, its game and
//!   its engine analysis;
//! - [`chat`]: what the two players of a room say to each other;
//!   [`shown_text`]: the check of text people type for others to read;
//! - [`connection`] and [`http`]: the WebSocket and the page.
//!
//! `bashni gui` is this same server for one person (see [`crate::gui`]).

pub mod actor;
pub mod chat;
pub mod climb;
pub mod config;
pub mod connection;
pub mod desk;
pub mod engines;
pub mod history;
pub mod http;
pub mod hub;
pub mod ladder;
pub mod listener;
pub mod lobby;
pub mod room;
pub mod shown_text;
pub mod store;
pub mod study;
pub mod token;
pub mod unique_keys;
pub mod view;
pub mod wire;

use anyhow::Context;
use axum::serve::ListenerExt;
use bashni_host::spec::EngineSpec;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// How often the server writes its sign of life (a restart charges a
/// turn up to the last one).
const HEARTBEAT: Duration = Duration::from_secs(2);

/// Moves per group commit, and moves waiting for one.
const WRITER_BATCH: usize = 256;
const WRITER_QUEUE: usize = 4096;

/// Options of `bashni serve`.
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// Address and port to listen on; a public address serves everyone
    /// (put TLS in front: docs/serve.md).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// `sqlite:PATH` (created if missing) or `postgres://user@host/db`.
    #[arg(long, default_value = "sqlite:bashni-serve.db")]
    pub database: String,
    /// The engine for engine seats and analysis, as for `match`; this
    /// program by default.
    #[arg(long, value_parser = parse_engine)]
    pub engine: Option<EngineSpec>,
    /// Engine searches (and analyses) running at once; more wait in a
    /// queue the players see.
    #[arg(long, default_value_t = 2)]
    pub max_engines: usize,
    /// Rooms one address may create per minute.
    #[arg(long, default_value_t = 10)]
    pub rooms_per_minute: usize,
    /// Stored rooms (finished games, games without a clock) one address
    /// may bring back into memory per minute by opening them: each holds
    /// a place among `--max-rooms` while it is looked at, and the ids of
    /// finished games are shown to anyone.
    #[arg(long, default_value_t = 60)]
    pub rooms_reopened_per_minute: usize,
    /// Games against the engine (ladder runs included) one address may
    /// have going at once: the engines are shared, and one player's many
    /// games would keep everyone's engine waiting on its clock.
    #[arg(long, default_value_t = 3)]
    pub engine_games_per_address: usize,
    /// Rooms waiting for an opponent in the lobby (quick games too; not
    /// those for whoever has the link) one address may have at once: the
    /// lobby lists so many, and a few addresses could fill it.
    #[arg(long, default_value_t = 5)]
    pub waiting_rooms_per_address: usize,
    /// Rooms in memory at once.
    #[arg(long, default_value_t = 10_000)]
    pub max_rooms: usize,
    /// Watchers per room.
    #[arg(long, default_value_t = 500)]
    pub watchers_per_room: usize,
    /// Seconds a room may be idle: then a finished room, or a game
    /// without a clock, that nobody looks at leaves memory (the database
    /// keeps it, and opening it brings it back); a room waiting for an
    /// opponent whose creator is away is closed.
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub idle_seconds: u64,
    /// Seconds a player must be gone from a game (no page on it) before
    /// the opponent may claim it, won or drawn.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub claim_after_seconds: u64,
    /// Messages per second one page may send.
    #[arg(long, default_value_t = 20)]
    pub messages_per_second: u32,
    /// Connections open at once from one address.
    #[arg(long, default_value_t = 64)]
    pub connections_per_address: usize,
    /// Seconds between pings to each page; a page that answers nothing
    /// for three of them is taken for gone and dropped.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub ping_seconds: u64,
    /// This server's name in the heartbeat table.
    #[arg(long, default_value = "main")]
    pub server_id: String,
    /// Open the page in the default browser.
    #[arg(long)]
    pub open: bool,
}

impl ServeArgs {
    /// The options as `bashni serve` takes them with none given.
    pub fn defaults() -> anyhow::Result<ServeArgs> {
        #[derive(clap::Parser)]
        struct Defaults {
            #[command(flatten)]
            args: ServeArgs,
        }
        let defaults = <Defaults as clap::Parser>::try_parse_from(["serve"])
            .context("the default options of `serve`")?;
        Ok(defaults.args)
    }
}

/// Which command runs the server: it names itself on its first line of
/// output, which says where to open the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Banner {
    /// `bashni serve`, which also says how many rooms it restored.
    Serve,
    /// `bashni gui`.
    Gui,
}

/// `bashni serve`: serve until the process is ended.
pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    start(args, Banner::Serve)
}

/// Serve with `args` until the process is ended: the start-up of both
/// `bashni serve` and `bashni gui`.
pub fn start(args: ServeArgs, banner: Banner) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the server runtime")?;
    runtime.block_on(serve(args, banner))
}

/// `--engine` of `serve` and `gui`: a spec as for `match`, but without
/// `tc=`, since the server keeps each room's clock itself.
pub fn parse_engine(text: &str) -> Result<EngineSpec, String> {
    let spec = EngineSpec::parse(text).map_err(|e| e.to_string())?;
    match spec.tc {
        Some(_) => Err("tc= is for match; the server keeps each room's clock".into()),
        None => Ok(spec),
    }
}

/// This very program, which is the engine when run without arguments.
pub fn own_engine() -> anyhow::Result<EngineSpec> {
    let cmd = std::env::current_exe().context("cannot find this program to run as the engine")?;
    Ok(EngineSpec {
        name: "bashni".into(),
        ..EngineSpec::new(cmd)
    })
}

async fn serve(args: ServeArgs, banner: Banner) -> anyhow::Result<()> {
    let engine = match args.engine.clone() {
        Some(engine) => engine,
        None => own_engine()?,
    };
    let store = store::Store::connect(&args.database)
        .await
        .with_context(|| format!("cannot open the database {}", args.database))?;
    let (writer, _writer_stopped) =
        store::writer::MoveWriter::spawn(store.clone(), WRITER_BATCH, WRITER_QUEUE)
            .context("cannot start the move writer")?;
    let shared = actor::Shared {
        store: store.clone(),
        writer,
        engines: Arc::new(engines::EnginePool::new(engine, args.max_engines)),
        lobby: Arc::new(lobby::Lobby::default()),
        watchers_per_room: args.watchers_per_room,
        idle_after: Duration::from_secs(args.idle_seconds),
        claim_after: Duration::from_secs(args.claim_after_seconds),
    };
    let limits = hub::Limits {
        max_rooms: args.max_rooms,
        rooms_per_minute: args.rooms_per_minute,
        rooms_reopened_per_minute: args.rooms_reopened_per_minute,
        engine_games_per_address: args.engine_games_per_address,
        waiting_rooms_per_address: args.waiting_rooms_per_address,
        messages_per_second: args.messages_per_second,
        connections_per_address: args.connections_per_address,
        ping_every: Duration::from_secs(args.ping_seconds),
    };
    let ranges = wire::StrengthRanges {
        skill: range_u32(bashni_engine::protocol::SKILL_RANGE),
        elo: bashni_engine::search::ELO_RANGE,
    };
    refuse_a_running_server(&store).await?;
    let holder = lease_holder();
    take_the_database(&store, &holder, &args.server_id).await?;
    // Read before this server's own heartbeat replaces it, which starts
    // before the rooms are loaded: a second server started meanwhile sees
    // this one alive. The newest of any server's: the rooms are the last
    // server's, whatever its name (the server's own alone refunded a whole
    // turn when it came back under another name).
    let alive = store
        .latest_heartbeat()
        .await
        .context("cannot read the last heartbeat")?
        .map(|(_, at)| at);
    tokio::spawn(heartbeat(store, args.server_id.clone(), holder));
    let hub = Arc::new(hub::Hub::new(shared, limits, ranges));
    let restored = hub
        .restore(alive)
        .await
        .map_err(anyhow::Error::msg)
        .context("cannot load the unfinished rooms")?;
    let tcp = tokio::net::TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let local = tcp.local_addr()?;
    // Room for each page's WebSocket and a browser's few HTTP connections;
    // a connection silent past four pings is gone (a page answers each).
    let listener = listener::GuardedListener::new(
        tcp,
        2 * args.connections_per_address,
        4 * Duration::from_secs(args.ping_seconds),
    );
    let loopback_port = local.ip().is_loopback().then_some(local.port());
    let url = format!("http://{local}/");
    match banner {
        Banner::Serve => {
            println!("bashni serve: {restored} unfinished room(s) restored; open {url}")
        }
        Banner::Gui => println!("bashni gui: open {url}"),
    }
    std::io::stdout().flush()?;
    if args.open
        && let Err(e) = open::that_detached(&url)
    {
        eprintln!("cannot open a browser ({e}); open the URL above by hand");
    }
    let state = Arc::new(http::HttpState { hub, loopback_port });
    let app = http::router(state).into_make_service_with_connect_info::<SocketAddr>();
    // Tapped with nothing to do: axum gives a tapped listener's address to
    // handlers as `ConnectInfo<SocketAddr>`, and a plain one of ours not.
    axum::serve(listener.tap_io(|_| {}), app)
        .await
        .context("the server stopped")
}

fn range_u32((low, high): (u64, u64)) -> (u32, u32) {
    (
        u32::try_from(low).unwrap_or(0),
        u32::try_from(high).unwrap_or(u32::MAX),
    )
}

/// One server per database: two would each bring back the same rooms and
/// play them apart. A heartbeat younger than two beats is a server killed
/// a moment ago, or one running, which writes another within a beat (its
/// age is read against this machine's clock: servers on other hosts need
/// clocks kept in time).
async fn refuse_a_running_server(store: &store::Store) -> anyhow::Result<()> {
    let beat_ms = i64::try_from(HEARTBEAT.as_millis()).unwrap_or(i64::MAX);
    let latest = store.latest_heartbeat().await?;
    let Some((_, at)) = latest.filter(|(_, at)| store::unix_ms_now() - at < 2 * beat_ms) else {
        return Ok(());
    };
    tokio::time::sleep(HEARTBEAT + HEARTBEAT / 4).await;
    match store.latest_heartbeat().await? {
        Some((server, later)) if later != at => Err(running_elsewhere(&server, later)),
        _ => Ok(()),
    }
}

/// The refusal of a database that `server`, alive at `alive_at` (Unix
/// milliseconds), runs on.
fn running_elsewhere(server: &str, alive_at: i64) -> anyhow::Error {
    anyhow::anyhow!(
        "another bashni server ('{server}') is running on this database: it was alive {} ms ago; \
         one server per database (stop it, or give this one a database of its own)",
        store::unix_ms_now() - alive_at
    )
}

/// A random id of this process, for the database's lease.
fn lease_holder() -> String {
    use rand::RngExt;
    let bits: u128 = rand::rng().random();
    format!("{bits:032x}")
}

/// Take the database's lease as `holder` (named `server`): the check of
/// heartbeats above lets two servers started at the same moment both
/// through, the lease one of them. (The lease does not replace that
/// check: a server of an earlier version, running on at an upgrade,
/// writes heartbeats but renews no lease.) A lease just left by a server
/// killed a moment ago is taken once it is stale.
async fn take_the_database(store: &store::Store, holder: &str, server: &str) -> anyhow::Result<()> {
    let stale_ms = 2 * i64::try_from(HEARTBEAT.as_millis()).unwrap_or(i64::MAX);
    let take = || store.take_lease(holder, server, store::unix_ms_now(), stale_ms);
    let Some((_, renewed_at)) = take().await? else {
        return Ok(());
    };
    let wait_ms = (renewed_at + stale_ms - store::unix_ms_now()).clamp(0, stale_ms) + 100;
    tokio::time::sleep(Duration::from_millis(u64::try_from(wait_ms).unwrap_or(0))).await;
    match take().await? {
        None => Ok(()),
        Some((other, renewed_at)) => Err(running_elsewhere(&other, renewed_at)),
    }
}

/// Write the server's sign of life every [`HEARTBEAT`], and renew its
/// lease: a server whose lease another took (it could not renew it for
/// two beats, and another server started) stops, as two would play the
/// same rooms apart; everything it showed is stored.
async fn heartbeat(store: store::Store, server: String, holder: String) {
    let mut tick = tokio::time::interval(HEARTBEAT);
    loop {
        tick.tick().await;
        let now = store::unix_ms_now();
        if let Err(e) = store.heartbeat(&server, now).await {
            eprintln!("bashni serve: heartbeat: {e}");
        }
        match store.renew_lease(&holder, now).await {
            Ok(true) => {}
            Ok(false) => {
                eprintln!(
                    "bashni serve: another server took this database while this one could not \
                     renew its lease: stopping"
                );
                std::process::exit(1);
            }
            Err(e) => eprintln!("bashni serve: lease: {e}"),
        }
    }
}
