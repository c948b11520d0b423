// The analysis board: a line of moves from a start position (the
// variant's, one from the editor, or an imported PDN's), entered by
// clicks for both sides, a move list to walk through (click a move, the
// arrow keys, or the buttons), the engine's lines on the position shown
// (clicking one plays its first move), PDN in and out, and "play from
// here". The server checks every line and sends the position, the legal
// moves and the result: the page keeps only what it was last sent.

import { $, colourWord, copyLink, endText, fill, h, isolate, readJson } from "./text.js";
import { Board } from "./board.js";
import { typeMoves } from "./typing.js";
import { boardSize, fillVariants, rulesText } from "./variants.js";
import { fillMoveList, listenForStepKeys } from "./replay.js";
import { numberedLine } from "./numbering.js";
import { messageBytes, positionOf, splitGames } from "./pdnfile.js";

// The least time between two requests for a line, in milliseconds.
const SEND_GAP_MS = 100;
// The board kept across reloads: {line, aside, flipped, lines, engine},
// the line shown, the other line set aside by a move played off it
// ({line, game}: game, whether it is the game's own line), how the board
// is looked at, and whether the engine is on. Each tab keeps its own
// (sessionStorage), so two tabs do not write over each other's lines; a
// new tab opens on the one kept last by any (localStorage).
const BOARD_KEY = "bashni.study.board";
// Where boards were kept before: a line alone, read once.
const OLD_LINE_KEY = "bashni.study";

// The board this tab kept, or the one kept last by any.
function recall() {
  const own = sessionStorage.getItem(BOARD_KEY);
  if (own === null) return readJson(BOARD_KEY) ?? { line: readJson(OLD_LINE_KEY) };
  try {
    return JSON.parse(own) ?? {};
  } catch {
    return {};
  }
}

// What of a line is sent and kept ({variant, start_fen, moves, cursor,
// rules, recorded, header}), without the position and moves the server
// adds.
function lineOf(state) {
  const { variant, start_fen, moves, cursor, rules, recorded, header } = state;
  return { variant, start_fen, moves, cursor, rules, recorded, header };
}

// The address of the position `state` shows, for a link.
function positionLink(state) {
  const query = new URLSearchParams({ variant: state.variant, fen: state.fen });
  return `${location.origin}/analysis?${query}`;
}

// Whether a key pressed on a button made of another element presses it
// (Enter or Space), as a button's would; the page then does not scroll.
function pressed(event) {
  if (event.key !== "Enter" && event.key !== " ") return false;
  event.preventDefault();
  return true;
}

// Who played the line's game, where and when: "Ann – Bob, Club game,
// 2026.11.30" (a player not known is "?"); empty for none.
function headerText(header) {
  if (!header) return "";
  const players = header.white || header.black ? `${isolate(header.white || "?")} – ${isolate(header.black || "?")}` : "";
  return [players, header.event, header.date].filter(Boolean).join(", ");
}

