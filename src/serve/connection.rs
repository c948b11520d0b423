//! One WebSocket connection: a page. It may show the lobby and one room
//! at a time, in a seat (proved by the seat's token) or as a watcher.
//! Every message is checked ([`ClientMessage::parse`]) and rate-limited;
//! a page that keeps flooding is cut off.

use super::actor::{Action, Published, RoomHandle, ToRoom};
use super::desk::Desk;
use super::history;
use super::hub::{FindError, Hub, Quick};
use super::room::Player;
use super::token::SeatToken;
use super::view::{BoardLineView, Json, ServerMessage};
use super::wire::{ClientMessage, clip};
use axum::extract::ws::{Message, WebSocket};
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::watch;

/// Messages over the rate a connection may send before it is closed.
const STRIKES_BEFORE_CLOSE: u32 = 100;

/// Pings a page may leave unanswered (with nothing else heard from it)
/// before it is taken for gone: a lost network closes nothing, and a
/// page that seems online keeps its seat shown as taken and its room
/// listed.
const SILENT_PINGS: u32 = 3;

/// How long after a quick game request another from the same page is
/// refused.
const QUICK_AGAIN: std::time::Duration = std::time::Duration::from_secs(3);

/// Policy violation: the close code for a page cut off for flooding.
const CLOSE_POLICY: u16 = 1008;
/// Going away: the close code for a page that stopped answering.
const CLOSE_GONE: u16 = 1001;
/// The close codes for a frame the WebSocket layer refused: a protocol
/// error, a text that is not UTF-8, a message too big.
const CLOSE_PROTOCOL: u16 = 1002;
const CLOSE_NOT_UTF8: u16 = 1007;
const CLOSE_TOO_BIG: u16 = 1009;

/// A token bucket: `rate` a second, bursts of twice that.
struct Bucket {
    tokens: f64,
    rate: f64,
    last: Instant,
}

impl Bucket {
    fn new(rate: u32) -> Bucket {
        let rate = f64::from(rate.max(1));
        Bucket {
            tokens: 2.0 * rate,
            rate,
            last: Instant::now(),
        }
    }

