// A room: the board from the player's side, the two players with their
// clocks, what is pending (offers, a takeback, a rematch), the result,
// the move list with the analysis marks, a replay of any game of the
// room, and the PDN download. Drawn from the room's state as the server
// sent it (whole, or after a move only what the move changed); the
// clocks count down between states from the time the state arrived.

import { $, clockText, colourWord, copyLink, endText, fill, h, isolate, resultText } from "./text.js";
import { Board } from "./board.js";
import { typeMoves } from "./typing.js";
import { drawGraph, markOf } from "./analysis.js";
import { boardSize, rulesText, variantInfo, variantTitle } from "./variants.js";
import { Replay, fillMoveList, listenForStepKeys } from "./replay.js";
import { noteRun } from "./runs.js";
import { plyLabel } from "./numbering.js";
import { Chat } from "./chat.js";
import { Sounds, soundFor } from "./sound.js";

// A running clock with less than this left is shown as low.
const LOW_TIME_MS = 10_000;

// Where a colour's entry is in the server's per-colour pairs.
const COLOUR_INDEX = { white: 0, black: 1 };
// What the opponent's questions say in a note, shown while they are asked.
const QUESTIONS = {
  draw: "Your opponent offers a draw.",
  takeback: "Your opponent asks to take back a move.",
  rematch: "Your opponent asks for a rematch.",
};

// Ply `ply` (1 for the first) of a game from `startFen` as the move list
// numbers it: `2. c3-d4` for a White move, `2... f6-e5` for a Black one.
function plyText(startFen, ply, text, total) {
  return `${plyLabel(startFen, ply)} ${text} (ply ${ply} of ${total})`;
}

export class Room {
  // app: {send(message), name(), welcome, device, roomId, seat(roomId), reopen(), cancel(), study(line)}
  constructor(app) {
    this.app = app;
    this.state = null;
    this.receivedAt = 0;
    this.board = new Board($("board"), (text) => app.send({ type: "move", text }));
    typeMoves($("move-input"), $("move-hint"), this.board);
    const act = (id, type) => $(id).addEventListener("click", () => app.send({ type }));
    $("resign").addEventListener("click", () => this.clickTwice("resign", "Resign", "Really resign?"));
    // A double tap on "Accept rematch" lands on "Abort", which takes its
    // place once the new game begins: aborting asks again too.
    $("abort").addEventListener("click", () => this.clickTwice("abort", "Abort", "Really abort?"));
    act("offer-draw", "offer_draw");
    act("accept-draw", "accept_draw");
    act("decline-draw", "decline_draw");
    act("takeback", "takeback");
    act("accept-takeback", "accept_takeback");
    act("decline-takeback", "decline_takeback");
    act("rematch", "rematch");
    act("decline-rematch", "decline_rematch");
    act("claim-win", "claim_win");
    act("claim-draw", "claim_draw");
    act("analyse", "analyse");
    $("to-study").addEventListener("click", () => this.toStudy());
    $("cancel").addEventListener("click", () => this.app.cancel());
    $("new-game").addEventListener("click", () => this.newGame());
    $("take-seat").addEventListener("click", () => app.send({ type: "join", room: this.state.id, name: app.name() }));
    // The room's address, with the move a replay shows.
    $("copy-link").addEventListener("click", () => copyLink($("copy-link"), location.href));
    this.flipped = false;
    $("flip").addEventListener("click", () => {
      this.flipped = !this.flipped;
      this.draw();
    });
    this.replay = new Replay(app.send, () => this.replayMoved());
    this.chat = new Chat(app.send);
    this.sounds = new Sounds($("sound"));
    this.replayControls();
    setInterval(() => this.tickClocks(), 100);
  }

  mySeat() {
    return this.state ? this.app.seat(this.state.id) : null;
  }

  myColour() {
    const seat = this.mySeat();
    const seats = this.state.seats;
    return seat !== null && seats[seat] ? seats[seat].colour : null;
  }