export class Study {
  // app: {send(message), welcome, go(path), playFrom(variant, fen, rules), edit(variant, fen)}
  constructor(app) {
    this.app = app;
    this.state = null;
    // An import, or a switch of lines, asked and not yet answered.
    this.importing = false;
    this.switching = false;
    const kept = recall();
    this.keptLine = kept.line ?? null;
    this.aside = kept.aside ?? null;
    this.flipped = Boolean(kept.flipped);
    // The engine is a switch the server keeps per connection; the page
    // keeps it too, to turn it on again after a reload or a reconnection
    // once the board is back (resuming).
    this.engineOn = Boolean(kept.engine);
    this.resuming = false;
    // The games of the PDN file last imported, to pick one from.
    this.pdnGames = [];
    this.queued = null;
    this.timer = null;
    this.board = new Board($("study-board"), (text) => this.play(text));
    typeMoves($("study-move-input"), $("study-move-hint"), this.board);
    const click = (id, f) => $(id).addEventListener("click", f);
    click("study-first", () => this.goTo(0));
    click("study-back", () => this.step(-1));
    click("study-forward", () => this.step(1));
    click("study-last", () => this.goTo(this.state ? this.state.moves.length : 0));
    click("study-flip", () => { this.flipped = !this.flipped; this.keep(); this.draw(); });
    click("study-new", () => this.newGame($("study-variant").value));
    // Another variant chosen is a new game of it at once (the board
    // showed the old one until "New game").
    $("study-variant").addEventListener("change", () => this.newGame($("study-variant").value));
    click("study-edit", () => this.state && app.edit(this.state.variant, this.state.fen));
    click("study-play", () => this.state && app.playFrom(this.state.variant, this.state.fen, this.state.rules));
    click("study-link", () => this.state && copyLink($("study-link"), positionLink(this.state)));
    click("study-analyse", () => this.analyse());
    click("study-stop", () => this.stop());
    click("study-export", () => app.send({ type: "study_export" }));
    click("study-import", () => this.importText($("study-pdn").value));
    $("study-pdn-games").addEventListener("change", () => this.importGame(Number($("study-pdn-games").value)));
    click("study-other-line", () => this.switchLines());
    if (kept.lines) $("study-multipv").value = String(kept.lines);
    $("study-multipv").addEventListener("change", () => {
      this.keep();
      if (this.engineOn) this.analyse();
    });
    listenForStepKeys("study", () => true, (delta) => this.step(delta), (ply) => this.goTo(ply));
  }

  // The server's welcome: the variants offered.
  setup(welcome) {
    fillVariants($("study-variant"), welcome);
    this.showAside();
  }

  // Entering the page's analysis view: ask for the line shown (or the
  // one this browser kept: a reload loses nothing), or a new game if
  // there is none yet (also after a reconnection, as the server keeps no
  // board for a new connection).
  enter() {
    if (this.openLinked()) return;
    const s = this.state ?? this.keptLine;
    this.resuming = this.engineOn;
    if (s) this.send(s);
    else this.newGame(this.app.welcome ? this.app.welcome.variants[0].name : "bashni");
  }

  // A link to a position (`/analysis?variant=lasca&fen=...`) opens it as
  // a new game, once: the address is then the board's own, so a reload
  // keeps the line played from it. Whether there was one.
  openLinked() {
    const query = new URLSearchParams(location.search);
    const fen = query.get("fen");
    if (!fen) return false;
    history.replaceState(history.state, "", location.pathname);
    this.anotherGame();
    this.importPosition(query.get("variant") || "bashni", fen);
    return true;
  }

  // Put `fen` of `variant` on the board as a new game, as an import: a
  // refusal is said at the PDN box.
  importPosition(variant, fen) {
    this.importing = true;
    this.app.send({ type: "study_position", variant, fen, moves: [], cursor: 0 });
  }

  // Open `line` (as `send` takes it) when the board is entered next; the
  // PDN box's text was another game's.
  load(line) {
    this.state = null;
    this.keptLine = lineOf(line);
    this.anotherGame();
  }

  // Keep `line` (the one kept so far if none given), what is set aside
  // and how the board is looked at, for a reload and the next new tab.
  keep(line = this.keptLine) {
    this.keptLine = line ? lineOf(line) : null;
    const lines = Number($("study-multipv").value);
    const board = { line: this.keptLine, aside: this.aside, flipped: this.flipped, lines, engine: this.engineOn };
    const text = JSON.stringify(board);
    sessionStorage.setItem(BOARD_KEY, text);
    localStorage.setItem(BOARD_KEY, text);
  }

  // Another game on the board: the PDN box's text and the line set aside
  // were the last one's.
  anotherGame() {
    $("study-pdn").value = "";
    $("study-download").hidden = true;
    this.pdnGames = [];
    $("study-pdn-pick").hidden = true;
    $("study-pdn-problem").textContent = "";
    this.setAside(null);
  }

