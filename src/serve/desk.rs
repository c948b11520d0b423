//! A connection's analysis board: the study it shows and at most one
//! engine analysis of the position shown. The analysis runs in a slot of
//! the server's engine pool, with the server's cap on its time. The engine
//! stays on once asked, as a switch: each position shown is analysed with
//! the same number of lines (also after the last analysis ran out of time
//! or met a finished game), until `study_stop` or the connection goes.

use super::engines::{ANALYSIS_LINES, AnalysisJob, AnalysisUpdate, EnginePool, PvLine};
use super::listener::{AddressCounts, AddressSlot};
use super::study::{Study, StudyView};
use super::view::ServerMessage;
use super::wire::ClientMessage;
use std::net::IpAddr;
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

/// Updates one analysis may have in flight to the connection.
const UPDATES_QUEUE: usize = 16;

/// Analyses one address may have running or waiting at once: they share
/// half the engine pool, and one address's dozens of boards kept every
/// other analysis waiting for as long as they ran.
pub const ANALYSES_PER_ADDRESS: usize = 2;

/// The analysis running for the board.
struct Running {
    fen: String,
    /// The lines found so far, kept for the status messages.
    found: Vec<PvLine>,
    updates: mpsc::Receiver<AnalysisUpdate>,
    /// Dropping it stops the analysis.
    _stop: oneshot::Sender<()>,
    /// Its place among its address's analyses.
    _counted: AddressSlot,
}

/// A connection's analysis board.
pub struct Desk {
    engines: Arc<EnginePool>,
    /// The analyses of each address ([`ANALYSES_PER_ADDRESS`]), shared
    /// by every connection's board.
    analyses: Arc<AddressCounts>,
    addr: IpAddr,
    study: Option<Study>,
    running: Option<Running>,
    /// The lines asked while the engine is on.
    engine_on: Option<u32>,
}

impl Desk {
    /// An empty board of a connection from `addr`, that takes its
    /// engines from `engines`, counting its analyses in `analyses`.
    pub fn new(engines: Arc<EnginePool>, analyses: Arc<AddressCounts>, addr: IpAddr) -> Desk {
        Desk {
            engines,
            analyses,
            addr,
            study: None,
            running: None,
            engine_on: None,
        }
    }

    /// Act on one of the analysis board's messages: the answers to send.
    pub fn on_message(&mut self, message: ClientMessage) -> Result<Vec<String>, String> {
        match message {
            ClientMessage::StudyPosition {
                variant,
                fen,
                moves,
                cursor,
                rules,
                recorded,
                header,
            } => {
                let study = Study::new(&variant, rules.as_ref(), fen.as_deref(), &moves, cursor)?
                    .ending(recorded)?
                    .headed(header)?;
                self.show(study, None)
            }
            ClientMessage::StudyPdn { text } => {
                let (study, games) = Study::from_pdn(&text)?;
                let note = (games > 1).then(|| format!("The first of the {games} games pasted."));
                self.show(study, note)
            }
            ClientMessage::StudyExport {} => Ok(vec![self.pdn()?]),
            ClientMessage::StudyAnalyse { lines } => Ok(vec![self.analyse(lines)?]),
            ClientMessage::StudyStop {} => Ok(vec![self.stop()?]),
            _ => Err("not a message of the analysis board".into()),
        }
    }

    /// Show `study` (analysed if the engine is on), with a `note` for
    /// the player if there is one; the messages to send. An analysis
    /// refused (the address's analyses) is said in the engine's status:
    /// the board takes the position all the same.
    fn show(&mut self, study: Study, note: Option<String>) -> Result<Vec<String>, String> {
        let view = StudyView {
            note,
            ..study.view()
        };
        let mut answers = vec![to_json(&ServerMessage::Study(&view))?];
        let fen = study.fen();
        self.study = Some(study);
        if let Some(lines) = self.engine_on {
            let status = self.analyse(lines);
            answers.push(
                status.or_else(|why| {
                    lines_message(&fen, &why, false, &[], self.engine_on.is_some())
                })?,
            );
        }
        Ok(answers)
    }

