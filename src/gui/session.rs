//! One page's session: its game, its settings and its own engine process.
//!
//! The session decides what the engine should be doing (nothing, finding a
//! move, or analysing) after every change, and gets there over the
//! protocol: a running search that no longer fits is stopped, and its late
//! `bestmove` is awaited and dropped before the next `go`, so no answer is
//! ever taken for the wrong position.

use super::game::Game;
use super::messages::{
    ClientMessage, EngineStatus, GameView, Mode, OptionRanges, PvLine, ServerMessage, Settings,
    Side, option_ranges,
};
use bashni_host::asynchronous::{Engine, EngineEvent};
use bashni_host::clock::{Charge, Clocks};
use bashni_host::info::Info;
use bashni_host::protocol::{Command, Event, Go};
use bashni_host::spec::EngineSpec;
use bashni_rules::ParseRuleError;
use bashni_rules::{Colour, Variant};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// What a search is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Purpose {
    /// The engine's move in `Play` mode.
    Move,
    /// `go infinite` in `Analysis` mode.
    Analyse,
}

/// The search the engine is running: what for, and on which position.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Search {
    purpose: Purpose,
    position: Command,
    ply: usize,
    white_to_move: bool,
}

pub struct Session {
    spec: EngineSpec,
    game: Game,
    settings: Settings,
    engine: Option<Engine>,
    /// Why the engine is not used, until the user restarts it.
    engine_error: Option<String>,
    generation: u64,
    events: mpsc::UnboundedSender<EngineEvent>,
    search: Option<Search>,
    lines: Vec<PvLine>,
    /// The ply the lines belong to.
    lines_ply: usize,
    lines_dirty: bool,
    evals: Vec<Option<i32>>,
    /// The game clock, in `Play` mode with a time control.
    clocks: Option<Clocks>,
    /// When the side to move's clock started running.
    turn_started: Instant,
    /// The side whose time ran out; the game is over.
    lost_on_time: Option<Colour>,
    /// Option values the engine has been sent, to send only changes.
    sent: Vec<(String, String)>,
    outbox: Vec<ServerMessage>,
}

impl Session {
    /// A new session with its engine started. The engine's lines arrive on
    /// `inbox`, which the caller polls and hands back to `on_engine`.
    pub async fn start(
        spec: EngineSpec,
        events: mpsc::UnboundedSender<EngineEvent>,
        inbox: &mut mpsc::UnboundedReceiver<EngineEvent>,
    ) -> Session {
        let mut session = Session {
            spec,
            game: Game::start(Variant::Bashni),
            settings: Settings::default(),
            engine: None,
            engine_error: None,
            generation: 0,
            events,
            search: None,
            lines: Vec::new(),
            lines_ply: 0,
            lines_dirty: false,
            evals: vec![None],
            clocks: None,
            turn_started: Instant::now(),
            lost_on_time: None,
            sent: Vec::new(),
            outbox: Vec::new(),
        };
        session.restart_engine(inbox).await;
        session
    }

    /// Messages to send to the page, oldest first.
    pub fn take_outbox(&mut self) -> Vec<ServerMessage> {
        if self.lines_dirty {
            self.lines_dirty = false;
            self.outbox.push(ServerMessage::Analysis {
                ply: self.lines_ply,
                lines: self.lines.clone(),
            });
        }
        std::mem::take(&mut self.outbox)
    }

    /// Handle one message of the page (JSON text).
    pub async fn on_client(
        &mut self,
        text: &str,
        inbox: &mut mpsc::UnboundedReceiver<EngineEvent>,
    ) {
        let applied = match serde_json::from_str::<ClientMessage>(text) {
            Ok(message) => self.apply(message, inbox).await,
            Err(e) => Err(format!("bad request: {e}")),
        };
        if let Err(e) = applied {
            self.error(e);
        }
        self.steer_engine().await;
        self.push_state();
    }

