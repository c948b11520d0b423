//! The `bashni serve` store against both databases: SQLite in a temporary
//! file always, and PostgreSQL from a private server this test starts in a
//! temporary directory with `initdb` and `pg_ctl` (Debian's `postgresql`
//! package, which `.ci/run` installs). Without those binaries the
//! PostgreSQL test fails under `CI=true` and otherwise says why and skips.

#[path = "support/postgres.rs"]
mod postgres;
#[path = "support/temp.rs"]
mod temp;

use bashni::serve::config::{GameConfig, Opponent, RoomConfig, Strength};
use bashni::serve::store::writer::{MoveWriter, WriteError};
use bashni::serve::store::{
    MoveRecord, NewGame, NewRoom, OffersRecord, Opening, ResultRecord, RoomStatus, SeatRecord,
    Store, StoreError, Work, Write,
};
use bashni::serve::token::{SeatToken, random_hex128};
use bashni_host::clock::TimeControl;
use bashni_rules::{Colour, Variant};
use temp::TempDir;

// ----------------------------------------------------------------------
// The scenarios, each run on a fresh database of each kind.

type Scenario = fn(Store) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>;

const SCENARIOS: &[(&str, Scenario)] = &[
    ("migrations apply from empty", |s| {
        Box::pin(migrations_apply(s))
    }),
    ("a move reads back after append", |s| {
        Box::pin(move_reads_back(s))
    }),
    ("a duplicate ply is refused", |s| {
        Box::pin(duplicate_ply_refused(s))
    }),
    ("a batch is all or nothing", |s| {
        Box::pin(batch_all_or_nothing(s))
    }),
    ("unfinished games come back", |s| {
        Box::pin(unfinished_games_come_back(s))
    }),
    ("tokens are stored hashed", |s| {
        Box::pin(tokens_stored_hashed(s))
    }),
    ("the writer commits moves in groups", |s| {
        Box::pin(group_commit(s))
    }),
    ("seats, takebacks, results and the lobby", |s| {
        Box::pin(seats_takebacks_results_lobby(s))
    }),
    ("a refused write is undone alone", |s| {
        Box::pin(refused_write_undone_alone(s))
    }),
];

fn config(opponent: Opponent) -> RoomConfig {
    RoomConfig {
        game: GameConfig::online(Variant::Bashni),
        clock: Some(TimeControl {
            moves: 0,
            base_ms: 300_000,
            increment_ms: 3_000,
        }),
        opponent,
    }
}

/// How a room opens when its creator chose nothing.
fn white_from_the_start() -> Opening {
    Opening {
        creator_colour: Colour::White,
        start_fen: None,
        quick_device: None,
    }
}

fn seat(seat: u8, name: &str, token: &SeatToken) -> SeatRecord {
    SeatRecord {
        seat,
        name: name.into(),
        token_hash: Some(token.hash()),
        engine: false,
        joined_at_ms: 1_000 + i64::from(seat),
    }
}

/// A room with both seats and a started game; returns its id.
async fn room_with_game(store: &Store, opponent: Opponent) -> String {
    let id = random_hex128();
    store
        .create_room(
            &NewRoom {
                id: id.clone(),
                config: config(opponent),
                created_at_ms: 1_000,
                opening: white_from_the_start(),
            },
            &seat(0, "Ann", &SeatToken::generate()),
        )
        .await
        .expect("create room");
    store
        .apply(&Write::Seat {
            room_id: id.clone(),
            seat: seat(1, "Bob", &SeatToken::generate()),
        })
        .await
        .expect("take seat");
    store
        .apply(&Write::GameStart {
            room_id: id.clone(),
            game: NewGame {
                game_no: 1,
                white_seat: 0,
                started_at_ms: 2_000,
                clock_ms: Some([300_000, 300_000]),
                start_fen: None,
            },
        })
        .await
        .expect("start game");
    id
}

fn mv(room: &str, ply: u32, text: &str) -> MoveRecord {
    MoveRecord {
        room_id: room.into(),
        game_no: 1,
        ply,
        text: text.into(),
        elapsed_ms: 500 * u64::from(ply),
        clock_ms: Some([300_000 - i64::from(ply), 300_000 - 2 * i64::from(ply)]),
        moved_at_ms: 2_000 + 1_000 * i64::from(ply),
    }
}

