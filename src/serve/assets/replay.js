import { fill, h } from "./text.js";
import { firstRow } from "./numbering.js";

// A stored game, stepped through move by move. The server sends the
// game as it is stored, with the position after every move, so the page
// only chooses which one to show: ply 0 is the start, ply N the position
// after the N-th move.

export class Replay {
  // send(message): to the server; onChange(): draw again.
  constructor(send, onChange) {
    this.send = send;
    this.onChange = onChange;
    this.game = null; // the "replay" message being shown
    this.ply = 0;
    this.wanted = null; // {game, ply} asked for and not yet here
  }

  get active() {
    return this.game !== null || this.wanted !== null;
  }

  // Show game `gameNo` at `ply` (the last ply when null), asking the
  // server unless that game, with `plies` moves, is here already.
  open(gameNo, ply, plies) {
    const here = this.game && this.game.game_no === gameNo && (plies === undefined || this.game.plies.length === plies);
    if (here) return this.go(ply ?? this.game.plies.length);
    this.wanted = { game: gameNo, ply };
    this.send({ type: "replay", game: gameNo });
  }

  // A "replay" message arrived.
  receive(message) {
    if (!this.wanted || this.wanted.game !== message.game_no) return;
    this.game = message;
    const ply = this.wanted.ply;
    this.wanted = null;
    this.go(ply ?? message.plies.length);
  }

  go(ply) {
    if (!this.game) return;
    this.ply = Math.max(0, Math.min(ply, this.game.plies.length));
    this.onChange();
  }

  step(delta) {
    this.go(this.ply + delta);
  }

  close() {
    this.game = null;
    this.wanted = null;
    this.onChange();
  }

  // What the board shows: the position at the chosen ply and the move
  // that led to it.
  position() {
    const g = this.game;
    if (this.ply === 0) return { fen: g.start_fen, lastMove: null };
    const ply = g.plies[this.ply - 1];
    return { fen: ply.fen, lastMove: ply.move };
  }

  moves() {
    return this.game ? this.game.plies.map((p) => p.move.text) : [];
  }
}

// Step through moves with the keys (← → Home End) while the page shows
// `view` and nobody is typing: step(delta) and go(ply) move the cursor.
export function listenForStepKeys(view, active, step, go) {
  document.addEventListener("keydown", (event) => {
    const typing = event.target instanceof Element && event.target.closest("input, textarea, select");
    if (document.body.dataset.view !== view || typing || !active()) return;
    const keys = { ArrowLeft: () => step(-1), ArrowRight: () => step(1), Home: () => go(0), End: () => go(Infinity) };
    if (keys[event.key]) {
      event.preventDefault();
      keys[event.key]();
    }
  });
}

// Fill `list` with `texts`, the moves of a game from `startFen`, as
// numbered pairs of moves (a game that starts with Black leaves its first
// White move out), each a span to click (its ply in data-ply; a click
// calls onPick(ply)), the one at ply `current` marked and scrolled into
// view.
export function fillMoveList(list, texts, startFen, current, onPick) {
  const cell = (j) => j >= 0 && j < texts.length
    ? h("span", { class: j + 1 === current ? "move current" : "move", dataset: { ply: j + 1 }, onclick: () => onPick(j + 1) }, texts[j])
    : null;
  const { number, blackFirst } = firstRow(startFen);
  const items = [];
  for (let i = blackFirst ? -1 : 0; i < texts.length; i += 2) {
    items.push(h("li", {}, i < 0 ? h("span", { class: "skipped" }, "…") : cell(i), " ", cell(i + 1)));
  }
  fill(list, items);
  list.start = number;
  const marked = list.querySelector(".current");
  if (marked) marked.scrollIntoView({ block: "nearest" });
}
