//! One task per room: it owns the [`Room`], takes every request for it in
//! turn, stores what changed and only then publishes the room's new state
//! to every viewer. A move is committed (through the group-commit
//! [`MoveWriter`]) before anyone sees it; if the store refuses, the room
//! is put back as it was and the request fails (unless the store has it
//! after all: an answer lost on the way back).
//!
//! The task also keeps the clock (it wakes at the side to move's
//! deadline and ends the game on time), drives an engine seat through the
//! [`EnginePool`] (`engine_seat`), and runs the analysis of a finished
//! game (`analysis`); `persist` turns an action's events into the writes
//! the store keeps together.

mod analysis;
mod chat;
mod engine_seat;
mod persist;
mod presence;

use super::chat::Chat;
use super::climb::Climb;
use super::config::Opponent;
use super::engines::EnginePool;
use super::lobby::Lobby;
use super::room::{Allowed, Event, Phase, Player, Room, RoomError};
use super::store::writer::MoveWriter;
use super::store::{Store, Write, unix_ms_now};
use super::token::SeatToken;
use super::view::{
    AnalysisView, ConfigView, Extras, Json, LobbyRoom, RoomMove, RoomView, TurnView, phase_name,
};
use bashni_rules::Colour;
use persist::StoredMark;
use presence::Presence;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot, watch};

/// Why a ladder game is not aborted: a run goes on from game to game,
/// each against the rival it has reached.
const RUN_GOES_ON: &str =
    "a ladder run goes on from game to game: no abort (resign to end the run)";

/// What becomes of a room idle for `--idle-seconds` (otherwise
/// abandoned rooms would fill `--max-rooms` for good).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WhenIdle {
    /// It leaves memory; the database keeps it, and opening it brings it
    /// back.
    Leaves,
    /// It is closed (and leaves memory), as a lichess seek goes with its
    /// player.
    Closes,
}

/// Whether a room in `phase`, `timed` or not, with `watchers` and pages
/// `online` per seat is idle, and what becomes of it if it stays so: a
/// finished room or a game without a clock that nobody looks at leaves
/// memory (a clock ends a game its players left by itself), a room
/// waiting for an opponent whose creator has no page on it is closed.
fn when_idle(phase: Phase, timed: bool, watchers: usize, online: [usize; 2]) -> Option<WhenIdle> {
    let unseen = watchers == 0 && online == [0, 0];
    match phase {
        Phase::Over(_) if unseen => Some(WhenIdle::Leaves),
        Phase::Playing if unseen && !timed => Some(WhenIdle::Leaves),
        Phase::Waiting if online[0] == 0 => Some(WhenIdle::Closes),
        _ => None,
    }
}

/// How long a room waits to store a fallen flag again after the store
/// refused it.
const STORE_RETRY: Duration = Duration::from_secs(1);

/// How long a change in the number of watchers waits to be shown: with
/// the whole state sent to every page on each one, watchers opening and
/// leaving in a loop flooded the players' pages (hundreds of states a
/// second) while their clocks ran.
const WATCHERS_SHOWN_AFTER: Duration = Duration::from_secs(1);

/// What a player may do in their seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Play this move.
    Move(String),
    /// Resign.
    Resign,
    /// Call the game off before both sides have moved.
    Abort,
    /// Offer (or accept) a draw.
    OfferDraw,
    /// Accept the draw offered.
    AcceptDraw,
    /// Decline the draw offered.
    DeclineDraw,
    /// Ask to take back.
    Takeback,
    /// Grant the takeback.
    AcceptTakeback,
    /// Refuse the takeback.
    DeclineTakeback,
    /// Ask for a rematch.
    Rematch,
    /// Decline the other seat's rematch request.
    DeclineRematch,
    /// End the game the opponent left: won (`true`) or drawn.
    Claim(bool),
}

