//! The protocol core, without any I/O: the commands a host sends, and
//! [`Client`], a state machine fed the engine's lines one by one that
//! says what they mean (handshake results, search reports, the answer to
//! `go`) and keeps track of what the engine is doing. The process
//! wrappers only move lines between it and a pipe.

use crate::info::Info;
use crate::options::EngineOption;
use std::fmt;
use std::time::Duration;

/// How long `uci` -> `uciok` and `isready` -> `readyok` may take unless
/// the host says otherwise.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// A command to the engine; `Display` gives the line to send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `uci`: start the handshake.
    Uci,
    /// `isready`: answered by `readyok` once the engine has caught up.
    IsReady,
    /// `ucinewgame`: forget the previous game.
    NewGame,
    /// `setoption name <name> value <value>`.
    SetOption {
        /// The option's name.
        name: String,
        /// Its new value.
        value: String,
    },
    /// `position fen <fen> [moves ...]`.
    Position {
        /// The position before the moves.
        fen: String,
        /// Moves played from it, in the protocol's notation.
        moves: Vec<String>,
    },
    /// `go ...`.
    Go(Go),
    /// `stop`: end the running search; it still answers `bestmove`.
    Stop,
    /// `quit`.
    Quit,
}

impl Command {
    /// `setoption` for a name and value.
    pub fn set_option(name: impl Into<String>, value: impl Into<String>) -> Command {
        Command::SetOption {
            name: name.into(),
            value: value.into(),
        }
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Uci => write!(f, "uci"),
            Command::IsReady => write!(f, "isready"),
            Command::NewGame => write!(f, "ucinewgame"),
            Command::SetOption { name, value } => write!(f, "setoption name {name} value {value}"),
            Command::Position { fen, moves } => {
                write!(f, "position fen {fen}")?;
                if !moves.is_empty() {
                    write!(f, " moves {}", moves.join(" "))?;
                }
                Ok(())
            }
            Command::Go(go) => write!(f, "{go}"),
            Command::Stop => write!(f, "stop"),
            Command::Quit => write!(f, "quit"),
        }
    }
}

/// What a search is limited by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Go {
    /// Both clocks, in milliseconds (see `clock::Clocks::go`).
    Clock {
        /// White's time left.
        wtime: u64,
        /// Black's time left.
        btime: u64,
        /// White's increment.
        winc: u64,
        /// Black's increment (another than White's under time odds).
        /// Both are sent unless both are zero.
        binc: u64,
        /// Moves to the end of the period, if the clock has periods.
        moves_to_go: Option<u32>,
    },
    /// A fixed time, in milliseconds.
    MoveTime(u64),
    /// A fixed depth.
    Depth(u32),
    /// A fixed number of nodes.
    Nodes(u64),
    /// A fixed depth, stopped early after this many nodes.
    DepthWithin {
        /// The plies to search.
        depth: u32,
        /// The most nodes to spend.
        nodes: u64,
    },
    /// Until `stop`.
    Infinite,
}

impl fmt::Display for Go {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Go::Clock {
                wtime,
                btime,
                winc,
                binc,
                moves_to_go,
            } => {
                write!(f, "go wtime {wtime} btime {btime}")?;
                if winc > 0 || binc > 0 {
                    write!(f, " winc {winc} binc {binc}")?;
                }
                match moves_to_go {
                    Some(n) => write!(f, " movestogo {n}"),
                    None => Ok(()),
                }
            }
            Go::MoveTime(ms) => write!(f, "go movetime {ms}"),
            Go::Depth(d) => write!(f, "go depth {d}"),
            Go::Nodes(n) => write!(f, "go nodes {n}"),
            Go::DepthWithin { depth, nodes } => write!(f, "go depth {depth} nodes {nodes}"),
            Go::Infinite => write!(f, "go infinite"),
        }
    }
}

/// The answer to `go`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BestMove {
    /// The move text after `bestmove` (empty if there was none); checked by
    /// the caller, never trusted.
    pub text: String,
    /// The move after `ponder`, if given.
    pub ponder: Option<String>,
}

/// What a line of the engine meant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// `uciok`: the engine's name and options are known.
    UciOk,
    /// `readyok`, with the errors the engine reported since the `isready`
    /// (the options it refused, after a setup).
    ReadyOk {
        /// The texts of its `info string error` lines.
        errors: Vec<String>,
    },
    /// An error the engine reported (`info string error: ...`).
    EngineError(String),
    /// A report of the running search.
    Info(Info),
    /// The answer to the running search.
    BestMove(BestMove),
    /// The late answer of a stopped search, dropped: the engine is free
    /// for the next `go`.
    StaleBestMove,
}