    fn take(&mut self) -> bool {
        let now = Instant::now();
        let refill = now.duration_since(self.last).as_secs_f64() * self.rate;
        self.tokens = (self.tokens + refill).min(2.0 * self.rate);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// The room a page shows.
struct Shown {
    id: String,
    handle: RoomHandle,
    seat: Option<u8>,
    state: watch::Receiver<Published>,
    /// The number of the last state sent to the page.
    sent: u64,
    /// The players' chat, for a page in a seat (never a watcher's).
    chat: Option<watch::Receiver<Json>>,
}

impl Shown {
    /// The newest state once it changes, or the chat for a page in a
    /// seat; never once the room has stopped.
    async fn changed(&mut self) -> Json {
        tokio::select! {
            state = next_state(&mut self.state, &mut self.sent) => state,
            Some(chat) = changed(self.chat.as_mut()) => chat,
        }
    }
}

/// The newest state of `state` once it changes, as the page needs it:
/// the change after a move if the page has the state before (`sent`),
/// or else the whole; never once the room has stopped.
async fn next_state(state: &mut watch::Receiver<Published>, sent: &mut u64) -> Json {
    if state.changed().await.is_err() {
        return std::future::pending().await;
    }
    let published = state.borrow_and_update().clone();
    let text = published.for_viewer(*sent);
    *sent = published.seq;
    text
}

/// A page's connection.
struct Connection {
    hub: Arc<Hub>,
    addr: IpAddr,
    room: Option<Shown>,
    lobby: Option<watch::Receiver<Json>>,
    bucket: Bucket,
    strikes: u32,
    outbox: Vec<Json>,
    desk: Desk,
    /// When the page last asked for a quick game.
    asked_quick: Option<Instant>,
}

/// Serve one page until it goes (or is cut off for flooding).
pub async fn serve(mut socket: WebSocket, hub: Arc<Hub>, addr: IpAddr) {
    let mut conn = Connection {
        bucket: Bucket::new(hub.limits.messages_per_second),
        desk: Desk::new(
            Arc::clone(&hub.shared.engines),
            Arc::clone(&hub.analyses),
            addr,
        ),
        hub,
        addr,
        room: None,
        lobby: None,
        strikes: 0,
        outbox: Vec::new(),
        asked_quick: None,
    };
    conn.outbox.push(conn.hub.welcome.clone());
    let ping_every = conn.hub.limits.ping_every;
    // A page that stops reading must not hold its task forever either.
    let send_patience = ping_every * SILENT_PINGS;
    let mut ping = tokio::time::interval(ping_every);
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut heard = Instant::now();
    loop {
        let outbox = std::mem::take(&mut conn.outbox);
        for text in outbox {
            let sent = tokio::time::timeout(send_patience, socket.send(Message::Text(text)));
            if !matches!(sent.await, Ok(Ok(()))) {
                conn.leave_room().await;
                return;
            }
        }
        if conn.strikes >= STRIKES_BEFORE_CLOSE {
            close(&mut socket, CLOSE_POLICY, "too many messages").await;
            break;
        }
        tokio::select! {
            message = socket.recv() => {
                heard = Instant::now();
                match message {
                    Some(Ok(Message::Text(text))) => conn.on_text(&text).await,
                    Some(Ok(Message::Binary(_))) => conn.on_binary(),
                    // Each ping is answered: a flood of them counts as
                    // any other (a browser sends none, and one pong a ping).
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => {
                        conn.admit();
                    }
                    Some(Ok(_)) => {}
                    Some(Err(e)) => {
                        if let Some((code, reason)) = refusal_of(&e) {
                            close(&mut socket, code, reason).await;
                        }
                        break;
                    }
                    None => break,
                }
            }
            _ = ping.tick() => {
                if heard.elapsed() >= send_patience {
                    close(&mut socket, CLOSE_GONE, "no answer to pings").await;
                    break;
                }
                let pinged = tokio::time::timeout(send_patience, socket.send(Message::Ping(Default::default())));
                if !matches!(pinged.await, Ok(Ok(()))) {
                    break;
                }
            }
            state = room_changed(conn.room.as_mut()) => {
                conn.outbox.push(state);
            }
            Some(lobby) = changed(conn.lobby.as_mut()) => {
                conn.outbox.push(lobby);
            }
            lines = conn.desk.next() => conn.outbox.push(Json::from(lines)),
        }
    }
    conn.leave_room().await;
}

/// Close `socket` saying why (a page shows nothing of it, but a script
/// or a proxy log does), waiting at most a moment.
async fn close(socket: &mut WebSocket, code: u16, reason: &'static str) {
    let frame = axum::extract::ws::CloseFrame {
        code,
        reason: reason.into(),
    };
    let wait = std::time::Duration::from_secs(1);
    let _ = tokio::time::timeout(wait, socket.send(Message::Close(Some(frame)))).await;
    linger(socket, wait).await;
}

/// After a close frame, wait at most `wait` for the client's answer,
/// reading what it still sends: a socket dropped with unread bytes
/// (the rest of a frame far over the limit) is reset, and the reset can
/// overtake the close frame, so that the client never learns why.
async fn linger(socket: &mut WebSocket, wait: std::time::Duration) {
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        match tokio::time::timeout_at(deadline, socket.recv()).await {
            Ok(Some(Ok(Message::Close(_)))) | Err(_) => return,
            Ok(Some(Ok(_))) => {}
            // The stream reads no more (it gave up on a frame, or ended):
            // the client is given the time to read the close frame.
            Ok(Some(Err(_)) | None) => {
                tokio::time::sleep_until(deadline).await;
                return;
            }
        }
    }
}

/// The close code and reason for a frame the WebSocket layer refused,
/// told by its error's words (axum does not give the error's type), so
/// that a script or a proxy log learns what was wrong; `None` for a
/// connection lost, with nobody to tell.
fn refusal_of(error: &axum::Error) -> Option<(u16, &'static str)> {
    let text = error.to_string();
    let refusal = match text {
        t if t.starts_with("UTF-8 encoding error") => {
            (CLOSE_NOT_UTF8, "a text message that is not UTF-8")
        }
        t if t.starts_with("Space limit exceeded") => {
            (CLOSE_TOO_BIG, "a message far over the size limit")
        }
        // A page gone without a close frame is no one to tell.
        t if t.contains("without closing handshake") => return None,
        t if t.starts_with("WebSocket protocol error") => {
            (CLOSE_PROTOCOL, "a frame the WebSocket protocol refuses")
        }
        _ => return None,
    };
    Some(refusal)
}

/// The next state (or chat) of the room shown, or never if none is shown
/// (or its room has stopped).
async fn room_changed(shown: Option<&mut Shown>) -> Json {
    match shown {
        Some(shown) => shown.changed().await,
        None => std::future::pending().await,
    }
}

/// The next value of `rx`, or never if there is none to watch.
async fn changed(rx: Option<&mut watch::Receiver<Json>>) -> Option<Json> {
    match rx {
        Some(rx) => match rx.changed().await {
            Ok(()) => Some(rx.borrow_and_update().clone()),
            Err(_) => std::future::pending().await,
        },
        None => std::future::pending().await,
    }
}

impl Connection {
    fn refuse(&mut self, message: &str) {
        self.say(&ServerMessage::Error { message });
    }