  // The colour the player played in the game shown: in a replay of a
  // game before a rematch, the one of then (colours swap each game).
  myColourShown() {
    const seat = this.mySeat();
    const r = this.replay.game;
    if (!r || seat === null || !this.myColour()) return this.myColour();
    return seat === r.white_seat ? "white" : "black";
  }

  // The change a move made, as the server sends it to a page that has
  // the state before: the move is appended and the turn replaced. A
  // change that does not follow the state shown (never expected) makes
  // the page ask for the whole state again.
  applyMove(change) {
    const s = this.state;
    const follows = s && s.id === change.id && change.seq === s.seq + 1 && change.game_no === s.game_no && change.ply === s.moves.length + 1;
    if (!follows) {
      this.app.reopen();
      return;
    }
    const { type, ply, move, ...turn } = change;
    this.show({ ...s, ...turn, moves: [...s.moves, move] });
  }

  // Resigning or aborting takes a second click within three seconds, so
  // a slip of the mouse does not end the game: the button `type` (also
  // the message sent) reads `question` until then, `label` after.
  clickTwice(type, label, question) {
    const button = $(type);
    const reset = () => {
      delete button.dataset.confirm;
      button.textContent = label;
    };
    clearTimeout(button.confirmTimer);
    if (button.dataset.confirm) {
      reset();
      this.app.send({ type });
      return;
    }
    button.dataset.confirm = "yes";
    button.textContent = question;
    button.confirmTimer = setTimeout(reset, 3000);
  }

  // After a game, another like it: a new room with this one's settings
  // (rules, clock, who may sit, the engine's strength, the start) and a
  // colour drawn at random, or a new run after a ladder run.
  newGame() {
    const s = this.state;
    const c = s.config;
    if (s.ladder) {
      this.app.send({ type: "ladder", variant: c.variant, name: this.app.name(), device: this.app.device });
      return;
    }
    const variant = variantInfo(this.app.welcome, c.variant);
    const setup = {
      variant: c.variant,
      rules: c.rules,
      clock: c.clock,
      colour: "random",
      opponent: c.opponent,
      skill: c.skill,
      elo: c.elo,
      start: variant && s.start_fen === variant.start_fen ? null : s.start_fen,
    };
    this.app.send({ type: "create", name: this.app.name(), setup });
  }

  show(state) {
    if (this.state && this.state.id === state.id && state.seq < this.state.seq) return;
    if (this.state && this.state.id !== state.id) {
      this.replay.close();
      this.flipped = false;
    }
    if (this.state && this.state.id === state.id) this.tellAnswers(this.state, state);
    this.sounds.play(soundFor(this.state, state));
    const before = this.state;
    this.state = state;
    this.receivedAt = performance.now();
    if (!before || before.id !== state.id) this.openFromAddress();
    this.followLiveReplay();
    const ahead = this.settlePremove(before, state);
    this.draw();
    if (ahead) this.board.play(ahead);
  }

  // The move picked ahead lives for one move of the opponent: the state
  // that adds it, giving the player the turn, has it played if it is
  // legal then (its text, for the caller to play once the board shows
  // that state), else drops it. Any other change of the moves (a
  // takeback, a new game, another room) or the game's end drops it; news
  // that leaves the moves as they were (an offer, a page coming) keeps it.
  settlePremove(before, after) {
    if (!this.board.premove) return null;
    const same = before && before.id === after.id && before.game_no === after.game_no;
    const grown = same && after.moves.length === before.moves.length + 1;
    const kept = same && after.moves.length === before.moves.length;
    if (after.phase !== "playing" || !(grown || kept)) {
      this.board.premove = null;
      return null;
    }
    if (!grown || after.to_move !== this.myColour()) return null;
    return this.board.takePremove(after.legal);
  }

  // A replay of the room's latest game follows the moves made (or taken
  // back) since it was read, and its end (a resignation makes no move):
  // it is asked for again where it stands, so the list shows them and
  // stepping to its end is being back in the game.
  followLiveReplay() {
    const s = this.state;
    const r = this.replay;
    const ended = Boolean(s.result) && r.game && !r.game.result;
    const stale = r.game && r.game.game_no === s.game_no && (r.game.plies.length !== s.moves.length || ended);
    if (stale && !r.wanted) r.open(s.game_no, r.ply, s.moves.length);
  }