async fn moves_of(store: &Store, room: &str) -> Vec<MoveRecord> {
    store
        .load_unfinished()
        .await
        .expect("load")
        .into_iter()
        .find(|r| r.id == room)
        .and_then(|r| r.game)
        .map(|g| g.moves)
        .unwrap_or_default()
}

async fn migrations_apply(store: Store) {
    // The store ran them on connect; the tables are there and empty.
    assert!(store.load_unfinished().await.expect("load").is_empty());
    assert!(store.list_open_rooms(10).await.expect("lobby").is_empty());
    assert_eq!(store.latest_heartbeat().await.expect("heartbeat"), None);
}

async fn move_reads_back(store: Store) {
    let room = room_with_game(&store, Opponent::Anyone).await;
    store
        .append_move(&mv(&room, 1, "c3-d4"))
        .await
        .expect("append");
    assert_eq!(moves_of(&store, &room).await, vec![mv(&room, 1, "c3-d4")]);
    // A finished game's moves stay readable, though no restart loads them.
    store
        .apply(&Write::GameEnd {
            room_id: room.clone(),
            game_no: 1,
            result: ResultRecord {
                result: "2-0".into(),
                reason: "Black resigned".into(),
                finished_at_ms: 9_000,
                clock_ms: None,
            },
        })
        .await
        .expect("finish");
    assert_eq!(moves_of(&store, &room).await, Vec::new());
    assert_eq!(
        store.room_moves(&room).await.expect("room moves"),
        vec![mv(&room, 1, "c3-d4")]
    );
    assert_eq!(
        store.room_moves("no such room").await.expect("none"),
        Vec::new()
    );
}

async fn duplicate_ply_refused(store: Store) {
    let room = room_with_game(&store, Opponent::Anyone).await;
    store
        .append_move(&mv(&room, 1, "c3-d4"))
        .await
        .expect("append");
    let again = store.append_move(&mv(&room, 1, "c3-b4")).await;
    assert!(
        matches!(
            again,
            Err(StoreError::DuplicatePly {
                ply: 1,
                game_no: 1,
                ..
            })
        ),
        "{again:?}"
    );
    assert_eq!(moves_of(&store, &room).await, vec![mv(&room, 1, "c3-d4")]);
}

async fn batch_all_or_nothing(store: Store) {
    let a = room_with_game(&store, Opponent::Anyone).await;
    let b = room_with_game(&store, Opponent::Anyone).await;
    // A group commit over two rooms.
    store
        .append_moves(&[mv(&a, 1, "c3-d4"), mv(&b, 1, "e3-f4"), mv(&a, 2, "f6-g5")])
        .await
        .expect("batch");
    assert_eq!(moves_of(&store, &a).await.len(), 2);
    assert_eq!(moves_of(&store, &b).await.len(), 1);
    // A batch with one doubled ply stores nothing, not even its good moves.
    let failed = store
        .append_moves(&[mv(&b, 2, "h6-g5"), mv(&a, 3, "g3-h4"), mv(&a, 2, "b6-a5")])
        .await;
    assert!(
        matches!(failed, Err(StoreError::DuplicatePly { ply: 2, .. })),
        "{failed:?}"
    );
    assert_eq!(moves_of(&store, &a).await.len(), 2);
    assert_eq!(moves_of(&store, &b).await.len(), 1);
    // A move of a game that does not exist is refused too.
    let missing = store.append_move(&mv(&random_hex128(), 1, "c3-d4")).await;
    assert!(
        matches!(missing, Err(StoreError::Missing(_))),
        "{missing:?}"
    );
}