    async fn apply(
        &mut self,
        message: ClientMessage,
        inbox: &mut mpsc::UnboundedReceiver<EngineEvent>,
    ) -> Result<(), String> {
        match message {
            ClientMessage::NewGame { variant, fen } => {
                self.game = Game::from_fen(
                    variant.parse().map_err(|e: ParseRuleError| e.to_string())?,
                    fen.as_deref(),
                )?;
                self.evals = vec![None];
                self.reset_clocks();
            }
            ClientMessage::Move { text } => self.play(&text)?,
            ClientMessage::Line { moves } => {
                for text in &moves {
                    self.play(text)?;
                }
            }
            ClientMessage::GoTo { ply } => self.game.go_to(ply),
            ClientMessage::Settings(settings) => {
                settings.check(&self.option_ranges())?;
                let reset =
                    (settings.mode, settings.clock) != (self.settings.mode, self.settings.clock);
                self.settings = settings;
                if reset {
                    self.reset_clocks();
                }
            }
            ClientMessage::Restart => self.restart_engine(inbox).await,
            ClientMessage::ExportPdn => {
                let text = self.pdn();
                self.outbox.push(ServerMessage::Pdn { text });
            }
            ClientMessage::ImportPdn { text } => {
                self.game = Game::from_pdn(&text)?;
                self.evals = vec![None; self.game.move_count() + 1];
                self.reset_clocks();
            }
        }
        Ok(())
    }

    /// Play a move on the board position; later evaluations belong to the
    /// line this replaces.
    fn play(&mut self, text: &str) -> Result<(), String> {
        if let Some(side) = self.lost_on_time {
            return Err(format!("the game is over ({side} lost on time)"));
        }
        let mover = self.game.current().side_to_move();
        let clock_runs = self.game.at_end();
        self.game.play(text)?;
        if let Some(clocks) = self.clocks.as_mut().filter(|_| clock_runs) {
            // The page's clock has no grace: the board is its own host, with
            // no pipe between the mover and the clock.
            let thought = self.turn_started.elapsed();
            if clocks.charge(mover, thought, Duration::ZERO) == Charge::Flagged {
                self.lost_on_time = Some(mover);
            }
            self.turn_started = Instant::now();
        }
        self.evals.truncate(self.game.cursor());
        self.evals.resize(self.game.cursor() + 1, None);
        Ok(())
    }

    /// Start the clocks afresh (or stop them) for a new game or settings.
    fn reset_clocks(&mut self) {
        self.lost_on_time = None;
        self.turn_started = Instant::now();
        self.clocks = match (self.settings.mode, self.settings.clock) {
            (Mode::Play, Some(control)) => Some(Clocks::new(control)),
            _ => None,
        };
    }

    fn pdn(&self) -> String {
        let name = self.spec.name.as_str();
        let (white, black) = match (self.settings.mode, self.settings.engine_side) {
            (Mode::Play, Side::White) => (name, "human"),
            (Mode::Play, Side::Black) => ("human", name),
            _ => ("?", "?"),
        };
        self.game.to_pdn(white, black)
    }

    fn error(&mut self, message: String) {
        self.outbox.push(ServerMessage::Error { message });
    }

    /// Handle one event of the engine process.
    pub async fn on_engine(&mut self, event: EngineEvent) {
        match event {
            EngineEvent::Line(g, line) if g == self.generation => self.on_line(&line).await,
            EngineEvent::Exited(g) if g == self.generation => self.on_exit().await,
            _ => {}
        }
    }

    /// A line of the engine, as its client reads it.
    async fn on_line(&mut self, line: &str) {
        let Some(event) = self.engine.as_mut().and_then(|e| e.feed(line)) else {
            return;
        };
        match event {
            Event::EngineError(error) => self.error(format!("engine: {error}")),
            Event::Info(info) => self.on_info(info),
            Event::BestMove(best) => self.on_bestmove(&best.text).await,
            Event::StaleBestMove => {
                self.steer_engine().await;
                self.push_state();
            }
            Event::UciOk | Event::ReadyOk { .. } => {}
        }
    }