  // Say what became of an offer, where only a button would change: one
  // of mine gone with no move made was declined, or (a takeback) granted;
  // the opponent offers a draw, asks for a takeback or a rematch (on a
  // phone the answers' buttons are below the board); the claim opens.
  tellAnswers(before, after) {
    const mine = this.myColour();
    const sameGame = after.game_no === before.game_no;
    // A new game answers every question of the last.
    if (!sameGame) Object.values(QUESTIONS).forEach((text) => this.app.withdrawNote(text));
    // On a phone the result is below the board: say it here too, to
    // players and watchers alike.
    if (sameGame && before.phase === "playing" && after.phase === "over") this.app.notice(endText(after.result, this.names()));
    if (!mine || !sameGame) return;
    const still = after.phase === "playing" && after.moves.length === before.moves.length;
    const tookBack = after.moves.length < before.moves.length;
    if (still && before.draw_offer === mine && after.draw_offer === null) this.app.notice("Your draw offer was declined.");
    const seat = this.mySeat();
    if (before.rematch[seat] && !after.rematch[seat]) this.app.notice("Your rematch request was declined.");
    if (before.takeback === mine && after.takeback === null) {
      if (still) this.app.notice("Your takeback request was declined.");
      if (tookBack) this.app.notice("Your takeback request was accepted.");
    }
    const theirs = mine === "white" ? "black" : "white";
    const other = 1 - seat;
    // A question shows while it is asked: answered, lapsed or the game
    // over, its note goes.
    const questions = [
      [before.draw_offer === theirs, after.draw_offer === theirs, QUESTIONS.draw],
      [before.takeback === theirs, after.takeback === theirs, QUESTIONS.takeback],
      [before.rematch[other], !after.ladder && after.rematch[other], QUESTIONS.rematch],
    ];
    for (const [asked, asks, text] of questions) {
      if (!asked && asks) this.app.notice(text);
      if (asked && !asks) this.app.withdrawNote(text);
    }
    // On a phone the claim's buttons are below the board: say it here too.
    const me = COLOUR_INDEX[mine];
    if (!before.may[me].claim && after.may[me].claim) this.app.notice("Your opponent left the game: you may claim it.");
  }

  draw() {
    const s = this.state;
    if (!s) return;
    const colour = this.myColour();
    const size = boardSize(this.app.welcome, s.config.variant);
    const myTurn = s.phase === "playing" && colour === s.to_move;
    const replaying = Boolean(this.replay.game);
    const shown = replaying ? this.replay.position() : { fen: s.fen, lastMove: s.last_move };
    // Waiting for the turn, a player may pick a move ahead.
    const waiting = s.phase === "playing" && colour && !myTurn && !replaying;
    this.board.show({
      size,
      fen: shown.fen,
      legal: myTurn && !replaying ? s.legal : [],
      premoves: waiting ? s.premoves : [],
      lastMove: shown.lastMove,
      flipped: this.bottomColour(this.myColourShown()) === "black",
      canMove: myTurn && !replaying,
      captureForced: s.capture_forced && !replaying,
    });
    document.body.dataset.phase = s.phase;
    document.body.dataset.seated = colour ? "yes" : "no";
    // A ladder's set position is its handicap, which the run's line says.
    const setPosition = !s.ladder && s.start_fen !== variantInfo(this.app.welcome, s.config.variant).start_fen;
    const fromPosition = setPosition ? " · from a set position" : "";
    $("room-title").textContent = `${variantTitle(this.app.welcome, s.config.variant)} · ${s.config.clock ?? "no clock"} · ${rulesText(s.config.rules)}${fromPosition}`;
    this.players(this.myColourShown());
    this.ladder();
    this.status(colour, myTurn);
    if (document.body.dataset.view === "room") this.tabTitle(myTurn);
    this.buttons(colour);
    this.moves();
    this.replayBar();
    this.graph();
    $("watchers").textContent = `${s.watchers} watching`;
    // A room still drawn while the page asks for another is no chat's.
    if (s.id === this.app.roomId) this.chat.room(s, this.mySeat());
    $("pdn-link").href = `/pdn/${s.id}`;
    this.tickClocks();
  }