/// A request to a room's task.
pub enum ToRoom {
    /// A page shows the room (in `seat`, or as a watcher).
    Attach {
        /// The seat, or none for a watcher.
        seat: Option<u8>,
        /// Done, or why not (the room has as many watchers as it takes).
        reply: oneshot::Sender<Result<(), String>>,
    },
    /// A page stopped showing it.
    Detach {
        /// As attached.
        seat: Option<u8>,
    },
    /// Which seat, if any, this token holds.
    Authenticate {
        /// The token the page kept.
        token: SeatToken,
        /// The answer.
        reply: oneshot::Sender<Option<u8>>,
    },
    /// Give a person's seat a new token (the old one seats nobody any
    /// more): a ladder run's browser proves it by its device, and may
    /// have lost the token the run was started with.
    Reissue {
        /// The seat.
        seat: u8,
        /// The new token.
        token: SeatToken,
        /// Done, or why not.
        reply: oneshot::Sender<Result<(), String>>,
    },
    /// Take the free seat.
    Join {
        /// Who.
        player: Player,
        /// The seat taken, or why not.
        reply: oneshot::Sender<Result<u8, String>>,
    },
    /// A seat acts.
    Act {
        /// The seat (authenticated by the connection).
        seat: u8,
        /// What it does.
        action: Action,
        /// Done, or why not.
        reply: oneshot::Sender<Result<(), String>>,
    },
    /// The creator closes a room nobody has joined.
    Close {
        /// The seat asking (only 0 may).
        seat: u8,
        /// Done, or why not.
        reply: oneshot::Sender<Result<(), String>>,
    },
    /// Analyse the finished game for everyone.
    Analyse {
        /// Started, or why not.
        reply: oneshot::Sender<Result<(), String>>,
    },
    /// An engine search ended (internal).
    EngineAnswer {
        /// The game and ply it was asked for.
        at: (u32, usize),
        /// The move text, or why it failed.
        answer: Result<String, String>,
    },
    /// The engine search got a slot and started (internal).
    EngineThinking {
        /// The game and ply it was asked for.
        at: (u32, usize),
    },
    /// A seat says a line in the room's chat.
    Say {
        /// The seat (authenticated by the connection).
        seat: u8,
        /// What it says.
        text: String,
        /// Said (stored and sent to both players), or why not.
        reply: oneshot::Sender<Result<(), String>>,
    },
    /// The analysis ended (internal).
    AnalysisDone {
        /// What came out.
        analysis: AnalysisView,
    },
}

/// How the rest of the server reaches a room.
#[derive(Clone)]
pub struct RoomHandle {
    /// Requests.
    pub tx: mpsc::Sender<ToRoom>,
    /// The newest state.
    pub state: watch::Receiver<Published>,
    /// The players' chat as it now stands (a `chat` message): for the
    /// seated pages only.
    pub chat: watch::Receiver<Json>,
    /// Whether the room's opponent is the engine (for its whole life).
    pub engine_room: bool,
}

impl RoomHandle {
    /// Send the room the request `make` builds around a reply channel and
    /// wait for the reply; an error if the room has closed meanwhile.
    pub async fn ask<T>(
        &self,
        make: impl FnOnce(oneshot::Sender<T>) -> ToRoom,
    ) -> Result<T, String> {
        let (reply, answer) = oneshot::channel();
        self.tx.send(make(reply)).await.map_err(room_closed)?;
        answer.await.map_err(room_closed)
    }
}

fn room_closed<E>(_: E) -> String {
    "the room has closed".into()
}

/// A room's state as it goes out: whole, and, after a move, also as the
/// change from the state before ([`RoomMove`]), for the viewers who have
/// that one.
#[derive(Clone, Debug)]
pub struct Published {
    /// The state's number.
    pub seq: u64,
    /// The whole state ([`RoomView`]).
    pub whole: Json,
    /// The change from state `seq - 1`, when a move was all that changed.
    pub after_move: Option<Json>,
    /// Where the room stands: its game over (until a rematch or the next
    /// rival starts another), or waiting for an opponent, or playing.
    pub phase: Phase,
}