    fn say(&mut self, message: &ServerMessage<'_>) {
        if let Ok(text) = serde_json::to_string(message) {
            self.outbox.push(Json::from(text));
        }
    }

    /// Whether a message may be read now; past the rate, it is refused
    /// and counted against the page.
    fn admit(&mut self) -> bool {
        if self.bucket.take() {
            return true;
        }
        self.strikes += 1;
        self.refuse("too many messages: slow down");
        false
    }

    fn on_binary(&mut self) {
        if self.admit() {
            self.refuse("binary messages are not understood");
        }
    }

    async fn on_text(&mut self, text: &str) {
        if !self.admit() {
            return;
        }
        match ClientMessage::parse(text) {
            Ok(message) => {
                if let Err(e) = self.on_message(message).await {
                    self.refuse(&e);
                }
            }
            Err(e) => self.refuse(&e.0),
        }
    }

    async fn on_message(&mut self, message: ClientMessage) -> Result<(), String> {
        let action = match message {
            ClientMessage::Lobby {} => {
                self.watch_lobby();
                return Ok(());
            }
            ClientMessage::Create { name, setup } => {
                let (room, token) = self.hub.create(self.addr, &name, &setup).await?;
                return self.seated(&room, 0, token).await;
            }
            ClientMessage::Join { room, name } => return self.join(&room, &name).await,
            ClientMessage::Quick {
                variant,
                clock,
                name,
                device,
            } => return self.quick(&variant, clock.as_deref(), &name, &device).await,
            ClientMessage::Open { room, token } => return self.open(&room, token.as_deref()).await,
            ClientMessage::Leave {} => {
                self.close_or_leave().await?;
                self.say(&ServerMessage::Left);
                return Ok(());
            }
            ClientMessage::Analyse {} => return self.analyse().await,
            ClientMessage::Ladder {
                variant,
                name,
                device,
            } => {
                let hub = Arc::clone(&self.hub);
                let (room, token) = hub
                    .start_ladder(self.addr, &name, &device, &variant)
                    .await?;
                return self.seated(&room, 0, token).await;
            }
            ClientMessage::Leaderboard { variant } => return self.leaderboard(&variant).await,
            ClientMessage::LadderBest {
                variant,
                name,
                device,
            } => {
                let best = self.hub.ladder_best(&variant, &name, &device).await?;
                self.say(&ServerMessage::LadderBest {
                    variant: &variant,
                    best,
                });
                return Ok(());
            }
            ClientMessage::CheckName { name } => {
                let problem = Player::check_name(&name).err().map(|e| e.to_string());
                self.say(&ServerMessage::NameChecked {
                    name: &name,
                    problem: problem.as_deref(),
                });
                return Ok(());
            }
            ClientMessage::YourGames { rooms } => {
                let games = self.hub.your_games(&rooms).await?;
                self.say(&ServerMessage::YourGames { games: &games });
                return Ok(());
            }
            study @ (ClientMessage::StudyPosition { .. }
            | ClientMessage::StudyPdn { .. }
            | ClientMessage::StudyExport {}
            | ClientMessage::StudyAnalyse { .. }
            | ClientMessage::StudyStop {}) => return self.study(study),
            ClientMessage::Replay { game } => return self.replay(game).await,
            ClientMessage::Say { text } => return self.say_in_chat(text).await,
            ClientMessage::Move { text } => Action::Move(text),
            ClientMessage::Resign {} => Action::Resign,
            ClientMessage::Abort {} => Action::Abort,
            ClientMessage::OfferDraw {} => Action::OfferDraw,
            ClientMessage::AcceptDraw {} => Action::AcceptDraw,
            ClientMessage::DeclineDraw {} => Action::DeclineDraw,
            ClientMessage::Takeback {} => Action::Takeback,
            ClientMessage::AcceptTakeback {} => Action::AcceptTakeback,
            ClientMessage::DeclineTakeback {} => Action::DeclineTakeback,
            ClientMessage::Rematch {} => return self.rematch().await,
            ClientMessage::DeclineRematch {} => Action::DeclineRematch,
            ClientMessage::ClaimWin {} => Action::Claim(true),
            ClientMessage::ClaimDraw {} => Action::Claim(false),
        };
        self.act(action).await
    }