async fn unfinished_games_come_back(store: Store) {
    let room = room_with_game(&store, Opponent::Anyone).await;
    let moves = [
        mv(&room, 1, "c3-d4"),
        mv(&room, 2, "f6-g5"),
        mv(&room, 3, "g3-h4"),
    ];
    store.append_moves(&moves).await.expect("append");
    store.heartbeat("server-a", 9_000).await.expect("heartbeat");
    store
        .heartbeat("server-a", 9_500)
        .await
        .expect("heartbeat again");
    let finished = room_with_game(&store, Opponent::Anyone).await;
    store
        .apply(&Write::GameEnd {
            room_id: finished.clone(),
            game_no: 1,
            result: ResultRecord {
                result: "0-2".into(),
                reason: "resignation".into(),
                finished_at_ms: 3_000,
                clock_ms: None,
            },
        })
        .await
        .expect("finish");

    // As after a restart: a new connection to the same database.
    let loaded = store.load_unfinished().await.expect("load");
    assert_eq!(loaded.len(), 1, "only the unfinished room");
    let r = &loaded[0];
    assert_eq!(r.id, room);
    assert_eq!(r.status, RoomStatus::Playing);
    assert_eq!(r.config, config(Opponent::Anyone));
    assert_eq!(r.seats.len(), 2);
    assert_eq!(r.seats[1].name, "Bob");
    let game = r.game.as_ref().expect("a game");
    assert_eq!(game.game_no, 1);
    assert_eq!(game.white_seat, 0);
    assert_eq!(game.moves, moves.to_vec());
    // The clock state is the last move's: its clocks, and the turn began
    // when it was played.
    assert_eq!(game.clock_ms, moves[2].clock_ms);
    assert_eq!(game.turn_started_at_ms, moves[2].moved_at_ms);
    assert_eq!(game.result, None);
    assert_eq!(
        store.latest_heartbeat().await.expect("hb"),
        Some(("server-a".to_string(), 9_500))
    );
}

async fn tokens_stored_hashed(store: Store) {
    let token = SeatToken::generate();
    let opening = Opening {
        creator_colour: Colour::Black,
        start_fen: Some("B:g1w,c3w,e3w,b6b,d6b,h8b 0 12".into()),
        quick_device: Some("ab".repeat(32)),
    };
    let id = random_hex128();
    store
        .create_room(
            &NewRoom {
                id: id.clone(),
                config: config(Opponent::Engine(Strength::Elo(1500))),
                created_at_ms: 5,
                opening: opening.clone(),
            },
            &seat(0, "Ann", &token),
        )
        .await
        .expect("create");
    store
        .apply(&Write::Seat {
            room_id: id.clone(),
            seat: SeatRecord {
                seat: 1,
                name: "bashni 1500".into(),
                token_hash: None,
                engine: true,
                joined_at_ms: 6,
            },
        })
        .await
        .expect("engine seat");
    let stored = store.token_hashes(&id).await.expect("hashes");
    assert_eq!(stored, vec![Some(token.hash().as_str().to_owned()), None]);
    assert_ne!(stored[0].as_deref(), Some(token.as_str()));
    let loaded = store.load_unfinished().await.expect("load");
    let seat0 = &loaded[0].seats[0];
    assert!(seat0.token_hash.as_ref().is_some_and(|h| h.matches(&token)));
    assert!(
        !seat0
            .token_hash
            .as_ref()
            .is_some_and(|h| h.matches(&SeatToken::generate()))
    );
    assert_eq!(
        loaded[0].config.opponent,
        Opponent::Engine(Strength::Elo(1500))
    );
    assert_eq!(
        loaded[0].opening, opening,
        "the creator's colour and start, and the browser that asked"
    );
}