impl Published {
    /// What to send a viewer whose last state was number `sent`.
    pub fn for_viewer(&self, sent: u64) -> Json {
        match &self.after_move {
            Some(change) if sent + 1 == self.seq => change.clone(),
            _ => self.whole.clone(),
        }
    }
}

/// What every room's task shares.
#[derive(Clone)]
pub struct Shared {
    /// The database.
    pub store: Store,
    /// The group-commit writer of moves.
    pub writer: MoveWriter,
    /// The engines.
    pub engines: Arc<EnginePool>,
    /// The lobby's list.
    pub lobby: Arc<Lobby>,
    /// Watchers a room takes.
    pub watchers_per_room: usize,
    /// How long a room may be idle (`--idle-seconds`) before it leaves
    /// memory or is closed.
    pub idle_after: Duration,
    /// How long a player must be gone before the opponent may claim the
    /// game (`--claim-after-seconds`).
    pub claim_after: Duration,
}

/// What a room's task keeps beside the [`Room`], as a restart or a
/// room brought back into memory finds it stored.
#[derive(Default)]
pub struct Kept {
    /// The ladder run played in the room, if any.
    pub climb: Option<Climb>,
    /// Its game's analysis, if one was made.
    pub analysis: Option<AnalysisView>,
    /// What its players said.
    pub chat: Chat,
}

struct Actor {
    room: Room,
    shared: Shared,
    me: mpsc::Sender<ToRoom>,
    state: watch::Sender<Published>,
    seq: u64,
    presence: Presence,
    watchers: usize,
    /// When the number of watchers changed since the last state is to be
    /// shown ([`WATCHERS_SHOWN_AFTER`]).
    watchers_due: Option<tokio::time::Instant>,
    /// When the last state was published.
    published_at: tokio::time::Instant,
    /// The game and ply an engine search was asked for.
    engine_asked: Option<(u32, usize)>,
    engine_status: Option<String>,
    engine_failures: u32,
    analysis: Option<AnalysisView>,
    chat: Chat,
    /// The chat as sent to the seated pages.
    chat_out: watch::Sender<Json>,
    /// Analyses asked for and not yet answered.
    reviews_running: usize,
    closed: bool,
    idle_since: Option<Instant>,
    /// The ladder run played here, if the room is a ladder's.
    climb: Option<Climb>,
    /// A ladder game has ended: record it and start the next.
    climb_due: bool,
}

/// The number of a room task's first state: the Unix time in milliseconds,
/// times 1000 (room for a thousand states a millisecond). A page ignores a
/// state numbered below the one it shows, so a room brought back after a
/// restart must number its states after every one the pages kept; counting
/// from zero again froze their boards. Below 2^53, so exact as a
/// JavaScript number.
fn first_state_number() -> u64 {
    u64::try_from(unix_ms_now())
        .unwrap_or(0)
        .saturating_mul(1000)
}

/// Start the task of `room`, with what it `kept`; `on_exit` runs when it
/// ends (idle, closed).
pub fn spawn(
    room: Room,
    shared: Shared,
    kept: Kept,
    on_exit: impl FnOnce(&str) + Send + 'static,
) -> RoomHandle {
    let Kept {
        climb,
        analysis,
        chat,
    } = kept;
    let (tx, rx) = mpsc::channel(256);
    let first_seq = first_state_number();
    let (state, state_rx) = watch::channel(Published {
        seq: first_seq,
        whole: Json::from_static("{}"),
        after_move: None,
        phase: room.phase(),
    });
    let engine_room = room.against_the_engine();
    let (chat_out, chat_rx) = watch::channel(Json::from_static("{}"));
    let claim_after = shared.claim_after;
    // A ladder room brought back with its game over (the server stopped
    // between the result and the next rival's game) goes on.
    let game_over = matches!(room.phase(), Phase::Over(_));
    let mut actor = Actor {
        room,
        shared,
        me: tx.clone(),
        state,
        seq: first_seq,
        presence: Presence::new(claim_after, Instant::now()),
        watchers: 0,
        watchers_due: None,
        published_at: tokio::time::Instant::now(),
        engine_asked: None,
        engine_status: None,
        engine_failures: 0,
        analysis,
        chat,
        chat_out,
        reviews_running: 0,
        closed: false,
        idle_since: None,
        climb_due: climb.is_some() && game_over,
        climb,
    };
    actor.publish();
    actor.publish_chat();
    tokio::spawn(async move {
        actor.run(rx).await;
        actor.shared.lobby.remove(actor.room.id());
        on_exit(actor.room.id());
    });
    RoomHandle {
        tx,
        state: state_rx,
        chat: chat_rx,
        engine_room,
    }
}