    fn on_info(&mut self, info: Info) {
        let Some(search) = self.search.as_ref() else {
            return;
        };
        let Some(pv) = PvLine::from_info(info, search.white_to_move) else {
            return;
        };
        if let Some(eval) = self.evals.get_mut(search.ply).filter(|_| pv.multipv == 1) {
            *eval = Some(pv.cp);
        }
        // A root move stands in one line only: an engine that re-sorts its
        // lines (as Stockfish does) moves a root move from one line number
        // to another between depths, and its old line must go.
        let first = pv.pv.first().cloned();
        self.lines
            .retain(|l| l.multipv != pv.multipv && l.pv.first() != first.as_ref());
        self.lines.push(pv);
        self.lines.sort_by_key(|l| l.multipv);
        self.lines_dirty = true;
    }

    async fn on_bestmove(&mut self, best: &str) {
        if let Some(search) = self.search.take()
            && search.purpose == Purpose::Move
        {
            self.take_engine_move(best);
        }
        self.steer_engine().await;
        self.push_state();
    }

    /// Check the engine's move with the rules; a bad one is reported and the
    /// engine is no longer asked until it is restarted.
    fn take_engine_move(&mut self, best: &str) {
        if let Err(e) = self.play(best) {
            let why = format!("engine played an illegal move '{best}': {e}");
            self.engine_error = Some(why.clone());
            self.error(why);
        }
    }

    async fn on_exit(&mut self) {
        let how = match self.engine.as_mut() {
            Some(engine) => engine.exit_status().await,
            None => "stopped".into(),
        };
        let during = if self.search.is_some() {
            " during a search"
        } else {
            ""
        };
        let why = format!("engine {how}{during}; the game is kept, restart the engine to go on");
        self.engine = None;
        self.search = None;
        self.engine_error = Some(why.clone());
        self.error(why);
        self.push_state();
    }

    /// Replace the engine process by a fresh one.
    async fn restart_engine(&mut self, inbox: &mut mpsc::UnboundedReceiver<EngineEvent>) {
        if let Some(engine) = self.engine.take() {
            engine.shut_down().await;
        }
        self.generation += 1;
        self.search = None;
        self.sent.clear();
        let setup = &self.spec.options;
        let events = self.events.clone();
        let started = Engine::start(&self.spec, self.generation, setup, events, inbox).await;
        match started {
            Ok(engine) => {
                self.engine = Some(engine);
                self.engine_error = None;
            }
            Err(e) => {
                let why = format!("engine {e}");
                self.engine_error = Some(why.clone());
                self.error(why);
            }
        }
    }

    /// The search the settings and the board call for, if any.
    fn wanted_search(&self) -> Option<Search> {
        if self.engine.is_none()
            || self.engine_error.is_some()
            || self.lost_on_time.is_some()
            || self.game.result().is_some()
        {
            return None;
        }
        let white_to_move = self.game.current().side_to_move() == Colour::White;
        let engine_to_move = match self.settings.engine_side {
            Side::White => white_to_move,
            Side::Black => !white_to_move,
        };
        let purpose = match self.settings.mode {
            Mode::Analysis => Purpose::Analyse,
            Mode::Play if engine_to_move && self.game.at_end() => Purpose::Move,
            _ => return None,
        };
        Some(Search {
            purpose,
            position: self.game.position_command(),
            ply: self.game.cursor(),
            white_to_move,
        })
    }

    /// Bring the engine to the search that is wanted now: a running search
    /// that no longer fits is stopped (its client drops its late answer),
    /// and a new one starts once the engine is free.
    async fn steer_engine(&mut self) {
        let wanted = self.wanted_search();
        if self.search.is_some() && self.search != wanted {
            self.search = None;
            if let Some(engine) = self.engine.as_mut() {
                let _ = engine.stop().await;
            }
        }
        let free = self.engine.as_ref().is_some_and(|e| e.client().can_go());
        if self.search.is_none()
            && free
            && let Some(search) = wanted
        {
            self.start_search(search).await;
        }
    }

    async fn start_search(&mut self, search: Search) {
        self.set_option("UCI_Variant", &self.game.variant().to_string())
            .await;
        for (name, value) in self.search_options(search.purpose) {
            self.set_option(name, &value.to_string()).await;
        }
        let go = match search.purpose {
            Purpose::Analyse => Go::Infinite,
            Purpose::Move => match &self.clocks {
                Some(clocks) => {
                    let mover = self.game.current().side_to_move();
                    clocks.go_while(mover, self.turn_started.elapsed())
                }
                None => Go::MoveTime(self.settings.movetime_ms),
            },
        };
        if let Some(engine) = self.engine.as_mut() {
            // A failed write means the engine is gone, which its closed
            // output reports.
            let _ = engine.go(search.position.clone(), go).await;
        }
        self.lines.clear();
        self.lines_ply = search.ply;
        self.lines_dirty = true;
        self.search = Some(search);
    }