    /// The board's game as PDN.
    fn pdn(&self) -> Result<String, String> {
        let study = self.study.as_ref().ok_or(NO_STUDY)?;
        to_json(&ServerMessage::StudyPdn {
            text: &study.to_pdn(),
        })
    }

    /// Analyse the position shown with `lines` lines, replacing any
    /// analysis running, and keep the engine on; the status message to
    /// send. An analysis refused turns the engine off.
    fn analyse(&mut self, lines: u32) -> Result<String, String> {
        let (low, high) = ANALYSIS_LINES;
        if !(low..=high).contains(&lines) {
            return Err(format!("lines: {low} to {high}"));
        }
        let study = self.study.as_ref().ok_or(NO_STUDY)?;
        self.running = None;
        self.engine_on = Some(lines);
        let fen = study.fen();
        if study.is_over() {
            return lines_message(
                &fen,
                "the game is over here",
                false,
                &[],
                self.engine_on.is_some(),
            );
        }
        let Some(counted) = self.analyses.slot(self.addr) else {
            self.engine_on = None;
            return Err(format!(
                "at most {ANALYSES_PER_ADDRESS} analyses at once from one address: stop one first"
            ));
        };
        let job = AnalysisJob {
            game: *study.config(),
            position: study.position_command(),
            lines,
            white_to_move: study.white_to_move(),
        };
        let (updates_tx, updates) = mpsc::channel(UPDATES_QUEUE);
        let (stop, stopped) = oneshot::channel();
        let engines = Arc::clone(&self.engines);
        tokio::spawn(async move { engines.analyse(job, updates_tx, stopped).await });
        let waiting = if self.engines.analysis_would_wait() {
            "waiting for a free engine"
        } else {
            "starting"
        };
        let message = lines_message(&fen, waiting, true, &[], self.engine_on.is_some());
        self.running = Some(Running {
            fen,
            found: Vec::new(),
            updates,
            _stop: stop,
            _counted: counted,
        });
        message
    }

    /// Stop the analysis, if one runs; the status message to send, for
    /// the board's position (an analysis that ended already says so too).
    fn stop(&mut self) -> Result<String, String> {
        self.engine_on = None;
        let found = self.running.take().map(|r| r.found).unwrap_or_default();
        let study = self.study.as_ref().ok_or(NO_STUDY)?;
        lines_message(
            &study.fen(),
            "stopped",
            false,
            &found,
            self.engine_on.is_some(),
        )
    }

    /// The next message of the running analysis; never if none runs.
    pub async fn next(&mut self) -> String {
        let Some(running) = self.running.as_mut() else {
            return std::future::pending().await;
        };
        let Some(update) = running.updates.recv().await else {
            self.running = None;
            return std::future::pending().await;
        };
        let status = match &update {
            AnalysisUpdate::Started => "analysing".to_string(),
            AnalysisUpdate::Lines(lines) => {
                running.found.clone_from(lines);
                "analysing".to_string()
            }
            AnalysisUpdate::Done => "done".to_string(),
            AnalysisUpdate::Failed(why) => format!("{why}; analyse again for a fresh engine"),
        };
        let ended = matches!(update, AnalysisUpdate::Done | AnalysisUpdate::Failed(_));
        let message = lines_message(
            &running.fen,
            &status,
            !ended,
            &running.found,
            self.engine_on.is_some(),
        );
        if ended {
            self.running = None;
        }
        message.unwrap_or_default()
    }
}

const NO_STUDY: &str = "set up the analysis board first (study_position or study_pdn)";

fn lines_message(
    fen: &str,
    status: &str,
    running: bool,
    lines: &[PvLine],
    engine_on: bool,
) -> Result<String, String> {
    to_json(&ServerMessage::StudyLines {
        fen,
        status,
        running,
        lines,
        engine_on,
    })
}

fn to_json(message: &ServerMessage<'_>) -> Result<String, String> {
    serde_json::to_string(message).map_err(|e| format!("cannot write the answer: {e}"))
}