impl Actor {
    async fn run(&mut self, mut rx: mpsc::Receiver<ToRoom>) {
        self.ask_engine();
        let every = (self.shared.idle_after / 2).min(Duration::from_secs(30));
        let mut idle_check = tokio::time::interval(every);
        while !self.closed {
            let deadline = self.room.deadline().map(tokio::time::Instant::from_std);
            // The moment a player may claim the game the other left: the
            // pages are told.
            let claim_opens = (self.room.phase() == Phase::Playing)
                .then(|| self.presence.next_claim(Instant::now()))
                .flatten()
                .map(tokio::time::Instant::from_std);
            tokio::select! {
                request = rx.recv() => match request {
                    Some(request) => self.handle(request).await,
                    None => break,
                },
                _ = sleep_until(claim_opens), if claim_opens.is_some() => self.publish(),
                _ = sleep_until(self.watchers_due), if self.watchers_due.is_some() => self.publish(),
                _ = sleep_until(deadline), if deadline.is_some() => {
                    if self.check_time(Instant::now()).await.is_err() {
                        // The store refused the result: the room is as it
                        // was, so the deadline fires again; not at once,
                        // and the wait is the server's, not the player's.
                        tokio::time::sleep(STORE_RETRY).await;
                        self.room.give_back(STORE_RETRY);
                    }
                }
                _ = idle_check.tick() => match self.idle_too_long() {
                    Some(WhenIdle::Leaves) => break,
                    Some(WhenIdle::Closes) => {
                        if let Err(e) = self.close(0).await {
                            eprintln!("bashni serve: room {}: {e}", self.room.id());
                        }
                    }
                    None => {}
                },
            }
            if self.climb_due {
                self.climb_on().await;
            }
            self.ask_engine();
        }
    }

    async fn handle(&mut self, request: ToRoom) {
        match request {
            ToRoom::Attach { seat, reply } => {
                let full = seat.is_none() && self.watchers >= self.shared.watchers_per_room;
                let _ = reply.send(match full {
                    true => Err("the room has as many watchers as it takes".into()),
                    false => {
                        self.attach(seat, 1);
                        Ok(())
                    }
                });
            }
            ToRoom::Detach { seat } => self.attach(seat, -1),
            ToRoom::Authenticate { token, reply } => {
                let _ = reply.send(self.room.authenticate(&token));
            }
            ToRoom::Reissue { seat, token, reply } => {
                let _ = reply.send(self.reissue(seat, token).await);
            }
            ToRoom::Join { player, reply } => {
                let before = self.room.clone();
                let result = match self.room.join(player, Instant::now()) {
                    Ok(events) => self.commit(events, before).await.map(|()| 1),
                    Err(e) => Err(e.to_string()),
                };
                let _ = reply.send(result);
            }
            ToRoom::Act {
                seat,
                action,
                reply,
            } => {
                let _ = reply.send(self.act(seat, action).await);
            }
            ToRoom::Close { seat, reply } => {
                let _ = reply.send(self.close(seat).await);
            }
            ToRoom::Analyse { reply } => {
                let _ = reply.send(self.analyse());
            }
            ToRoom::EngineThinking { at } => {
                if self.engine_asked == Some(at) {
                    self.engine_status = Some("thinking".into());
                    self.publish();
                }
            }
            ToRoom::Say { seat, text, reply } => {
                let _ = reply.send(self.say(seat, &text).await);
            }
            ToRoom::EngineAnswer { at, answer } => self.engine_answer(at, answer).await,
            ToRoom::AnalysisDone { analysis } => self.analysis_done(analysis).await,
        }
    }