/// What the engine is doing, as far as the host knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Nothing sent yet.
    New,
    /// `uci` sent, `uciok` awaited.
    Handshake,
    /// Nothing running.
    Idle,
    /// A search runs.
    Searching,
}

/// The host's side of one engine's protocol, without I/O: feed it every
/// line the engine sends ([`Client::feed`]), and send the commands its
/// methods give.
#[derive(Clone, Debug)]
pub struct Client {
    phase: Phase,
    name: Option<String>,
    author: Option<String>,
    options: Vec<EngineOption>,
    /// `isready` sent and not yet answered.
    readying: u32,
    /// Errors reported since the last `isready`.
    errors: Vec<String>,
    /// `bestmove` lines still owed by searches that were stopped.
    stale: u32,
}

impl Default for Client {
    fn default() -> Client {
        Client::new()
    }
}

impl Client {
    /// A client of an engine that has not been spoken to.
    pub fn new() -> Client {
        Client {
            phase: Phase::New,
            name: None,
            author: None,
            options: Vec::new(),
            readying: 0,
            errors: Vec::new(),
            stale: 0,
        }
    }

    /// Start the handshake: the command to send.
    pub fn start(&mut self) -> Command {
        self.phase = Phase::Handshake;
        Command::Uci
    }

    /// Ask whether the engine has caught up (after a setup, a new game).
    pub fn ready(&mut self) -> Command {
        self.readying += 1;
        self.errors.clear();
        Command::IsReady
    }

    /// Start a search: the commands to send. A search still running (or a
    /// stopped one not yet answered) must be settled first: see
    /// [`Client::can_go`].
    pub fn go(&mut self, position: Command, go: Go) -> [Command; 2] {
        self.phase = Phase::Searching;
        [position, Command::Go(go)]
    }

    /// Stop the running search and drop its answer when it comes; `None`
    /// when nothing runs.
    pub fn stop(&mut self) -> Option<Command> {
        if self.phase != Phase::Searching {
            return None;
        }
        self.phase = Phase::Idle;
        self.stale += 1;
        Some(Command::Stop)
    }

    /// Whether a new search may start: the handshake is done, nothing runs
    /// and no stopped search still owes its answer.
    pub fn can_go(&self) -> bool {
        self.phase == Phase::Idle && self.stale == 0
    }

    /// What the engine is doing.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The name it gave (`id name`).
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// Its author (`id author`).
    pub fn author(&self) -> Option<&str> {
        self.author.as_deref()
    }

    /// The options it declared, in order.
    pub fn options(&self) -> &[EngineOption] {
        &self.options
    }

    /// The declared option of this name (names compare without case).
    pub fn option(&self, name: &str) -> Option<&EngineOption> {
        self.options
            .iter()
            .find(|o| o.name.eq_ignore_ascii_case(name))
    }

    /// Take one line of the engine (without its line end) and say what it
    /// meant; lines that mean nothing now give `None`.
    pub fn feed(&mut self, line: &str) -> Option<Event> {
        let line = line.trim();
        let first = line.split_whitespace().next()?;
        match first {
            "id" if self.phase == Phase::Handshake => self.on_id(line),
            "option" if self.phase == Phase::Handshake => self.on_option(line),
            "uciok" if self.phase == Phase::Handshake => {
                self.phase = Phase::Idle;
                Some(Event::UciOk)
            }
            "readyok" if self.readying > 0 => {
                self.readying -= 1;
                let errors = std::mem::take(&mut self.errors);
                Some(Event::ReadyOk { errors })
            }
            "info" => self.on_info(line),
            "bestmove" => self.on_bestmove(line),
            _ => None,
        }
    }

    fn on_id(&mut self, line: &str) -> Option<Event> {
        let rest = line.strip_prefix("id")?.trim_start();
        if let Some(name) = rest.strip_prefix("name ") {
            self.name = Some(name.trim().to_string());
        } else if let Some(author) = rest.strip_prefix("author ") {
            self.author = Some(author.trim().to_string());
        }
        None
    }

    fn on_option(&mut self, line: &str) -> Option<Event> {
        let option = EngineOption::parse(line)?;
        // A second declaration of a name replaces the first.
        (self.options).retain(|o| !o.name.eq_ignore_ascii_case(&option.name));
        self.options.push(option);
        None
    }

    fn on_info(&mut self, line: &str) -> Option<Event> {
        let info = Info::parse(line)?;
        if let Some(error) = info.error() {
            self.errors.push(error.to_string());
            return Some(Event::EngineError(error.to_string()));
        }
        // Reports of a stopped search are about a position no longer asked.
        (self.phase == Phase::Searching && self.stale == 0).then_some(Event::Info(info))
    }

