//! A write transaction and the writes of a room that run in one: a seat
//! taken or given a new token, a game's start and end, a takeback, a
//! turn's start moved by a restart, the offers, a game's analysis, a room
//! closed, a line of its chat, a ladder run's standing, and moves.
//!
//! The writer ([`super::writer`]) runs every write waiting for it and
//! every move in one transaction: one commit (one fsync) for all. When
//! one of them is refused (a seat taken already), the writer runs each in
//! a savepoint of its own ([`Tx::run_alone`]), so that it is undone
//! alone and the others still commit.

use super::{
    AnalysisRecord, MoveRecord, NewGame, NewRow, OffersRecord, Pool, ROWS_PER_STATEMENT,
    ResultRecord, RoomStatus, RunRecord, SeatRecord, Store, StoreError, bits_of,
    last_move_of_each_game, split_clock, to_i64, unix_ms_now,
};
use crate::serve::chat::ChatLine;
use crate::serve::token::TokenHash;
use bashni_rules::Colour;
use sqlx::{Postgres, QueryBuilder, Sqlite, Transaction};

/// One of a room's writes as the writer takes them: a move, or any
/// other write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Work {
    /// A move.
    Move(MoveRecord),
    /// Anything else.
    Other(Write),
}

/// A write of a room other than a move, as the room hands it to the
/// writer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Write {
    /// A seat taken; [`StoreError::SeatTaken`] if someone holds it.
    Seat {
        /// The room.
        room_id: String,
        /// Who sits where.
        seat: SeatRecord,
    },
    /// A person's seat holds a new token: only its hash is kept.
    SeatToken {
        /// The room.
        room_id: String,
        /// The seat.
        seat: u8,
        /// The new token's hash.
        token_hash: TokenHash,
    },
    /// A game started (the first, or a rematch): the room is playing.
    GameStart {
        /// The room.
        room_id: String,
        /// The game.
        game: NewGame,
    },
    /// Moves taken back: the first `keep_plies` of the game stay, and the
    /// clock state becomes `clock_ms` with the turn beginning at
    /// `turn_started_at_ms`.
    TakeBack {
        /// The room.
        room_id: String,
        /// The game.
        game_no: u32,
        /// The plies kept.
        keep_plies: u32,
        /// Both clocks, or `None`.
        clock_ms: Option<[i64; 2]>,
        /// When the turn began, in Unix milliseconds.
        turn_started_at_ms: i64,
    },
    /// A game's result: the room is finished (until a rematch).
    GameEnd {
        /// The room.
        room_id: String,
        /// The game.
        game_no: u32,
        /// How it ended.
        result: ResultRecord,
    },
    /// A finished game's analysis.
    Analysis {
        /// The room.
        room_id: String,
        /// The game.
        game_no: u32,
        /// The analysis.
        analysis: AnalysisRecord,
    },
    /// The offers pending in a game (replacing those kept before).
    Offers {
        /// The room.
        room_id: String,
        /// The game.
        game_no: u32,
        /// The offers.
        offers: OffersRecord,
    },
    /// The turn of a game being played counts from `turn_started_at_ms`
    /// on: a restart moves its start by the time the server was down, so
    /// that a second restart does not charge that time.
    TurnStart {
        /// The room.
        room_id: String,
        /// The game.
        game_no: u32,
        /// When the turn counts from, in Unix milliseconds.
        turn_started_at_ms: i64,
    },
    /// A room nobody joined is closed; one that is not open any more is
    /// left as it is.
    CloseRoom {
        /// The room.
        room_id: String,
    },
    /// A line of a room's chat, its `line_no`th (1 for the first).
    ChatLine {
        /// The room.
        room_id: String,
        /// Its place in the room's chat.
        line_no: u32,
        /// What was said.
        line: ChatLine,
    },
    /// A ladder run's standing after a game.
    Run {
        /// The run.
        run: RunRecord,
        /// Now, in Unix milliseconds.
        now_ms: i64,
    },
}

/// An open transaction on the store's write connection.
pub struct Tx(Open);