    /// Store `token`'s hash for `seat`, then seat only it.
    async fn reissue(&mut self, seat: u8, token: SeatToken) -> Result<(), String> {
        let hash = token.hash();
        let mut after = self.room.clone();
        after
            .reissue(seat, hash.clone())
            .map_err(|e| e.to_string())?;
        let write = Write::SeatToken {
            room_id: self.room.id().to_owned(),
            seat,
            token_hash: hash,
        };
        self.shared
            .writer
            .write(write)
            .await
            .map_err(|e| format!("cannot store the seat's token: {e}"))?;
        self.room = after;
        Ok(())
    }

    /// A page opened on the room (`delta` 1) or left it (-1): a seat's
    /// is shown at once (the players' dots and claims), a watcher's with
    /// the next state, at most [`WATCHERS_SHOWN_AFTER`] later. A watcher
    /// opening while a clock runs is first sent the last state, whose
    /// clocks are as old as it is: a new one follows at once if that
    /// state is [`WATCHERS_SHOWN_AFTER`] old (states still go out at
    /// most that often for watchers coming and going).
    fn attach(&mut self, seat: Option<u8>, delta: isize) {
        match seat {
            Some(seat) => {
                self.presence.count(seat, delta, Instant::now());
                self.publish();
            }
            None => {
                self.watchers = self.watchers.saturating_add_signed(delta);
                let now = tokio::time::Instant::now();
                let clock_runs =
                    self.room.phase() == Phase::Playing && self.room.config().clock.is_some();
                let due = match delta > 0 && clock_runs {
                    true => (self.published_at + WATCHERS_SHOWN_AFTER).max(now),
                    false => now + WATCHERS_SHOWN_AFTER,
                };
                self.watchers_due = Some(self.watchers_due.map_or(due, |d| d.min(due)));
            }
        }
    }

    async fn act(&mut self, seat: u8, action: Action) -> Result<(), String> {
        let now = Instant::now();
        if self.climb.is_some() {
            match action {
                Action::Abort => return Err(RUN_GOES_ON.into()),
                Action::Rematch => return self.next_rival(seat, now).await,
                _ => {}
            }
        }
        // A flag that fell before this action came ends the game first:
        // a lost game is not drawn, resigned or taken back after the fact.
        self.check_time(now).await?;
        let before = self.room.clone();
        let claim_wait = self.claim_in(seat, now);
        let room = &mut self.room;
        let result = match action {
            Action::Move(text) => room.play(seat, &text, now),
            Action::Resign => room.resign(seat, now),
            Action::Abort => room.abort(seat, now),
            Action::OfferDraw => room.offer_draw(seat, now),
            Action::AcceptDraw => room.accept_draw(seat, now),
            Action::DeclineDraw => room.decline_draw(seat),
            Action::Takeback => room.request_takeback(seat),
            Action::AcceptTakeback => room.accept_takeback(seat, now),
            Action::DeclineTakeback => room.decline_takeback(seat),
            Action::Rematch => room.offer_rematch(seat, now),
            Action::DeclineRematch => room.decline_rematch(seat),
            Action::Claim(won) => match claim_wait {
                Some(wait) if wait.is_zero() => room.claim(seat, won, now),
                Some(wait) => return Err(claim_too_soon(wait)),
                // Why there is nothing to claim: no game, no first moves
                // yet, or the opponent is here.
                None => room.may_claim(seat).and(Err(RoomError::OpponentHere)),
            },
        };
        let events = result.map_err(|e: RoomError| e.to_string())?;
        self.commit(events, before).await?;
        self.answer_engine_offers(now).await;
        Ok(())
    }