    /// The engine options to set for a search: the page's, with one line
    /// at full strength for analysis and at the chosen skill for a move.
    fn search_options(&self, purpose: Purpose) -> Vec<(&'static str, i64)> {
        let ranges = self.option_ranges();
        let full = ranges.get("Skill Level").map(|r| r.max);
        let mut settings = self.settings;
        match purpose {
            Purpose::Analyse => settings.skill = full,
            Purpose::Move => {
                settings.multipv = 1;
                settings.skill = settings.skill.or(full);
            }
        }
        (settings.engine_options().into_iter())
            .filter_map(|(name, value)| Some((name, value?)))
            .collect()
    }

    /// The ranges of the page's options, as the running engine declared
    /// them (none without an engine), with a value `--engine` set as the
    /// default the page shows, since the engine starts with it.
    fn option_ranges(&self) -> OptionRanges {
        let Some(engine) = self.engine.as_ref() else {
            return OptionRanges::new();
        };
        let mut ranges = option_ranges(engine.client());
        for (name, value) in &self.spec.options {
            let range = ranges
                .iter_mut()
                .find(|(n, _)| n.eq_ignore_ascii_case(name));
            if let (Some((_, range)), Ok(value)) = (range, value.parse()) {
                range.default = value;
            }
        }
        ranges
    }

    /// Send an option the engine declared, when its value changes.
    async fn set_option(&mut self, name: &str, value: &str) {
        let declared = (self.engine.as_ref()).is_some_and(|e| e.client().option(name).is_some());
        let current = self.sent.iter().find(|(n, _)| n == name);
        if !declared || current.is_some_and(|(_, v)| v == value) {
            return;
        }
        self.sent.retain(|(n, _)| n != name);
        self.sent.push((name.to_string(), value.to_string()));
        if let Some(engine) = self.engine.as_mut() {
            // A failed write means the engine is gone, which its closed
            // output reports.
            let _ = engine.send(&Command::set_option(name, value)).await;
        }
    }

    /// Queue the whole picture for the page.
    pub fn push_state(&mut self) {
        let status = match (&self.engine, &self.search) {
            (None, _) => EngineStatus::Stopped,
            (Some(_), None) => EngineStatus::Idle,
            (Some(_), Some(s)) if s.purpose == Purpose::Move => EngineStatus::Thinking,
            (Some(_), Some(_)) => EngineStatus::Analysing,
        };
        let cursor = self.game.cursor();
        let moves = self.game.moves();
        let view = GameView {
            variant: self.game.variant().to_string(),
            start_fen: self.game.start_fen(),
            fen: self.game.current().to_fen(),
            moves: moves.iter().map(|m| m.text.clone()).collect(),
            cursor,
            last_move: cursor.checked_sub(1).map(|i| moves[i].clone()),
            legal: match self.lost_on_time {
                Some(_) => Vec::new(),
                None => self.game.legal_moves(),
            },
            result: match self.lost_on_time {
                Some(side) => Some(format!("{side} lost on time")),
                None => self.game.result().map(|r| r.1),
            },
            clocks_ms: (self.clocks.as_ref()).map(|c| {
                let mover = self.game.current().side_to_move();
                c.left_while(mover, self.turn_started.elapsed())
            }),
            evals: self.evals.clone(),
            settings: self.settings,
            engine_name: self.spec.name.clone(),
            engine_options: self.option_ranges(),
            engine_status: status,
            engine_error: self.engine_error.clone(),
        };
        self.outbox.push(ServerMessage::State(Box::new(view)));
    }

    /// End the engine when the page goes away.
    pub async fn close(mut self) {
        if let Some(engine) = self.engine.take() {
            engine.shut_down().await;
        }
    }
}