    /// Send the lobby now and on every change.
    fn watch_lobby(&mut self) {
        let mut lobby = self.hub.lobby.clone();
        self.outbox.push(lobby.borrow_and_update().clone());
        self.lobby = Some(lobby);
    }

    async fn leaderboard(&mut self, variant: &str) -> Result<(), String> {
        let lines: Vec<BoardLineView> = self
            .hub
            .leaderboard(variant)
            .await?
            .into_iter()
            .map(|l| BoardLineView {
                name: l.name,
                best: l.best,
                wins: l.wins,
            })
            .collect();
        self.say(&ServerMessage::Leaderboard {
            variant,
            lines: &lines,
        });
        Ok(())
    }

    /// A message for the page's analysis board. A position or a PDN it
    /// refuses is answered `study_refused` (the board's editor waits for
    /// that answer); any other refusal is a plain error.
    fn study(&mut self, message: ClientMessage) -> Result<(), String> {
        let setup = matches!(
            message,
            ClientMessage::StudyPosition { .. } | ClientMessage::StudyPdn { .. }
        );
        match self.desk.on_message(message) {
            Ok(answers) => self.outbox.extend(answers.into_iter().map(Json::from)),
            Err(message) if setup => self.say(&ServerMessage::StudyRefused { message: &message }),
            Err(message) => return Err(message),
        }
        Ok(())
    }

    async fn join(&mut self, id: &str, name: &str) -> Result<(), String> {
        // A page that sits in the room already would play itself (and
        // lose its first seat's token): the other seat is for someone else.
        if self
            .room
            .as_ref()
            .is_some_and(|r| r.id == id && r.seat.is_some())
        {
            return Err("you already sit in this room".into());
        }
        let (seat, token) = self.hub.join(self.addr, id, name).await?;
        self.seated(id, seat, token).await
    }

    /// Pair the page for a quick game and show it the seat. A second
    /// request within [`QUICK_AGAIN`] (a double click) is refused: it
    /// would have seated the player in a second room and shown them that
    /// one, while the first game waited for them.
    async fn quick(
        &mut self,
        variant: &str,
        clock: Option<&str>,
        name: &str,
        device: &str,
    ) -> Result<(), String> {
        if self
            .asked_quick
            .is_some_and(|at| at.elapsed() < QUICK_AGAIN)
        {
            return Err("you asked for a quick game a moment ago".into());
        }
        let hub = Arc::clone(&self.hub);
        let paired = match hub.quick(self.addr, name, device, variant, clock).await? {
            Quick::Paired(paired) => paired,
            Quick::AlreadyWaiting(room) => {
                self.say(&ServerMessage::QuickWaiting { room: &room });
                return Ok(());
            }
        };
        self.asked_quick = Some(Instant::now());
        let shown = self.seated(&paired.room, paired.seat, paired.token).await;
        drop(paired.turn);
        shown
    }

    /// Tell the page its seat and token, and show it the room from there.
    async fn seated(&mut self, id: &str, seat: u8, token: SeatToken) -> Result<(), String> {
        self.say(&ServerMessage::Seated {
            room: id,
            seat,
            token: token.as_str(),
        });
        self.show(id, Some(seat)).await
    }