    /// What `seat` may do now: what the room allows, less what a ladder
    /// run refuses ([`RUN_GOES_ON`]); in a run, the rematch is the next
    /// rival's game ([`Actor::may_meet_next_rival`]); a claim once its
    /// wait (`claim_in`, [`Actor::claim_in`]) is over.
    fn allowed(&self, seat: u8, claim_in: Option<Duration>) -> Allowed {
        let allowed = Allowed {
            claim: claim_in == Some(Duration::ZERO),
            ..self.room.allowed(seat)
        };
        match self.climb {
            Some(_) => Allowed {
                abort: false,
                rematch: self.may_meet_next_rival(seat).is_ok(),
                ..allowed
            },
            None => allowed,
        }
    }

    /// How long `seat` waits at `now` before it may claim the game its
    /// opponent left (zero once it may); `None` while the opponent is
    /// here or the game is none to claim.
    fn claim_in(&self, seat: u8, now: Instant) -> Option<Duration> {
        self.room.may_claim(seat).ok()?;
        self.presence.claim_in(seat, now)
    }

    /// Whether the player in `seat` may start the next game of the run:
    /// the last one is over, counted and won. The start position, if so.
    fn may_meet_next_rival(&self, seat: u8) -> Result<String, String> {
        let climb = self.climb.as_ref().ok_or("not a ladder run")?;
        if self.room.player(seat).is_none_or(|p| p.engine) {
            return Err("only the player starts the next game".into());
        }
        if !matches!(self.room.phase(), Phase::Over(_)) || !climb.has_recorded(self.room.game_no())
        {
            return Err("the game is not over yet".into());
        }
        climb
            .next_start()
            .ok_or_else(|| "the run is over: start a new run".into())
    }

    /// The player asks for the next rival: its game starts now, from its
    /// handicap, the player's thinking time counting from here.
    async fn next_rival(&mut self, seat: u8, now: Instant) -> Result<(), String> {
        let fen = self.may_meet_next_rival(seat)?;
        let before = self.room.clone();
        let events = self
            .room
            .next_game_from(&fen, now)
            .map_err(|e| e.to_string())?;
        self.commit(events, before).await
    }

    /// An engine seat takes up the rematch the person asked for (draw
    /// offers and takebacks never reach it: the room refuses them).
    async fn answer_engine_offers(&mut self, now: Instant) {
        let Some(seat) = self.engine_seat() else {
            return;
        };
        let asked = self.room.rematch_requests()[usize::from(1 - seat)];
        if !asked || !matches!(self.room.phase(), Phase::Over(_)) {
            return;
        }
        let before = self.room.clone();
        if let Ok(events) = self.room.offer_rematch(seat, now) {
            let _ = self.commit(events, before).await;
        }
    }

    async fn close(&mut self, seat: u8) -> Result<(), String> {
        if seat != 0 || self.room.phase() != Phase::Waiting {
            return Err("only the creator may close a room nobody has joined".into());
        }
        let id = self.room.id().to_owned();
        self.shared
            .writer
            .write(Write::CloseRoom { room_id: id })
            .await
            .map_err(|e| format!("cannot close the room: {e}"))?;
        self.closed = true;
        Ok(())
    }

    /// What becomes of the room now, if it has been idle for
    /// `--idle-seconds`.
    fn idle_too_long(&mut self) -> Option<WhenIdle> {
        let timed = self.room.config().clock.is_some();
        let idle = when_idle(
            self.room.phase(),
            timed,
            self.watchers,
            self.presence.pages(),
        );
        // A running analysis answers this task when done, to be stored:
        // the room stays until then.
        let Some(when) = idle.filter(|_| !self.analysis_running()) else {
            self.idle_since = None;
            return None;
        };
        let since = *self.idle_since.get_or_insert_with(Instant::now);
        (since.elapsed() >= self.shared.idle_after).then_some(when)
    }

    /// End the game if a clock has run out at `now`, stored before shown.
    async fn check_time(&mut self, now: Instant) -> Result<(), String> {
        let before = self.room.clone();
        let events = self.room.check_time(now);
        self.commit(events, before).await
    }

