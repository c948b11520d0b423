//! The analysis of a room's finished game: who may ask for it, and the
//! search of every move that marks mistakes and draws the graph, by the
//! engine pool's engine (`--engine`).

use super::{Actor, ToRoom};
use crate::annotate::{MoveNote, judge_answers, positions_to_search};
use crate::serve::config::{ANALYSIS_NODES, GameConfig};
use crate::serve::engines::{EnginePool, ReviewJob};
use crate::serve::room::{EndReason, Phase};
use crate::serve::store::Write;
use crate::serve::view::{AnalysisStatus, AnalysisView};
use bashni_host::protocol::Command;
use std::sync::Arc;
use std::time::Duration;

/// How long a game's analysis may take: minutes for the longest game on
/// a slow engine; an engine that needs more is taken for stalled.
const REVIEW_TIME: Duration = Duration::from_secs(300);

impl Actor {
    /// Why the game cannot be analysed, if it cannot.
    pub(super) fn analysis_refused(&self) -> Option<&'static str> {
        match self.room.phase() {
            Phase::Over(outcome) if matches!(outcome.reason, EndReason::Aborted(_)) => {
                Some("an aborted game is not analysed")
            }
            Phase::Over(_) if self.room.game().moves().is_empty() => {
                Some("a game without moves has nothing to analyse")
            }
            Phase::Over(_) => None,
            _ => Some("a game is analysed once it is over"),
        }
    }

    /// Whether this game's analysis runs or is done.
    pub(super) fn analysed(&self) -> bool {
        let game_no = self.room.game_no();
        self.analysis
            .as_ref()
            .is_some_and(|a| a.game_no == game_no && a.status != AnalysisStatus::Failed)
    }

    /// Whether an analysis runs (of this game or, after a rematch, of
    /// the one before).
    pub(super) fn analysis_running(&self) -> bool {
        self.reviews_running > 0
    }

    pub(super) fn analyse(&mut self) -> Result<(), String> {
        if let Some(why) = self.analysis_refused() {
            return Err(why.into());
        }
        if self.analysed() {
            return Ok(());
        }
        let game_no = self.room.game_no();
        let running = AnalysisView {
            status: AnalysisStatus::Running,
            game_no,
            marks: Vec::new(),
            evals: Vec::new(),
        };
        self.analysis = Some(running);
        self.publish();
        let game = self.room.game();
        let fen = game.start().to_fen();
        let moves: Vec<String> = game.moves().iter().map(ToString::to_string).collect();
        let config = self.room.config().game;
        let pool = Arc::clone(&self.shared.engines);
        let me = self.me.clone();
        self.reviews_running += 1;
        tokio::spawn(async move {
            let analysis = match review(&pool, config, &fen, &moves).await {
                Ok(notes) => AnalysisView {
                    status: AnalysisStatus::Done,
                    game_no,
                    marks: notes.iter().map(|n| n.mark.map(str::to_owned)).collect(),
                    evals: notes.iter().map(|n| n.white_cp).collect(),
                },
                Err(e) => {
                    eprintln!("bashni serve: analysis: {e}");
                    AnalysisView::failed(game_no)
                }
            };
            let _ = me.send(ToRoom::AnalysisDone { analysis }).await;
        });
        Ok(())
    }

    /// The analysis ended: a finished one is stored before it is shown (a
    /// restart shows it again, and a replay of the game carries it); one
    /// the store refuses is shown as failed, and may be asked for again.
    /// The analysis of a game before a rematch is stored, and shown by a
    /// replay of that game: the room shows its current game's.
    pub(super) async fn analysis_done(&mut self, mut analysis: AnalysisView) {
        self.reviews_running = self.reviews_running.saturating_sub(1);
        if analysis.status == AnalysisStatus::Done {
            let write = Write::Analysis {
                room_id: self.room.id().to_owned(),
                game_no: analysis.game_no,
                analysis: analysis.record(),
            };
            if let Err(e) = self.shared.writer.write(write).await {
                eprintln!("bashni serve: cannot store the analysis: {e}");
                analysis = AnalysisView::failed(analysis.game_no);
            }
        }
        if analysis.game_no == self.room.game_no() {
            self.analysis = Some(analysis);
            self.publish();
        }
    }
}

/// Judge every move of the game (`fen`, `moves`) with the pool's engine:
/// each position the rules have not ended searched [`ANALYSIS_NODES`]
/// nodes, in an analysis slot (it costs what a search does).
async fn review(
    pool: &EnginePool,
    config: GameConfig,
    fen: &str,
    moves: &[String],
) -> anyhow::Result<Vec<MoveNote>> {
    let rules = config.rules();
    let positions = positions_to_search(rules, fen, moves)?;
    let job = ReviewJob {
        game: config,
        positions: positions
            .into_iter()
            .map(|(ply, position)| {
                let played = Command::Position {
                    fen: fen.to_owned(),
                    moves: moves[..ply].to_vec(),
                };
                (played, position)
            })
            .collect(),
        nodes: ANALYSIS_NODES,
        time: REVIEW_TIME,
    };
    let slot = pool.analysis_slot().await?;
    let answers = pool.review(&job, &slot).await?;
    judge_answers(rules, fen, moves, answers)
}