async fn group_commit(store: Store) {
    let (writer, stopped) = MoveWriter::spawn(store.clone(), 64, 1024).expect("writer thread");
    let mut rooms = Vec::new();
    for _ in 0..20 {
        rooms.push(room_with_game(&store, Opponent::Anyone).await);
    }
    // Each room plays its moves in order, waiting for each to be stored
    // (as the server will before broadcasting); the rooms run at once.
    let mut players = Vec::new();
    for room in &rooms {
        let (writer, room) = (writer.clone(), room.clone());
        players.push(tokio::spawn(async move {
            for ply in 1..=10 {
                writer
                    .append(mv(&room, ply, "c3-d4"))
                    .await
                    .expect("stored");
            }
        }));
    }
    for player in players {
        player.await.expect("room task");
    }
    assert_eq!(writer.stats().moves(), 200);
    eprintln!(
        "  200 moves of 20 rooms in {} commits",
        writer.stats().batches()
    );
    assert!(
        writer.stats().batches() < 200,
        "{} commits for 200 moves",
        writer.stats().batches()
    );
    // A doubled ply is refused alone; the moves beside it are stored.
    let (a, b) = (writer.clone(), writer.clone());
    let (first, second) = (rooms[0].clone(), rooms[1].clone());
    let (doubled, fresh) = tokio::join!(
        a.append(mv(&first, 10, "c3-d4")),
        b.append(mv(&second, 11, "c3-d4"))
    );
    assert!(
        matches!(
            doubled,
            Err(WriteError::Store(StoreError::DuplicatePly { ply: 10, .. }))
        ),
        "{doubled:?}"
    );
    assert!(fresh.is_ok(), "{fresh:?}");
    for room in &rooms {
        let plies: Vec<u32> = moves_of(&store, room).await.iter().map(|m| m.ply).collect();
        let expected = if *room == rooms[1] { 11 } else { 10 };
        assert_eq!(plies, (1..=expected).collect::<Vec<_>>());
    }
    // Other writes run in the writer's turn and get their own answer (a
    // seat already taken is refused as such), and a refused one leaves
    // the writer storing moves.
    let taken_seat = Write::Seat {
        room_id: rooms[2].clone(),
        seat: seat(1, "Eve", &SeatToken::generate()),
    };
    // Every field of the offers, so that each comes back as it went.
    let stored_offers = OffersRecord {
        at_ply: 10,
        draw_offer: Some(bashni_rules::Colour::White),
        takeback_by: Some(bashni_rules::Colour::Black),
        rematch: [false, true],
        draw_offered_at: [Some(10), Some(3)],
        takeback_declined: [true, false],
        rematch_declined: [true, false],
    };
    let offers = Write::Offers {
        room_id: rooms[3].clone(),
        game_no: 1,
        offers: stored_offers.clone(),
    };
    // Sent at once, so that they usually share a transaction.
    let (taken, offered, moved) = tokio::join!(
        writer.write(taken_seat),
        writer.write(offers),
        writer.append(mv(&rooms[2], 11, "c3-d4"))
    );
    assert!(
        matches!(taken, Err(WriteError::Store(StoreError::SeatTaken))),
        "{taken:?}"
    );
    offered.expect("the offers are stored beside a refused write");
    moved.expect("the move is stored beside a refused write");
    assert_eq!(moves_of(&store, &rooms[2]).await.len(), 11);
    // One action's writes are stored all or none: a move and a seat
    // already taken (as a join that starts a game, or a move that ends
    // one, is written) leave nothing behind when the seat is refused.
    let seat_again = Write::Seat {
        room_id: rooms[2].clone(),
        seat: seat(1, "Eve", &SeatToken::generate()),
    };
    let action = writer
        .submit(vec![
            Work::Move(mv(&rooms[2], 12, "c3-d4")),
            Work::Other(seat_again),
        ])
        .await;
    assert!(
        matches!(action, Err(WriteError::Store(StoreError::SeatTaken))),
        "{action:?}"
    );
    assert_eq!(
        moves_of(&store, &rooms[2]).await.len(),
        11,
        "the move of a refused action is not stored"
    );
    let loaded = store.load_room(&rooms[3]).await.expect("load");
    let game = loaded.and_then(|room| room.game).expect("a game");
    assert_eq!(game.offers, Some(stored_offers));
    drop((writer, a, b));
    stopped
        .await
        .expect("the writer stops when its handles are gone");
}