    /// Store `events` through the writer, all or none, then publish. If
    /// the store refuses, the room goes back to `before` (and the store
    /// is as it was), and the side to move is not charged the time the
    /// store took to refuse (up to 5 s when the database does not
    /// answer: a player trying to move through an outage lost on time).
    async fn commit(&mut self, events: Vec<Event>, before: Room) -> Result<(), String> {
        if events.is_empty() {
            return Ok(());
        }
        let asked = Instant::now();
        let stored = match self.work_of_all(&events) {
            Ok(work) => self
                .shared
                .writer
                .submit(work)
                .await
                .map_err(|e| e.to_string()),
            Err(e) => Err(e),
        };
        if let Err(e) = stored {
            if !self.stored_after_all(&events).await {
                return Err(self.refused(before, &e, asked.elapsed()));
            }
            eprintln!(
                "bashni serve: room {}: {e}, yet stored: played",
                self.room.id()
            );
        }
        for event in &events {
            match event {
                Event::GameStarted { .. } => self.analysis = None,
                Event::GameOver { .. } => self.climb_due = self.climb.is_some(),
                _ => {}
            }
        }
        // A move alone in a game that goes on changes only the turn.
        let only_a_move = matches!(events.as_slice(), [Event::Moved { .. }])
            && self.room.phase() == Phase::Playing;
        self.publish_as(only_a_move);
        Ok(())
    }

    /// Whether the writes of `events` are in the store although it said
    /// no: a commit whose answer was lost (the connection dropped after
    /// the database took it) looks refused. Put back, the room would be
    /// behind its own store for good: every later move of the game
    /// refused as "stored already" until the mover lost on time. Told by
    /// the first event that leaves a mark of its own: the writes of one
    /// action are stored together or not at all.
    async fn stored_after_all(&self, events: &[Event]) -> bool {
        let Some(mark) = events.iter().find_map(StoredMark::of) else {
            return false;
        };
        let stored = self
            .shared
            .store
            .stored_game(self.room.id(), mark.game_no())
            .await;
        match stored {
            Ok(Some(room)) => room.games.first().is_some_and(|game| mark.is_in(game)),
            _ => false,
        }
    }

    /// The store refused `why` after `waited`: the room goes back to
    /// `before`, its side to move given the wait back.
    fn refused(&mut self, before: Room, why: &str, waited: Duration) -> String {
        eprintln!("bashni serve: room {}: {why}", self.room.id());
        self.room = before;
        self.room.give_back(waited);
        self.publish();
        format!("not stored, not played: {why}")
    }

    /// Send the room's state to every viewer and its line to the lobby.
    fn publish(&mut self) {
        self.publish_as(false);
    }

    /// [`Actor::publish`]; `after_move`: a move is all that changed since
    /// the last state, so viewers who have that one get only the change.
    fn publish_as(&mut self, after_move: bool) {
        self.seq += 1;
        self.watchers_due = None;
        self.published_at = tokio::time::Instant::now();
        // One instant for the clocks and the run's thinking: the page
        // counts both on from the state's arrival.
        let now = Instant::now();
        let online = self.presence.pages().map(|n| n > 0);
        let extras = Extras {
            seq: self.seq,
            online,
            watchers: self.watchers,
            analysis: self.analysis.as_ref(),
            may_analyse: self.analysis_refused().is_none() && !self.analysed(),
            ladder: self
                .climb
                .as_ref()
                .map(|climb| climb.view(self.room.thinking_ms_at(Colour::White, now))),
        };
        let seats = [Colour::White, Colour::Black].map(|c| self.room.seat_of(c));
        let claim_in = seats.map(|seat| self.claim_in(seat, now));
        let may = [0, 1].map(|i| self.allowed(seats[i], claim_in[i]));
        let turn = TurnView::of(&self.room, may, claim_in, self.engine_status.clone(), now);
        let whole = serde_json::to_string(&RoomView::of(&self.room, extras, &turn));
        let change = after_move
            .then(|| serde_json::to_string(&RoomMove::of(&self.room, self.seq, &turn)))
            .transpose();
        match (whole, change) {
            (Ok(whole), Ok(change)) => {
                self.state.send_replace(Published {
                    seq: self.seq,
                    whole: Json::from(whole),
                    after_move: change.map(Json::from),
                    phase: self.room.phase(),
                });
            }
            (Err(e), _) | (_, Err(e)) => eprintln!("bashni serve: room {}: {e}", self.room.id()),
        }
        self.update_lobby();
    }