enum Open {
    Sqlite(Transaction<'static, Sqlite>),
    Postgres(Transaction<'static, Postgres>),
}

/// Run `$body` with `$t` bound to the open transaction, whichever the
/// database (like `on_pool!`: the SQL is written once).
macro_rules! on_tx {
    ($tx:expr, $t:ident => $body:expr) => {
        match &mut $tx.0 {
            Open::Sqlite($t) => $body,
            Open::Postgres($t) => $body,
        }
    };
}

impl Store {
    /// Open a write transaction.
    pub async fn begin(&self) -> Result<Tx, StoreError> {
        Ok(Tx(match &self.pool {
            Pool::Sqlite(p) => Open::Sqlite(p.begin().await?),
            Pool::Postgres(p) => Open::Postgres(p.begin().await?),
        }))
    }

    /// Run `write` in a transaction of its own.
    pub async fn apply(&self, write: &Write) -> Result<(), StoreError> {
        let mut tx = self.begin().await?;
        tx.apply(write).await?;
        tx.commit().await
    }

    /// Store moves of any rooms in one transaction: when this returns
    /// `Ok`, every one is durable and may be broadcast; on an error none
    /// is stored. A ply stored already fails the whole batch with
    /// [`StoreError::DuplicatePly`]. Each game's clock state is set from
    /// its last move in the batch.
    pub async fn append_moves(&self, moves: &[MoveRecord]) -> Result<(), StoreError> {
        let mut tx = self.begin().await?;
        tx.append_moves(moves).await?;
        tx.commit().await
    }

    /// Store one move; see [`Store::append_moves`].
    pub async fn append_move(&self, mv: &MoveRecord) -> Result<(), StoreError> {
        self.append_moves(std::slice::from_ref(mv)).await
    }
}

impl Tx {
    /// Make everything written durable.
    pub async fn commit(self) -> Result<(), StoreError> {
        match self.0 {
            Open::Sqlite(t) => t.commit().await?,
            Open::Postgres(t) => t.commit().await?,
        }
        Ok(())
    }

    /// Undo everything written.
    pub async fn rollback(self) -> Result<(), StoreError> {
        match self.0 {
            Open::Sqlite(t) => t.rollback().await?,
            Open::Postgres(t) => t.rollback().await?,
        }
        Ok(())
    }

    /// Run `write`.
    pub async fn apply(&mut self, write: &Write) -> Result<(), StoreError> {
        match write {
            Write::Seat { room_id, seat } => self.take_seat(room_id, seat).await,
            Write::SeatToken {
                room_id,
                seat,
                token_hash,
            } => self.new_token(room_id, *seat, token_hash).await,
            Write::GameStart { room_id, game } => self.start_game(room_id, game).await,
            Write::TakeBack {
                room_id,
                game_no,
                keep_plies,
                clock_ms,
                turn_started_at_ms,
            } => {
                let turn = *turn_started_at_ms;
                self.take_back(room_id, *game_no, *keep_plies, *clock_ms, turn)
                    .await
            }
            Write::GameEnd {
                room_id,
                game_no,
                result,
            } => self.finish_game(room_id, *game_no, result).await,
            Write::Offers {
                room_id,
                game_no,
                offers,
            } => self.save_offers(room_id, *game_no, offers).await,
            Write::Analysis {
                room_id,
                game_no,
                analysis,
            } => self.save_analysis(room_id, *game_no, analysis).await,
            Write::TurnStart {
                room_id,
                game_no,
                turn_started_at_ms,
            } => {
                self.move_turn_start(room_id, *game_no, *turn_started_at_ms)
                    .await
            }
            Write::CloseRoom { room_id } => self.close_room(room_id).await,
            Write::ChatLine {
                room_id,
                line_no,
                line,
            } => self.save_chat_line(room_id, *line_no, line).await,
            Write::Run { run, now_ms } => self.update_run(run, *now_ms).await,
        }
    }

    /// Run each of `work` in order, stopping at the first refusal.
    pub async fn run(&mut self, work: &[Work]) -> Result<(), StoreError> {
        for step in work {
            match step {
                Work::Move(mv) => self.append_moves_together(std::slice::from_ref(mv)).await?,
                Work::Other(write) => self.apply(write).await?,
            }
        }
        Ok(())
    }

    /// [`Tx::run`] in a savepoint: if the database refuses any of `work`,
    /// all of it is undone and the transaction goes on. The outer error is
    /// the transaction's own failure (nothing more can be written in it).
    pub async fn run_alone(&mut self, work: &[Work]) -> Result<Result<(), StoreError>, StoreError> {
        self.savepoint().await?;
        let written = self.run(work).await;
        self.end_savepoint(written.is_ok()).await?;
        Ok(written)
    }

    /// [`Tx::append_moves_together`] in a savepoint, as
    /// [`Tx::run_alone`]: all or none.
    pub async fn append_moves_alone(
        &mut self,
        moves: &[MoveRecord],
    ) -> Result<Result<(), StoreError>, StoreError> {
        self.savepoint().await?;
        let written = self.append_moves_together(moves).await;
        self.end_savepoint(written.is_ok()).await?;
        Ok(written)
    }

    async fn savepoint(&mut self) -> Result<(), StoreError> {
        self.statement("SAVEPOINT one_write").await
    }

    /// Keep what was written since the savepoint, or undo it.
    async fn end_savepoint(&mut self, keep: bool) -> Result<(), StoreError> {
        if !keep {
            self.statement("ROLLBACK TO SAVEPOINT one_write").await?;
        }
        self.statement("RELEASE SAVEPOINT one_write").await
    }

    async fn statement(&mut self, sql: &'static str) -> Result<(), StoreError> {
        on_tx!(self, t => {
            sqlx::query(sql).execute(&mut **t).await?;
        });
        Ok(())
    }

    async fn take_seat(&mut self, room_id: &str, seat: &SeatRecord) -> Result<(), StoreError> {
        on_tx!(self, t => insert_seat!(&mut **t, room_id, seat))
    }

    async fn start_game(&mut self, room_id: &str, game: &NewGame) -> Result<(), StoreError> {
        let [white_ms, black_ms] = split_clock(game.clock_ms);
        on_tx!(self, t => {
            let inserted = sqlx::query(
                "INSERT INTO games (room_id, game_no, white_seat, started_at, white_ms, \
                 black_ms, turn_started_at, start_fen) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(room_id)
            .bind(i64::from(game.game_no))
            .bind(i64::from(game.white_seat))
            .bind(game.started_at_ms)
            .bind(white_ms)
            .bind(black_ms)
            .bind(game.started_at_ms)
            .bind(game.start_fen.as_deref())
            .execute(&mut **t)
            .await;
            inserted.map_err(|e| NewRow::Game { room_id }.refused(e))?;
            sqlx::query("UPDATE rooms SET status = $1 WHERE id = $2")
                .bind(RoomStatus::Playing.as_str())
                .bind(room_id)
                .execute(&mut **t)
                .await?;
            Ok(())
        })
    }

    /// Store `moves`; see [`Store::append_moves`].
    pub async fn append_moves(&mut self, moves: &[MoveRecord]) -> Result<(), StoreError> {
        if moves.len() <= 1 {
            return self.write_moves(moves, 1).await;
        }
        match self.append_moves_alone(moves).await? {
            Ok(()) => Ok(()),
            // A multi-row INSERT does not say which row the database
            // refused: a row per INSERT names it (or stores the batch, if
            // the failure has passed).
            Err(_) => self.write_moves(moves, 1).await,
        }
    }

    /// Store `moves` in as few statements as it takes. The refusal of
    /// more than one move does not say which failed; that of one move
    /// does ([`StoreError::DuplicatePly`]).
    pub async fn append_moves_together(&mut self, moves: &[MoveRecord]) -> Result<(), StoreError> {
        self.write_moves(moves, ROWS_PER_STATEMENT).await
    }

    /// Store `moves`, `rows` per INSERT, and set the clock state of the
    /// games they belong to in one UPDATE: a few statements per batch,
    /// not two per move (with SQLite every statement is a round trip to
    /// sqlx's database thread). The statements are not kept prepared:
    /// each batch size is another statement, and a cache of the large
    /// ones doubled the server's memory under load.
    async fn write_moves(&mut self, moves: &[MoveRecord], rows: usize) -> Result<(), StoreError> {
        if moves.is_empty() {
            return Ok(());
        }
        let last = last_move_of_each_game(moves);
        let stored_at = unix_ms_now();
        on_tx!(self, t => {
            for chunk in moves.chunks(rows.max(1)) {
                let mut insert = builder_for(
                    t,
                    "INSERT INTO moves (room_id, game_no, ply, move_text, elapsed_ms, \
                     white_ms, black_ms, moved_at, stored_at) ",
                );
                insert.push_values(chunk, |mut row, mv| {
                    let [white_ms, black_ms] = split_clock(mv.clock_ms);
                    row.push_bind(&mv.room_id)
                        .push_bind(i64::from(mv.game_no))
                        .push_bind(i64::from(mv.ply))
                        .push_bind(&mv.text)
                        .push_bind(to_i64(mv.elapsed_ms))
                        .push_bind(white_ms)
                        .push_bind(black_ms)
                        .push_bind(mv.moved_at_ms)
                        .push_bind(stored_at);
                });
                let insert = insert.build().persistent(false);
                insert.execute(&mut **t).await.map_err(|e| match chunk {
                    [mv] => NewRow::Move(mv).refused(e),
                    _ => StoreError::Database(e),
                })?;
            }
            for chunk in last.chunks(ROWS_PER_STATEMENT) {
                // VALUES names its columns column1, column2... in both
                // databases.
                let mut update = builder_for(
                    t,
                    "UPDATE games SET white_ms = v.column3, black_ms = v.column4, \
                     turn_started_at = v.column5 FROM (",
                );
                update.push_values(chunk, |mut row, mv| {
                    let [white_ms, black_ms] = split_clock(mv.clock_ms);
                    row.push_bind(&mv.room_id)
                        .push_bind(i64::from(mv.game_no))
                        .push_bind(white_ms)
                        .push_bind(black_ms)
                        .push_bind(mv.moved_at_ms);
                });
                update.push(
                    ") AS v WHERE games.room_id = v.column1 AND games.game_no = v.column2",
                );
                update.build().persistent(false).execute(&mut **t).await?;
            }
            Ok(())
        })
    }

    async fn new_token(
        &mut self,
        room_id: &str,
        seat: u8,
        token_hash: &TokenHash,
    ) -> Result<(), StoreError> {
        on_tx!(self, t => {
            let updated = sqlx::query(
                "UPDATE seats SET token_hash = $1 WHERE room_id = $2 AND seat = $3 \
                 AND token_hash IS NOT NULL",
            )
            .bind(token_hash.as_str())
            .bind(room_id)
            .bind(i64::from(seat))
            .execute(&mut **t)
            .await?;
            if updated.rows_affected() == 0 {
                return Err(StoreError::Missing(format!("seat {seat} of room {room_id}")));
            }
            Ok(())
        })
    }

    async fn move_turn_start(
        &mut self,
        room_id: &str,
        game_no: u32,
        turn_started_at_ms: i64,
    ) -> Result<(), StoreError> {
        on_tx!(self, t => {
            sqlx::query("UPDATE games SET turn_started_at = $1 WHERE room_id = $2 AND game_no = $3")
                .bind(turn_started_at_ms)
                .bind(room_id)
                .bind(i64::from(game_no))
                .execute(&mut **t)
                .await?;
            Ok(())
        })
    }

    async fn take_back(
        &mut self,
        room_id: &str,
        game_no: u32,
        keep_plies: u32,
        clock_ms: Option<[i64; 2]>,
        turn_started_at_ms: i64,
    ) -> Result<(), StoreError> {
        let [white_ms, black_ms] = split_clock(clock_ms);
        on_tx!(self, t => {
            let updated = sqlx::query(
                "UPDATE games SET white_ms = $1, black_ms = $2, turn_started_at = $3, \
                 offers_ply = NULL WHERE room_id = $4 AND game_no = $5",
            )
            .bind(white_ms)
            .bind(black_ms)
            .bind(turn_started_at_ms)
            .bind(room_id)
            .bind(i64::from(game_no))
            .execute(&mut **t)
            .await?;
            game_updated(updated.rows_affected(), room_id, game_no)?;
            sqlx::query("DELETE FROM moves WHERE room_id = $1 AND game_no = $2 AND ply > $3")
                .bind(room_id)
                .bind(i64::from(game_no))
                .bind(i64::from(keep_plies))
                .execute(&mut **t)
                .await?;
            Ok(())
        })
    }

    async fn finish_game(
        &mut self,
        room_id: &str,
        game_no: u32,
        result: &ResultRecord,
    ) -> Result<(), StoreError> {
        let [white_ms, black_ms] = split_clock(result.clock_ms);
        on_tx!(self, t => {
            let inserted = sqlx::query(
                "INSERT INTO results (room_id, game_no, result, reason, finished_at, white_ms, black_ms) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
            )
            .bind(room_id)
            .bind(i64::from(game_no))
            .bind(&result.result)
            .bind(&result.reason)
            .bind(result.finished_at_ms)
            .bind(white_ms)
            .bind(black_ms)
            .execute(&mut **t)
            .await;
            inserted.map_err(|e| NewRow::Result { room_id, game_no }.refused(e))?;
            sqlx::query("UPDATE rooms SET status = $1 WHERE id = $2")
                .bind(RoomStatus::Finished.as_str())
                .bind(room_id)
                .execute(&mut **t)
                .await?;
            Ok(())
        })
    }

    async fn save_offers(
        &mut self,
        room_id: &str,
        game_no: u32,
        offers: &OffersRecord,
    ) -> Result<(), StoreError> {
        let [white_draw_ply, black_draw_ply] = offers.draw_offered_at.map(|p| p.map(i64::from));
        let updated = on_tx!(self, t => {
            sqlx::query(
                "UPDATE games SET offers_ply = $1, draw_offer = $2, takeback_by = $3, \
                 rematch_seats = $4, white_draw_ply = $5, black_draw_ply = $6, \
                 takeback_declined = $7, rematch_declined = $8 WHERE room_id = $9 AND game_no = $10",
            )
            .bind(i64::from(offers.at_ply))
            .bind(offers.draw_offer.map(Colour::name))
            .bind(offers.takeback_by.map(Colour::name))
            .bind(bits_of(offers.rematch))
            .bind(white_draw_ply)
            .bind(black_draw_ply)
            .bind(bits_of(offers.takeback_declined))
            .bind(bits_of(offers.rematch_declined))
            .bind(room_id)
            .bind(i64::from(game_no))
            .execute(&mut **t)
            .await?
            .rows_affected()
        });
        game_updated(updated, room_id, game_no)
    }

    async fn save_analysis(
        &mut self,
        room_id: &str,
        game_no: u32,
        analysis: &AnalysisRecord,
    ) -> Result<(), StoreError> {
        let (marks, evals) = analysis.columns();
        let updated = on_tx!(self, t => {
            sqlx::query(
                "UPDATE games SET analysis_marks = $1, analysis_evals = $2 \
                 WHERE room_id = $3 AND game_no = $4",
            )
            .bind(&marks)
            .bind(&evals)
            .bind(room_id)
            .bind(i64::from(game_no))
            .execute(&mut **t)
            .await?
            .rows_affected()
        });
        game_updated(updated, room_id, game_no)
    }

    async fn save_chat_line(
        &mut self,
        room_id: &str,
        line_no: u32,
        line: &ChatLine,
    ) -> Result<(), StoreError> {
        on_tx!(self, t => {
            let inserted = sqlx::query(
                "INSERT INTO chat_lines (room_id, line_no, seat, text, sent_at) \
                 VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(room_id)
            .bind(i64::from(line_no))
            .bind(i64::from(line.seat))
            .bind(&line.text)
            .bind(line.sent_at_ms)
            .execute(&mut **t)
            .await;
            inserted.map_err(|e| NewRow::ChatLine { room_id }.refused(e))?;
            Ok(())
        })
    }

    async fn close_room(&mut self, room_id: &str) -> Result<(), StoreError> {
        on_tx!(self, t => {
            sqlx::query("UPDATE rooms SET status = $1 WHERE id = $2 AND status = $3")
                .bind(RoomStatus::Finished.as_str())
                .bind(room_id)
                .bind(RoomStatus::Open.as_str())
                .execute(&mut **t)
                .await?;
            Ok(())
        })
    }

    async fn update_run(&mut self, run: &RunRecord, now_ms: i64) -> Result<(), StoreError> {
        on_tx!(self, t => {
            let updated = sqlx::query(
                "UPDATE ladder_runs SET wins = $1, think_ms = $2, score = $3, status = $4, \
                 updated_at = $5 WHERE id = $6",
            )
            .bind(i64::from(run.wins))
            .bind(to_i64(run.think_ms))
            .bind(to_i64(run.score))
            .bind(&run.status)
            .bind(now_ms)
            .bind(&run.id)
            .execute(&mut **t)
            .await?;
            if updated.rows_affected() == 0 {
                return Err(StoreError::Missing(format!("ladder run {}", run.id)));
            }
            Ok(())
        })
    }
}

/// An update of game `game_no`'s row that changed `rows` rows: none means
/// the game is not stored.
fn game_updated(rows: u64, room_id: &str, game_no: u32) -> Result<(), StoreError> {
    match rows {
        0 => Err(StoreError::Missing(format!(
            "game {game_no} in room {room_id}"
        ))),
        _ => Ok(()),
    }
}

/// A query builder for the database of `tx` (so `on_tx!`'s body need not
/// name it).
fn builder_for<DB: sqlx::Database>(_tx: &Transaction<'_, DB>, sql: &str) -> QueryBuilder<DB> {
    QueryBuilder::new(sql)
}