/// In one transaction (as the writer's batches are), a write or a move
/// the database refuses is undone alone: what came before and after it
/// is committed.
async fn refused_write_undone_alone(store: Store) {
    let room = room_with_game(&store, Opponent::Anyone).await;
    let elsewhere = room_with_game(&store, Opponent::Anyone).await;
    let mut tx = store.begin().await.expect("begin");
    tx.append_moves_alone(&[mv(&room, 1, "c3-d4")])
        .await
        .expect("transaction")
        .expect("first move");
    let taken = Write::Seat {
        room_id: room.clone(),
        seat: seat(0, "Eve", &SeatToken::generate()),
    };
    let refused = tx
        .run_alone(&[Work::Move(mv(&room, 2, "f6-g5")), Work::Other(taken)])
        .await
        .expect("transaction");
    assert!(matches!(refused, Err(StoreError::SeatTaken)), "{refused:?}");
    let doubled = [mv(&elsewhere, 1, "c3-d4"), mv(&room, 1, "c3-d4")];
    let refused = tx.append_moves_alone(&doubled).await.expect("transaction");
    assert!(
        refused.is_err(),
        "a batch with a doubled ply is refused whole"
    );
    let alone = tx
        .append_moves_alone(&doubled[1..])
        .await
        .expect("transaction");
    assert!(
        matches!(alone, Err(StoreError::DuplicatePly { ply: 1, .. })),
        "{alone:?}"
    );
    // The clocks as they stopped come back with the result.
    let result = ResultRecord {
        result: "2-0".into(),
        reason: "resignation".into(),
        finished_at_ms: 5_000,
        clock_ms: Some([61_000, 0]),
    };
    tx.run_alone(&[Work::Other(Write::GameEnd {
        room_id: elsewhere.clone(),
        game_no: 1,
        result: result.clone(),
    })])
    .await
    .expect("transaction")
    .expect("result after the refusals");
    tx.commit().await.expect("commit");
    let texts = |moves: Vec<MoveRecord>| moves.into_iter().map(|m| m.ply).collect::<Vec<_>>();
    assert_eq!(texts(moves_of(&store, &room).await), vec![1]);
    assert_eq!(texts(moves_of(&store, &elsewhere).await), Vec::<u32>::new());
    let finished = store
        .load_room(&elsewhere)
        .await
        .expect("load")
        .expect("room");
    assert_eq!(finished.status, RoomStatus::Finished);
    assert_eq!(finished.game.and_then(|g| g.result), Some(result));
}

async fn seats_takebacks_results_lobby(store: Store) {
    // The lobby lists open public rooms only.
    let public = random_hex128();
    let private = random_hex128();
    for (id, opponent) in [(&public, Opponent::Anyone), (&private, Opponent::LinkOnly)] {
        store
            .create_room(
                &NewRoom {
                    id: id.clone(),
                    config: RoomConfig {
                        clock: None,
                        ..config(opponent)
                    },
                    created_at_ms: 7,
                    opening: white_from_the_start(),
                },
                &seat(0, "<b>Ann</b>", &SeatToken::generate()),
            )
            .await
            .expect("create");
    }
    let lobby = store.list_open_rooms(10).await.expect("lobby");
    assert_eq!(lobby.len(), 1);
    assert_eq!(lobby[0].id, public);
    assert_eq!(lobby[0].creator, "<b>Ann</b>", "stored as given");
    assert_eq!(lobby[0].config.clock, None);
    // A seat is taken once.
    let taken = store
        .apply(&Write::Seat {
            room_id: public.clone(),
            seat: seat(0, "Eve", &SeatToken::generate()),
        })
        .await;
    assert!(matches!(taken, Err(StoreError::SeatTaken)), "{taken:?}");
    let nowhere = store
        .apply(&Write::Seat {
            room_id: random_hex128(),
            seat: seat(1, "Eve", &SeatToken::generate()),
        })
        .await;
    assert!(
        matches!(nowhere, Err(StoreError::Missing(_))),
        "{nowhere:?}"
    );
    store
        .apply(&Write::Seat {
            room_id: public.clone(),
            seat: seat(1, "Bob", &SeatToken::generate()),
        })
        .await
        .expect("join");
    store
        .apply(&Write::GameStart {
            room_id: public.clone(),
            game: NewGame {
                game_no: 1,
                white_seat: 1,
                started_at_ms: 10,
                clock_ms: None,
                start_fen: None,
            },
        })
        .await
        .expect("start");
    assert!(store.list_open_rooms(10).await.expect("lobby").is_empty());
    // A takeback deletes the last plies; the ply can be played again.
    let no_clock = |ply| MoveRecord {
        clock_ms: None,
        ..mv(&public, ply, "c3-d4")
    };
    store
        .append_moves(&[no_clock(1), no_clock(2), no_clock(3)])
        .await
        .expect("moves");
    store
        .apply(&Write::TakeBack {
            room_id: public.clone(),
            game_no: 1,
            keep_plies: 1,
            clock_ms: None,
            turn_started_at_ms: 77,
        })
        .await
        .expect("take back");
    let loaded = store.load_unfinished().await.expect("load");
    let game = loaded
        .iter()
        .find(|r| r.id == public)
        .and_then(|r| r.game.clone())
        .expect("game");
    assert_eq!(game.moves, vec![no_clock(1)]);
    assert_eq!(game.turn_started_at_ms, 77);
    assert_eq!(game.clock_ms, None);
    assert_eq!(game.white_seat, 1);
    store.append_move(&no_clock(2)).await.expect("ply 2 again");
    // The result ends the room; a rematch opens the next game.
    let result = ResultRecord {
        result: "1-1".into(),
        reason: "draw agreed".into(),
        finished_at_ms: 99,
        clock_ms: None,
    };
    store
        .apply(&Write::GameEnd {
            room_id: public.clone(),
            game_no: 1,
            result: result.clone(),
        })
        .await
        .expect("finish");
    assert!(
        store
            .load_unfinished()
            .await
            .expect("load")
            .iter()
            .all(|r| r.id != public)
    );
    store
        .apply(&Write::GameStart {
            room_id: public.clone(),
            game: NewGame {
                game_no: 2,
                white_seat: 0,
                started_at_ms: 100,
                clock_ms: None,
                start_fen: None,
            },
        })
        .await
        .expect("rematch");
    let loaded = store.load_unfinished().await.expect("load");
    let game = loaded
        .iter()
        .find(|r| r.id == public)
        .and_then(|r| r.game.clone())
        .expect("game");
    assert_eq!((game.game_no, game.white_seat, game.moves.len()), (2, 0, 0));
    let twice = store
        .apply(&Write::GameEnd {
            room_id: public.clone(),
            game_no: 1,
            result: result.clone(),
        })
        .await;
    assert!(twice.is_err(), "a result is stored once");
}