    /// List the room in the lobby, or take it off: a link-only, ladder,
    /// finished or closed room is not listed, nor is an open game whose
    /// creator has no page on it (a closed tab, a lost connection), so
    /// nobody joins a clock against an absent player; it comes back when
    /// the creator does.
    fn update_lobby(&self) {
        let room = &self.room;
        let creator_away = room.phase() == Phase::Waiting && self.presence.pages()[0] == 0;
        let listed = !matches!(room.config().opponent, Opponent::LinkOnly)
            && self.climb.is_none()
            && !matches!(room.phase(), Phase::Over(_))
            && !self.closed
            && !creator_away;
        if !listed {
            self.shared.lobby.remove(room.id());
            return;
        }
        let players = [Colour::White, Colour::Black]
            .map(|colour| room.player(room.seat_of(colour)).map(|p| p.name.clone()));
        self.shared.lobby.put(LobbyRoom {
            id: room.id().to_owned(),
            config: ConfigView::of(room.config()),
            players,
            watchers: self.watchers,
            phase: phase_name(room.phase()),
            from_position: room.from_set_position(),
        });
    }

    /// A ladder game has ended: record it for the run and store the run.
    /// The next rival's game waits for the player to ask for it
    /// ([`Actor::next_rival`]): the result is seen, and the time to
    /// look at it is not counted.
    async fn climb_on(&mut self) {
        self.climb_due = false;
        let Phase::Over(outcome) = self.room.phase() else {
            return;
        };
        let think_ms = self.room.thinking_ms(Colour::White);
        let game_no = self.room.game_no();
        let Some(climb) = &mut self.climb else {
            return;
        };
        // A room brought back after a crash may have its game counted by
        // the run already (the run's row was stored): count it once.
        if !climb.has_recorded(game_no) {
            climb.record(outcome.winner, think_ms);
            let record = climb.record.clone();
            let stored = self
                .shared
                .writer
                .write(Write::Run {
                    run: record,
                    now_ms: unix_ms_now(),
                })
                .await;
            if let Err(e) = stored {
                eprintln!("bashni serve: ladder run {}: {e}", climb.record.id);
            }
        }
        self.publish();
    }
}

/// Why a claim came too soon: the opponent may still come back for
/// `wait`.
fn claim_too_soon(wait: Duration) -> String {
    format!(
        "your opponent may still come back: you may claim in {} s",
        wait.as_secs_f64().ceil()
    )
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::serve::room::{EndReason, Outcome};

    #[test]
    fn an_idle_room_leaves_memory_or_closes_by_its_phase() {
        let over = Phase::Over(Outcome {
            winner: None,
            reason: EndReason::DrawAgreed,
        });
        assert_eq!(when_idle(over, true, 0, [0, 0]), Some(WhenIdle::Leaves));
        assert_eq!(when_idle(over, true, 1, [0, 0]), None, "someone watches");
        assert_eq!(when_idle(over, true, 0, [0, 1]), None, "a player looks");
        assert_eq!(
            when_idle(Phase::Waiting, false, 3, [0, 0]),
            Some(WhenIdle::Closes),
            "a waiting room whose creator went away, watched or not"
        );
        assert_eq!(when_idle(Phase::Waiting, false, 0, [1, 0]), None);
        assert_eq!(
            when_idle(Phase::Playing, true, 0, [0, 0]),
            None,
            "a game with a clock ends by itself"
        );
        assert_eq!(
            when_idle(Phase::Playing, false, 0, [0, 0]),
            Some(WhenIdle::Leaves),
            "a game without a clock that its players left waits in the database"
        );
        assert_eq!(
            when_idle(Phase::Playing, false, 1, [0, 0]),
            None,
            "someone watches"
        );
    }
}