  // Stepping through the game being played up to its last move is being
  // back in it, as on lichess: the board takes moves again.
  replayMoved() {
    const s = this.state;
    const r = this.replay;
    const live = s && s.phase === "playing" && r.game && r.game.game_no === s.game_no;
    if (live && r.ply >= s.moves.length) r.close();
    else {
      this.draw();
      this.markAddress();
    }
  }

  // The address says the move a replay shows, so that it can be shared
  // and a reload comes back to it, as lichess's does: `#12` for ply 12
  // of the room's game, `#g1-12` of its first game; none for the game as
  // it stands.
  markAddress() {
    const s = this.state;
    if (!s || location.pathname !== `/room/${s.id}`) return;
    const r = this.replay;
    const hash = !r.game ? "" : r.game.game_no === s.game_no ? `#${r.ply}` : `#g${r.game.game_no}-${r.ply}`;
    if (location.hash !== hash) history.replaceState(history.state, "", location.pathname + hash);
  }

  // A room opened at an address naming a move (`#12`, `#g1-12`) replays
  // its game there.
  openFromAddress() {
    const named = location.hash.match(/^#(?:g(\d+)-)?(\d+)$/);
    if (!named) return;
    const s = this.state;
    const game = named[1] ? Number(named[1]) : s.game_no;
    const ply = Number(named[2]);
    if (game < 1 || game > s.game_no) return;
    const latest = game === s.game_no;
    if (latest && ply >= s.moves.length && s.phase === "playing") return;
    this.replay.open(game, ply, latest ? s.moves.length : undefined);
  }

  // The game the page shows: a replay's, or the room's own.
  shownGameNo() {
    return this.replay.game ? this.replay.game.game_no : this.state.game_no;
  }

  // The analysis of the game shown: the room's own, or the stored one a
  // replay of an earlier game brought.
  shownAnalysis() {
    const a = this.state.analysis;
    if (a && a.game_no === this.shownGameNo()) return a;
    const r = this.replay.game;
    return r && r.analysis ? r.analysis : null;
  }

  // The analysis graph of the game shown, once analysed: a click on it
  // replays that game to the move clicked.
  graph() {
    const a = this.shownAnalysis();
    const shown = a && a.status === "done";
    const r = this.replay;
    drawGraph($("graph"), shown ? a.evals : [], {
      labels: shown && !r.game ? this.state.moves : r.moves(),
      current: shown && r.game ? r.ply : null,
      onPick: (ply) => r.open(a.game_no, ply),
    });
    const words = { running: "analysis: running", done: "analysis: done", failed: "The analysis failed: ask for it again." };
    $("analysis-status").textContent = a ? words[a.status] : "";
  }

  // The replay's controls: where it stands, and a button per game of the
  // room (a ladder run plays one game per rival).
  replayBar() {
    const s = this.state;
    const r = this.replay;
    $("replay-bar").hidden = !r.game;
    if (r.game) {
      const total = r.game.plies.length;
      const result = r.game.result ? ` · ${resultText(r.game.result, r.game)}` : "";
      $("replay-where").textContent = `Game ${r.game.game_no}: ${r.ply === 0 ? "start" : plyText(r.game.start_fen, r.ply, r.moves()[r.ply - 1], total)}${result}`;
    }
    const games = [];
    for (let n = 1; n <= s.game_no; n++) {
      const current = r.game ? r.game.game_no === n : n === s.game_no;
      // A ladder run plays one game per rival: game n was rival n's.
      const label = s.ladder ? `Rival ${n}` : String(n);
      games.push(h("button", { class: current ? "game current" : "game", dataset: { game: n } }, label));
    }
    fill($("game-buttons"), games);
    $("games").hidden = s.game_no < 2;
    $("replay-start").hidden = Boolean(r.game) || s.moves.length === 0;
  }

  // Step through a stored game: a click on a move, the buttons, or the
  // arrow keys.
  replayControls() {
    $("game-buttons").addEventListener("click", (event) => {
      const game = event.target.dataset && event.target.dataset.game;
      if (game) this.replay.open(Number(game), 0);
    });
    $("replay-start").addEventListener("click", () => this.replay.open(this.state.game_no, 0, this.state.moves.length));
    $("replay-first").addEventListener("click", () => this.replay.go(0));
    $("replay-prev").addEventListener("click", () => this.replay.step(-1));
    $("replay-next").addEventListener("click", () => this.replay.step(1));
    $("replay-last").addEventListener("click", () => this.replay.go(Infinity));
    $("replay-live").addEventListener("click", () => this.replay.close());
    // The keys step through the game being played too: a step back opens
    // its replay.
    const moves = () => (this.state ? this.state.moves.length : 0);
    const go = (ply) => {
      if (this.replay.game) this.replay.go(ply);
      else if (ply < moves()) this.replay.open(this.state.game_no, Math.max(0, ply), moves());
    };
    listenForStepKeys("room", () => Boolean(this.replay.game) || moves() > 0, (d) => go((this.replay.game ? this.replay.ply : moves()) + d), go);
  }

  // The colour drawn at the bottom: the player's own (White for a
  // watcher), the other after "Flip board".
  bottomColour(colour) {
    const own = colour ?? "white";
    return this.flipped ? (own === "white" ? "black" : "white") : own;
  }

  // The player bars: `colour` (the viewer's, White for a watcher) at the
  // bottom, or the other after "Flip board".
  players(colour) {
    const s = this.state;
    const bottom = this.bottomColour(colour);
    for (const [place, wanted] of [["bottom", bottom], ["top", bottom === "white" ? "black" : "white"]]) {
      const seat = this.seatPlaying(wanted);
      const bar = $(`player-${place}`);
      bar.dataset.colour = wanted;
      // A replay names who played that game (a ladder's rival of then,
      // a rematch's colours); otherwise the seat as the server names it.
      const replayed = this.replay.game && this.replay.game[wanted];
      const name = replayed || (seat && seat.name);
      fill(bar.querySelector(".name"), name || "(free seat)");
      bar.querySelector(".online").hidden = !seat || seat.online;
      bar.classList.toggle("to-move", s.phase === "playing" && s.to_move === wanted);
    }
  }

  // The seat that plays `colour` in the room's game, if taken.
  seatPlaying(colour) {
    return this.state.seats.find((p) => p && p.colour === colour) ?? null;
  }

  // The players' names by colour, `{white, black}` (a free seat has
  // none).
  names() {
    const named = (colour) => this.seatPlaying(colour)?.name ?? null;
    return { white: named("white"), black: named("black") };
  }

  // The tab's title says when it is the player's move (so that a player
  // reading another tab sees it, as on lichess), else who plays whom.
  tabTitle(myTurn) {
    const { white, black } = this.names();
    const game = white && black ? `${white} vs ${black}` : "Waiting for an opponent";
    document.title = `${myTurn ? "Your move" : game} · bashni`;
  }

  // How near the no-progress draw the game is, while it is played: a
  // capture or a man move starts the count again.
  noProgress() {
    const s = this.state;
    const limit = s.config.rules.no_progress_plies;
    const count = Number(s.fen.split(" ").at(-2));
    const shown = s.phase === "playing" && limit > 0 && count > 0;
    $("no-progress").hidden = !shown;
    if (shown) $("no-progress").textContent = `No capture or man move for ${plyCount(count)}: a draw at ${plyCount(limit)}.`;
  }

  ladder() {
    const run = this.state.ladder;
    $("ladder-info").hidden = !run;
    if (!run) return;
    if (this.myColour()) noteRun(this.state.config.variant, this.state.id, run.status === "playing");
    // Between games the run's rival is the next one, not the one just met.
    const between = this.state.phase === "over" && run.status === "playing";
    $("ladder-rival-label").textContent = between ? "Next: rival" : "Rival";
    $("ladder-whose").textContent = this.myColour() ? "Your" : `${this.climber()}'s`;
    $("ladder-rival").textContent = String(run.rival);
    $("ladder-last").textContent = String(run.last_rival);
    $("ladder-handicap").textContent = run.handicap > 0 ? ` (${menShort(run.handicap)})` : "";
    $("ladder-wins").textContent = String(run.wins);
    $("ladder-score").textContent = String(run.score);
    $("ladder-best").textContent = run.best > 0 ? String(run.best) : "-";
    const tenths = run.think_tenths_per_win;
    const perWin = tenths === null ? "-" : `${(tenths / 10).toFixed(1)} s`;
    $("ladder-per-win").textContent = perWin;
  }

  // Who climbs: the run's player sits first.
  climber() {
    const seat = this.state.seats[0];
    return seat ? isolate(seat.name) : "The player";
  }

  // After a ladder game: where the run stands, and what comes next, to
  // the player or, for a watcher, about them.
  runText() {
    const run = this.state.ladder;
    const mine = Boolean(this.myColour());
    const who = mine ? "You" : this.climber();
    if (run.status === "complete") return `${who} beat every rival: the run is complete, score ${run.score}.`;
    if (run.status !== "playing") return `The run ends here, score ${run.score}.`;
    const next = mine ? "the game starts when you ask" : `the game starts when ${who} asks`;
    const short = run.handicap > 0 ? `, and ${mine ? "you start" : "the player starts"} ${menShort(run.handicap)}` : "";
    return `${who} beat rival ${run.rival - 1}. Rival ${run.rival} is next${short}: ${next}.`;
  }

  // Before a game: the creator is told how an opponent comes; a visitor,
  // whom it is that waits and how to play them.
  waitingText(colour) {
    const s = this.state;
    if (!colour) {
      const creator = s.seats[0] ? isolate(s.seats[0].name) : "The creator";
      return `${creator} is waiting for an opponent: take the free seat to play.`;
    }
    return s.config.opponent === "anyone"
      ? "Waiting for an opponent: share this page's address, or wait for someone from the lobby."
      : "Waiting for an opponent: share this page's address.";
  }

  status(colour, myTurn) {
    const s = this.state;
    let text;
    if (s.phase === "waiting") text = this.waitingText(colour);
    else if (s.phase === "over") text = endText(s.result, this.names());
    else if (myTurn) text = s.capture_forced ? "Your move: a capture is compulsory." : "Your move.";
    else text = `${colourWord(s.to_move)} to move.`;
    if (s.engine_status && s.phase === "playing") text += ` Engine: ${s.engine_status}.`;
    if (s.ladder && s.phase === "over") text += `. ${this.runText()}`;
    $("status").textContent = text;
    this.noProgress();
    const offer = (who) => who && colour && who !== colour;
    $("draw-offered").hidden = !offer(s.draw_offer);
    $("takeback-asked").hidden = !offer(s.takeback);
    const free = s.seats.some((p) => p === null);
    $("take-seat").hidden = !(s.phase === "waiting" && free && !colour && s.config.opponent !== "engine");
  }

  // The buttons the server says this player may use: nothing it would
  // refuse is offered.
  buttons(colour) {
    const s = this.state;
    const may = colour ? s.may[COLOUR_INDEX[colour]] : {};
    $("abort").hidden = !may.abort;
    // Before both sides have moved a game is aborted, not resigned.
    $("resign").hidden = !may.resign || may.abort;
    // While the opponent's offer waits, its Accept and Decline answer it.
    const theirs = (who) => Boolean(who) && who !== colour;
    // A draw offered lately: the button stays, dimmed, saying when.
    const drawIn = may.offer_draw_in_moves;
    $("offer-draw").hidden = !(may.offer_draw || drawIn) || theirs(s.draw_offer);
    $("takeback").hidden = !may.takeback || theirs(s.takeback);
    // An offer of one's own stands until it is answered or a move lapses it.
    const pending = (id, who, asked, ask) => {
      $(id).disabled = who === colour;
      $(id).textContent = who === colour ? asked : ask;
    };
    pending("offer-draw", s.draw_offer, "Draw offered", "Offer a draw");
    if (drawIn) $("offer-draw").disabled = true;
    $("offer-draw").title = drawIn ? `You may offer a draw again in ${drawIn} move${drawIn === 1 ? "" : "s"}.` : "";
    pending("takeback", s.takeback, "Takeback asked", "Ask to take back");
    $("rematch").hidden = !may.rematch;
    $("claim-win").hidden = $("claim-draw").hidden = !may.claim;
    // The creator of a room still waiting may call it off.
    $("cancel").hidden = !(s.phase === "waiting" && colour);
    // A PDN once there is a game to put in it: one called off is none.
    const aborted = Boolean(s.result) && s.result.result === "*";
    $("pdn-link").hidden = s.game_no === 1 && (s.moves.length === 0 || aborted);
    const runOver = s.ladder && s.ladder.status !== "playing";
    $("new-game").hidden = !(s.phase === "over" && colour) || (Boolean(s.ladder) && !runOver);
    $("new-game").textContent = s.ladder ? "New run" : "New game";
    const seat = this.mySeat();
    const rematch = seat !== null && s.rematch[seat] ? "Rematch asked" : (s.rematch.some(Boolean) ? "Accept rematch" : "Rematch");
    // The other's request may be declined (never the next rival's game).
    const theyAsk = seat !== null && !s.ladder && s.phase === "over" && s.rematch[1 - seat] && !s.rematch[seat];
    $("decline-rematch").hidden = !theyAsk;
    // In a ladder run the rematch is the next rival's game.
    $("rematch").textContent = s.ladder ? `Play rival ${s.ladder.rival}` : rematch;
    // "Analyse this game" is the room's latest game's: not offered while
    // an earlier one is replayed.
    const earlier = this.replay.game && this.replay.game.game_no !== s.game_no;
    $("analyse").hidden = !s.may_analyse || Boolean(earlier);
    // Only a finished game: no help from an engine in a game going on.
    $("to-study").hidden = !(this.replay.game ? this.replay.game.result : s.phase === "over");
  }

  // The game shown to the analysis board: its start, its moves up to the
  // one shown, its rules, how it ended (a resignation, say, which the
  // position alone does not tell) and who played it.
  toStudy() {
    const s = this.state;
    const r = this.replay;
    const line = r.game
      ? { start_fen: r.game.start_fen, moves: r.moves(), cursor: r.ply }
      : { start_fen: s.start_fen, moves: s.moves, cursor: s.moves.length };
    const result = r.game ? r.game.result : s.result;
    const recorded = result && result.result !== "*" ? { result: result.result, reason: result.reason } : null;
    // Who played it: a replay's players of then, else the seats'.
    const named = (colour) => (r.game && r.game[colour]) || this.names()[colour] || "";
    const header = { white: named("white"), black: named("black"), event: "", date: "" };
    this.app.study({ variant: s.config.variant, ...line, rules: s.config.rules, recorded, header });
  }

  // The move list of the game shown (the live one, or a replay's), with
  // the analysis marks of that game; a click on a move replays it.
  moves() {
    const s = this.state;
    const r = this.replay;
    const moves = r.game ? r.moves() : s.moves;
    const startFen = r.game ? r.game.start_fen : s.start_fen;
    const analysis = this.shownAnalysis();
    const texts = moves.map((text, j) => text + markOf(analysis, j));
    const list = $("moves");
    fillMoveList(list, texts, startFen, r.game ? r.ply : null, (ply) => this.replayAt(ply));
    if (!r.game) list.scrollTop = list.scrollHeight;
  }

  // Show the position after `ply` of the game in the list: the replay's,
  // or the live game's (which starts a replay of it).
  replayAt(ply) {
    if (this.replay.game) this.replay.go(ply);
    else this.replay.open(this.state.game_no, ply, this.state.moves.length);
  }

  // Both clocks: the live ones, the side to move's counting down from
  // when the state came, also while a player steps back through a game
  // being played (its clock runs all the same); in a replay once the game
  // is over, both as they stood after the move shown.
  tickClocks() {
    // Offline, the clocks stay as last drawn, greyed: the server keeps the
    // time, and a count of the page's own would jump back once the room
    // comes again.
    const offline = document.body.dataset.connection !== "online";
    for (const clock of document.querySelectorAll("#board-area .clock")) clock.classList.toggle("stale", offline);
    if (offline) return;
    const s = this.state;
    const r = this.replay;
    const live = !r.game || (Boolean(s) && s.phase === "playing");
    // At a finished game's end, the clocks as they stopped (a flag fallen).
    const replayed = () => {
      if (r.ply === r.game.plies.length && r.game.end_clock_ms) return r.game.end_clock_ms;
      return r.ply === 0 ? r.game.start_clock_ms : r.game.plies[r.ply - 1].clock_ms;
    };
    const clocks = !s ? null : live ? s.clock_ms : replayed();
    const passed = s && live && s.phase === "playing" ? performance.now() - this.receivedAt : 0;
    for (const place of ["top", "bottom"]) {
      const bar = $(`player-${place}`);
      const colour = bar.dataset.colour;
      const running = Boolean(s) && live && s.phase === "playing" && s.to_move === colour && !s.first_moves;
      const clock = bar.querySelector(".clock");
      const left = clocks ? clocks[COLOUR_INDEX[colour]] - (running ? passed : 0) : null;
      clock.textContent = left === null ? "" : clockText(left);
      clock.classList.toggle("running", running);
      // Under ten seconds a running clock turns red (it shows tenths too).
      clock.classList.toggle("low", running && left < LOW_TIME_MS);
    }
    this.firstMoveWait(live, passed);
    this.opponentGone(passed);
    this.tickRunTime(passed);
  }

  // The opponent has left the game: how long until the player may claim
  // it, then the two ways to end it (the server says when: the page only
  // counts down).
  opponentGone(passed) {
    const s = this.state;
    const colour = s && this.myColour();
    const wait = colour && s.phase === "playing" ? s.claim_in_ms[COLOUR_INDEX[colour]] : null;
    $("opponent-gone").hidden = wait === null;
    if (wait === null) return;
    const other = this.seatPlaying(colour === "white" ? "black" : "white");
    const name = other ? isolate(other.name) : "Your opponent";
    const seconds = Math.max(0, Math.ceil((wait - passed) / 1000));
    const may = s.may[COLOUR_INDEX[colour]].claim;
    $("opponent-gone-text").textContent = may
      ? `${name} left the game. Claim the win, call it a draw, or wait.`
      : `${name} left the game. If they are not back in ${seconds}\u00a0s, you may claim the win or a draw.`;
  }

  // A ladder run's thinking time in this game, counting on the player's
  // turn as the clocks do (a win adds it to the run's).
  tickRunTime(passed) {
    const s = this.state;
    if (!s || !s.ladder) return;
    const counting = s.phase === "playing" && s.to_move === "white";
    const ms = s.ladder.game_think_ms + (counting ? passed : 0);
    // In tenths cut short, as the run's time per win is counted.
    $("ladder-this-game").textContent = `${(Math.floor(ms / 100) / 10).toFixed(1)} s`;
  }

  // Before both sides have moved no clock runs; the side to move has a
  // while to make its first move, or the game is aborted.
  firstMoveWait(live, passed) {
    const s = this.state;
    const waiting = Boolean(s) && live && s.phase === "playing" && s.abort_in_ms != null;
    $("first-move").hidden = !waiting;
    if (!waiting) return;
    const seconds = Math.max(0, Math.ceil((s.abort_in_ms - passed) / 1000));
    const who = s.to_move === this.myColour() ? "You have" : `${colourWord(s.to_move)} has`;
    $("first-move").textContent = `${who} ${seconds} s to make a first move, or the game is aborted.`;
  }
}

// Plies as moves, halves included: "½ move", "7 moves", "7½ moves".
function plyCount(plies) {
  const moves = Math.floor(plies / 2);
  const half = plies % 2 ? "½" : "";
  return `${moves || !half ? moves : ""}${half} ${plies <= 2 ? "move" : "moves"}`;
}

// The player's handicap against a rival from 8 on: "one man short".
function menShort(men) {
  return men === 1 ? "one man short" : `${men} men short`;
}