  // Import what was pasted: a position string, or a PDN text whose games
  // are offered one by one (the first shown).
  importText(text) {
    $("study-pdn-problem").textContent = "";
    const fen = positionOf(text);
    if (fen) {
      this.pdnGames = [];
      $("study-pdn-pick").hidden = true;
      this.importPosition($("study-variant").value, fen);
      return;
    }
    this.pdnGames = splitGames(text);
    if (this.pdnGames.length === 0) {
      $("study-pdn-problem").textContent = "Nothing to import: paste a game or a position string.";
      return;
    }
    const pick = $("study-pdn-games");
    fill(pick, ...this.pdnGames.map((game, i) => h("option", { value: String(i) }, game.title)));
    $("study-pdn-pick").hidden = this.pdnGames.length < 2;
    this.importGame(0);
  }

  // Put game `index` of the file pasted on the board, if the server
  // takes a message so long (else say so at the box).
  importGame(index) {
    const game = this.pdnGames[index];
    if (!game) return;
    $("study-pdn-games").value = String(index);
    const message = { type: "study_pdn", text: game.text };
    const limit = this.app.welcome?.max_message_bytes ?? Infinity;
    const bytes = messageBytes(message);
    if (bytes > limit) {
      const kb = (n) => Math.ceil(n / 1024);
      const which = this.pdnGames.length > 1 ? `Game ${index + 1}` : "This game";
      $("study-pdn-problem").textContent = `${which} is ${kb(bytes)} KB; one game may have at most ${kb(limit)} KB.`;
      return;
    }
    $("study-pdn-problem").textContent = "";
    this.importing = true;
    this.app.send(message);
  }

  // Set `aside` ({line, game}, or null) aside, across reloads.
  setAside(aside) {
    this.aside = aside;
    this.keep();
    this.showAside();
  }

  showAside() {
    const aside = this.aside;
    $("study-other-line").hidden = !aside;
    if (aside) $("study-other-line").textContent = aside.game ? "Back to the game's line" : "Back to your variation";
  }

  // The line set aside and the one shown change places; once, until the
  // server shows the other (a second click meanwhile would set aside the
  // line still shown, and the game's line would be lost).
  switchLines() {
    const aside = this.aside;
    if (!aside || !this.state || this.switching) return;
    this.switching = true;
    this.setAside({ line: lineOf(this.state), game: !aside.game });
    this.send(aside.line);
  }

  // The server refused a line (`message` says why): an import's error is
  // said at the PDN box (whether it was: else the page says it); a kept
  // line that no longer reads gives way to a new game.
  refused(message) {
    const imported = this.importing;
    if (imported) $("study-pdn-problem").textContent = message;
    this.importing = this.switching = false;
    if (!this.state) {
      this.keep(null);
      this.enter();
    }
    return imported;
  }

  newGame(variant) {
    this.anotherGame();
    this.send({ variant, start_fen: null, moves: [], cursor: 0, rules: null, recorded: null, header: null });
  }

  // Ask for a line; at most one request per SEND_GAP_MS goes out, the
  // newest winning, so a held arrow key stays within the server's rate.
  // `line`: {variant, start_fen, moves, cursor, rules, recorded, header},
  // as the server sent it (rules null: the lobby rooms'; recorded: how an
  // imported game ended, if its record says; header: who played it).
  send(line) {
    const { variant, start_fen: fen, moves, cursor, rules, recorded, header } = line;
    this.queued = { type: "study_position", variant, fen, moves, cursor, rules, recorded: recorded ?? null, header: header ?? null };
    if (!this.timer) this.flush();
  }

  flush() {
    this.timer = null;
    if (!this.queued) return;
    this.app.send(this.queued);
    this.queued = null;
    this.timer = setTimeout(() => this.flush(), SEND_GAP_MS);
  }

  // A move entered on the board, or a line's first move: the moves after
  // the one shown, and how the imported game ended, give way to it.
  play(text) {
    const s = this.state;
    if (!s) return;
    // The line's own next move steps on along it, keeping what follows.
    if (s.moves[s.cursor] === text) return this.goTo(s.cursor + 1);
    // The game's line left mid-way is set aside to come back to (over a
    // variation set aside before); a variation's own tail is not kept.
    const aside = this.aside;
    if (s.cursor < s.moves.length && !(aside && aside.game)) this.setAside({ line: lineOf(s), game: true });
    const moves = [...s.moves.slice(0, s.cursor), text];
    this.send({ ...s, moves, cursor: moves.length, recorded: null });
  }