// ----------------------------------------------------------------------
// SQLite: a file in a temporary directory.

#[tokio::test]
async fn sqlite_store() {
    for (name, scenario) in SCENARIOS {
        let dir = TempDir::new("sqlite");
        let path = dir.path().join("serve.db");
        eprintln!("sqlite: {name}");
        let store = Store::open_sqlite(&path).await.expect("open sqlite");
        assert_eq!(store.backend(), "sqlite");
        scenario(store.clone()).await;
        store.close().await;
        // Reopening runs the migrations again: they are applied once.
        let url = format!("sqlite:{}", path.display());
        let again = Store::connect(&url).await.expect("reopen sqlite");
        again.close().await;
    }
}

#[tokio::test]
async fn sqlite_urls() {
    let dir = TempDir::new("urls");
    let url = format!("sqlite://{}", dir.path().join("x.db").display());
    let store = Store::connect(&url).await.expect("sqlite:// url");
    store.close().await;
    let bad = Store::connect("mysql://localhost/x").await;
    assert!(matches!(bad, Err(StoreError::BadUrl(_))));
}

// ----------------------------------------------------------------------
// PostgreSQL: a private server in a temporary directory.

#[tokio::test]
async fn postgres_store() {
    let Some(server) = postgres::start_or_skip("postgres_store") else {
        return;
    };
    let admin = Store::connect(&server.url("postgres"))
        .await
        .expect("connect to postgres");
    admin.close().await;
    for (i, (name, scenario)) in SCENARIOS.iter().enumerate() {
        eprintln!("postgres: {name}");
        let database = format!("scenario_{i}");
        let out = server
            .command("createdb")
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &server.port.to_string(),
                "-U",
                "postgres",
                &database,
            ])
            .output()
            .expect("createdb");
        assert!(
            out.status.success(),
            "createdb: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let store = Store::connect(&server.url(&database))
            .await
            .expect("connect");
        assert_eq!(store.backend(), "postgres");
        scenario(store.clone()).await;
        store.close().await;
        let again = Store::connect(&server.url(&database))
            .await
            .expect("reconnect");
        again.close().await;
    }
}