    fn on_bestmove(&mut self, line: &str) -> Option<Event> {
        if self.stale > 0 {
            self.stale -= 1;
            return Some(Event::StaleBestMove);
        }
        if self.phase != Phase::Searching {
            // A second answer to one `go`: nothing asked for it.
            return None;
        }
        self.phase = Phase::Idle;
        let mut words = line.split_whitespace().skip(1);
        let text = words.next().unwrap_or("").to_string();
        let ponder = match (words.next(), words.next()) {
            (Some("ponder"), Some(mv)) => Some(mv.to_string()),
            _ => None,
        };
        Some(Event::BestMove(BestMove { text, ponder }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::info::Score;

    fn handshake() -> Client {
        let mut client = Client::new();
        assert_eq!(client.start().to_string(), "uci");
        for line in [
            "id name bashni 0.1",
            "id author someone",
            "option name Threads type spin default 1 min 1 max 1024",
            "option name Skill Level type spin default 20 min 0 max 20",
            "option name Ponder type check default false",
        ] {
            assert_eq!(client.feed(line), None, "{line}");
        }
        assert_eq!(client.feed("uciok"), Some(Event::UciOk));
        client
    }

    #[test]
    fn the_handshake_gives_the_name_and_the_options() {
        let client = handshake();
        assert_eq!(client.name(), Some("bashni 0.1"));
        assert_eq!(client.author(), Some("someone"));
        assert_eq!(client.options().len(), 3);
        let skill = client.option("skill level").and_then(EngineOption::range);
        assert_eq!(skill, Some((0, 20)));
        assert!(client.can_go());
    }

    #[test]
    fn refusals_come_with_readyok() {
        let mut client = handshake();
        let setup = client.ready();
        assert_eq!(setup, Command::IsReady);
        let refusal = "info string error: option Hash: 'lots' is not a number";
        let said = Some(Event::EngineError(
            "option Hash: 'lots' is not a number".into(),
        ));
        assert_eq!(client.feed(refusal), said);
        let Some(Event::ReadyOk { errors }) = client.feed("readyok") else {
            panic!("readyok");
        };
        assert_eq!(errors, ["option Hash: 'lots' is not a number"]);
        // A readyok nobody asked for means nothing.
        assert_eq!(client.feed("readyok"), None);
    }

    #[test]
    fn a_search_reports_and_answers() {
        let mut client = handshake();
        let position = Command::Position {
            fen: "W:a1w".into(),
            moves: vec!["a1-b2".into()],
        };
        let sent = client.go(position, Go::Depth(3));
        assert_eq!(sent[0].to_string(), "position fen W:a1w moves a1-b2");
        assert_eq!(sent[1].to_string(), "go depth 3");
        assert!(!client.can_go());
        let Some(Event::Info(info)) = client.feed("info depth 3 score cp 12 pv a1-b2") else {
            panic!("info");
        };
        assert_eq!(info.score, Some(Score::Cp(12)));
        let best = client.feed("bestmove c3-d4 ponder f6-g5");
        let expected = BestMove {
            text: "c3-d4".into(),
            ponder: Some("f6-g5".into()),
        };
        assert_eq!(best, Some(Event::BestMove(expected)));
        // A second answer, and reports when nothing runs, mean nothing.
        assert_eq!(client.feed("bestmove c3-d4"), None);
        assert_eq!(client.feed("info depth 4 score cp 1"), None);
        assert!(client.can_go());
    }

    #[test]
    fn a_stopped_search_owes_an_answer_that_is_dropped() {
        let mut client = handshake();
        assert_eq!(client.stop(), None);
        let _ = client.go(Command::NewGame, Go::Infinite);
        assert_eq!(client.stop(), Some(Command::Stop));
        assert!(!client.can_go());
        assert_eq!(client.feed("info depth 9 score cp 3 pv a1-b2"), None);
        assert_eq!(client.feed("bestmove a1-b2"), Some(Event::StaleBestMove));
        assert!(client.can_go());
    }

    #[test]
    fn commands_as_lines() {
        assert_eq!(
            Command::set_option("Move Overhead", "30").to_string(),
            "setoption name Move Overhead value 30"
        );
        assert_eq!(Command::NewGame.to_string(), "ucinewgame");
        let fen = Command::Position {
            fen: "B:h8b".into(),
            moves: vec![],
        };
        assert_eq!(fen.to_string(), "position fen B:h8b");
        assert_eq!(Go::MoveTime(50).to_string(), "go movetime 50");
        assert_eq!(Go::Nodes(9).to_string(), "go nodes 9");
        let within = Go::DepthWithin { depth: 7, nodes: 4 };
        assert_eq!(within.to_string(), "go depth 7 nodes 4");
        assert_eq!(Go::Infinite.to_string(), "go infinite");
    }
}