  goTo(ply) {
    const s = this.state;
    if (!s) return;
    const cursor = Math.max(0, Math.min(s.moves.length, ply));
    if (cursor !== s.cursor) this.send({ ...s, cursor });
  }

  step(delta) {
    if (this.state) this.goTo(this.state.cursor + delta);
  }

  analyse() {
    this.engineOn = true;
    this.keep();
    this.app.send({ type: "study_analyse", lines: Number($("study-multipv").value) });
  }

  stop() {
    this.engineOn = false;
    this.keep();
    this.app.send({ type: "study_stop" });
  }

  show(state) {
    const moved = !this.state || this.state.fen !== state.fen;
    this.state = state;
    // A game imported is another game: what was set aside was the last's.
    if (this.importing) this.setAside(null);
    this.importing = this.switching = false;
    this.keep(state);
    if (this.resuming) {
      this.resuming = false;
      this.analyse();
    }
    this.draw();
    this.moves();
    const s = state;
    const toMove = colourWord(s.to_move);
    let status = s.result ? endText(s.result, s.header) : `${toMove} to move.`;
    if (!s.result && s.capture_forced) status += " A capture is compulsory.";
    // A note follows as a sentence of its own ("... (Black resigned).
    // The first of ...").
    if (s.note) status += `${/[.!?]$/.test(status) ? "" : "."} ${s.note}`;
    $("study-status").textContent = status;
    $("study-header").textContent = headerText(s.header);
    $("study-rules").textContent = `Rules: ${rulesText(s.rules)}`;
    // A game the rules ended cannot be played on (one resigned can).
    const ended = s.legal.length === 0;
    $("study-play").disabled = ended;
    $("study-play").title = ended ? "The game is over in this position." : "";
    $("study-variant").value = s.variant;
    if (moved) {
      fill($("study-lines"));
      // A move typed for the position before, and what was said of it,
      // do not stand beside another.
      $("study-move-input").value = "";
      $("study-move-hint").textContent = "";
    }
  }

  draw() {
    const s = this.state;
    if (!s) return;
    const size = boardSize(this.app.welcome, s.variant);
    this.board.show({
      size,
      fen: s.fen,
      legal: s.legal,
      lastMove: s.last_move,
      flipped: this.flipped,
      canMove: s.legal.length > 0,
      captureForced: s.capture_forced,
    });
  }

  moves() {
    const s = this.state;
    fillMoveList($("study-moves"), s.moves, s.start_fen, s.cursor, (ply) => this.goTo(ply));
  }

  // The engine's lines for a position; those of another position than the
  // one shown are dropped.
  lines(message) {
    if (!this.state || message.fen !== this.state.fen) return;
    $("study-engine").textContent = `Engine: ${message.status}`;
    if (this.engineOn !== message.engine_on) {
      this.engineOn = message.engine_on;
      this.keep();
    }
    // A line is a button: a click, or Enter or Space on it, plays its
    // first move. Its moves wrap between moves, never inside one.
    const rows = message.lines.map((line) => h("li", {
      class: "line", dataset: { first: line.pv[0] }, title: "play this move", role: "button", tabindex: 0,
      onclick: () => this.play(line.pv[0]),
      onkeydown: (event) => pressed(event) && this.play(line.pv[0]),
    }, h("b", { class: "score" }, line.score), h("span", { class: "depth" }, `d${line.depth}`), " ",
    numberedLine(message.fen, line.pv).split(" ").flatMap((word, i) => [i ? " " : "", h("span", { class: "word" }, word)])));
    fill($("study-lines"), rows);
  }

  exported(text) {
    $("study-pdn").value = text;
    const link = $("study-download");
    if (link.href.startsWith("blob:")) URL.revokeObjectURL(link.href);
    link.href = URL.createObjectURL(new Blob([text], { type: "application/x-pdn" }));
    link.hidden = false;
  }
}