    async fn open(&mut self, id: &str, token: Option<&str>) -> Result<(), String> {
        let handle = match self.hub.find(id, Some(self.addr)).await {
            Ok(handle) => handle,
            Err(FindError::Missing(message)) => {
                self.say(&ServerMessage::NoRoom {
                    room: clip(id, 40),
                    message: &message,
                });
                return Ok(());
            }
            Err(unavailable) => return Err(unavailable.into()),
        };
        let seat = match token.and_then(SeatToken::parse) {
            Some(token) => {
                handle
                    .ask(|reply| ToRoom::Authenticate { token, reply })
                    .await?
            }
            None => None,
        };
        match (token, seat) {
            (Some(token), Some(seat)) => {
                self.say(&ServerMessage::Seated {
                    room: id,
                    seat,
                    token,
                });
                self.show(id, Some(seat)).await
            }
            (Some(_), None) => {
                self.show(id, None).await?;
                Err("that token holds no seat in this room: you are watching".into())
            }
            (None, _) => self.show(id, None).await,
        }
    }

    /// Show room `id` (leaving the one shown), in `seat` or as a watcher.
    async fn show(&mut self, id: &str, seat: Option<u8>) -> Result<(), String> {
        let handle = self.hub.find(id, Some(self.addr)).await?;
        self.leave_room().await;
        handle.ask(|reply| ToRoom::Attach { seat, reply }).await??;
        let mut state = handle.state.clone();
        let first = state.borrow_and_update().clone();
        self.outbox.push(first.whole);
        let chat = seat.map(|_| {
            let mut chat = handle.chat.clone();
            self.outbox.push(chat.borrow_and_update().clone());
            chat
        });
        self.room = Some(Shown {
            id: id.to_owned(),
            handle,
            seat,
            state,
            sent: first.seq,
            chat,
        });
        Ok(())
    }

    async fn leave_room(&mut self) {
        if let Some(shown) = self.room.take() {
            let _ = shown
                .handle
                .tx
                .send(ToRoom::Detach { seat: shown.seat })
                .await;
        }
    }

    async fn close_or_leave(&mut self) -> Result<(), String> {
        if let Some(Shown {
            handle,
            seat: Some(seat),
            ..
        }) = &self.room
        {
            let seat = *seat;
            // A seat in a game under way is not given up by leaving: the
            // clock runs, and the player may come back.
            let _ = handle.ask(|reply| ToRoom::Close { seat, reply }).await;
        }
        self.leave_room().await;
        Ok(())
    }

    fn seated_room(&self) -> Result<(&RoomHandle, u8), String> {
        match &self.room {
            Some(Shown {
                handle,
                seat: Some(seat),
                ..
            }) => Ok((handle, *seat)),
            Some(_) => Err("you hold no seat in this room: watchers only watch".into()),
            None => Err("open a room first".into()),
        }
    }

    async fn act(&mut self, action: Action) -> Result<(), String> {
        let (handle, seat) = self.seated_room()?;
        handle
            .ask(|reply| ToRoom::Act {
                seat,
                action,
                reply,
            })
            .await?
    }

    /// Ask for a rematch. Another game against the engine counts as a new
    /// one, from its admission until it has started.
    async fn rematch(&mut self) -> Result<(), String> {
        let hub = Arc::clone(&self.hub);
        let _counted = match &self.room {
            Some(room) => hub.admit_rematch(self.addr, &room.id)?,
            None => None,
        };
        self.act(Action::Rematch).await
    }

    /// Say `text` in the chat of the room where the page sits.
    async fn say_in_chat(&mut self, text: String) -> Result<(), String> {
        let (handle, seat) = self.seated_room()?;
        handle
            .ask(|reply| ToRoom::Say { seat, text, reply })
            .await?
    }

    /// Send game `game_no` of the room shown, as stored.
    async fn replay(&mut self, game_no: u32) -> Result<(), String> {
        let Some(shown) = &self.room else {
            return Err("open a room first".into());
        };
        let id = shown.id.clone();
        let room = self
            .hub
            .shared
            .store
            .stored_game(&id, game_no)
            .await
            .map_err(|e| format!("cannot read room {id}: {e}"))?
            .ok_or_else(|| format!("room {id} is not stored"))?;
        let view = history::replay(&room, game_no)?;
        let text = serde_json::to_string(&view).map_err(|e| e.to_string())?;
        self.outbox.push(Json::from(text));
        Ok(())
    }

    async fn analyse(&mut self) -> Result<(), String> {
        let Some(shown) = &self.room else {
            return Err("open a room first".into());
        };
        shown.handle.ask(|reply| ToRoom::Analyse { reply }).await?
    }
}
