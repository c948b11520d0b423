// The board: draws a position (columns from the position string, which
// is notation, not rules) and lets a player enter one of the legal moves
// the server sent, by clicking the column and then each landing square.
// Cues: the columns that can move glow; a picked column shows green dots
// where it can go; an orange glow says a capture is compulsory; once only
// one way is left in a chain, the rest plays itself; a column of two or
// more shows its height (a lone piece is plainly one), and kings wear a
// crown. A move may also be typed (typing.js). While the opponent is to
// move a player may pick a move ahead (a premove, marked blue) from the
// moves the server says they could play then, by clicks or typed; the
// room plays it when the turn comes if it is legal then, and any click
// takes it back.

const SVG = "http://www.w3.org/2000/svg";
// How long after sending a move the board waits for the server's answer
// before it takes another from the same position.
const SENT_MOVE_WAIT_MS = 2000;
const CELL = 100;

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

// "W:c3wbb,d4B 0 1" -> Map("c3" -> "wbb", ...), top piece first.
export function columnsOf(fen) {
  const [board] = fen.trim().split(/\s+/);
  const list = board.split(":")[1] || "";
  const columns = new Map();
  for (const item of list.split(",").filter(Boolean)) {
    const match = item.match(/^([a-h][1-8])([wWbB]*)$/);
    if (match) columns.set(match[1], match[2]);
  }
  return columns;
}

const isDark = (file, rank) => (file + rank) % 2 === 0;
const squareName = (file, rank) => String.fromCharCode(97 + file) + (rank + 1);

export class Board {
  // svg: the <svg> element; onMove(text): a move was entered.
  constructor(svg, onMove) {
    this.svg = svg;
    this.onMove = onMove;
    this.view = null;
    this.picked = null;
    // The move picked ahead, {from, path, text}, until played or taken back.
    this.premove = null;
  }

  // view: {size, fen, legal, lastMove, flipped, canMove, captureForced,
  // premoves, onSquare}; with premoves (a list, the player waiting for
  // the turn) a move may be picked ahead; with onSquare (the editor), a
  // click on any dark square goes to it instead of entering a move.
  show(view) {
    // Another position has come: the move sent was answered.
    if (this.sent && view.fen !== this.sent.fen) this.sent = null;
    const samePosition = this.view && this.view.fen === view.fen && this.view.canMove === view.canMove;
    this.view = view;
    if (!samePosition) this.picked = null;
    this.draw();
  }

  corner(square) {
    const size = this.view.size;
    const file = square.charCodeAt(0) - 97;
    const rank = parseInt(square.slice(1), 10) - 1;
    const col = this.view.flipped ? size - 1 - file : file;
    const row = this.view.flipped ? rank : size - 1 - rank;
    return [col * CELL, row * CELL];
  }

  draw() {
    const { size, fen } = this.view;
    const svg = this.svg;
    svg.replaceChildren();
    svg.setAttribute("viewBox", `0 0 ${size * CELL} ${size * CELL}`);
    svg.dataset.fen = fen;
    this.squares();
    this.marks();
    // Over the marks: a glowing corner square keeps its file or rank.
    this.coordinates();
    const columns = columnsOf(fen);
    for (const [square, pieces] of columns) this.column(square, pieces);
    this.targets();
    this.hitAreas(columns);
  }

  squares() {
    const size = this.view.size;
    for (let rank = 0; rank < size; rank++) {
      for (let file = 0; file < size; file++) {
        const [x, y] = this.corner(squareName(file, rank));
        el("rect", { x, y, width: CELL, height: CELL, class: isDark(file, rank) ? "dark" : "light" }, this.svg);
      }
    }
  }

  // The files along the bottom edge and the ranks along the left one.
  coordinates() {
    const size = this.view.size;
    for (let rank = 0; rank < size; rank++) {
      for (let file = 0; file < size; file++) {
        const [x, y] = this.corner(squareName(file, rank));
        const coord = (text, tx, ty) => {
          const t = el("text", { x: tx, y: ty, class: `coord${isDark(file, rank) ? " on-dark" : ""}` }, this.svg);
          t.textContent = text;
        };
        if (y === (size - 1) * CELL) coord(String.fromCharCode(97 + file), x + CELL - 14, y + CELL - 6);
        if (x === 0) coord(rank + 1, x + 5, y + 16);
      }
    }
  }

  // The moves a click may enter now: the legal ones on the player's
  // turn, or those to pick ahead while waiting for it.
  choices() {
    const v = this.view;
    if (this.waitsForAnswer()) return [];
    if (v.canMove) return v.legal;
    return v.premoves ?? [];
  }

  movable() {
    return new Set(this.choices().map((m) => m.from));
  }

  marks() {
    const v = this.view;
    if (v.lastMove) {
      for (const square of [v.lastMove.from, ...v.lastMove.path]) {
        const [x, y] = this.corner(square);
        el("rect", { x, y, width: CELL, height: CELL, class: "last" }, this.svg);
      }
    }
    // The move picked ahead shows where it could be picked (not on a
    // replayed position).
    if (this.premove && this.choices().length > 0) {
      for (const square of [this.premove.from, ...this.premove.path]) {
        const [x, y] = this.corner(square);
        el("rect", { x, y, width: CELL, height: CELL, class: "premove", "data-premove": square }, this.svg);
      }
    }
    const glow = v.captureForced ? "glow capture" : "glow";
    for (const square of v.canMove ? this.movable() : []) {
      const [x, y] = this.corner(square);
      el("rect", { x: x + 3, y: y + 3, width: CELL - 6, height: CELL - 6, rx: 10, class: glow, "data-glow": square }, this.svg);
    }
    if (this.picked) {
      for (const square of [this.picked.from, ...this.picked.path]) {
        const [x, y] = this.corner(square);
        el("rect", { x, y, width: CELL, height: CELL, class: square === this.picked.from ? "selected" : "path" }, this.svg);
      }
    }
  }

  // A column as a stack of discs seen slightly from the side: the bottom
  // piece lowest, the top one with its whole face showing.
  column(square, pieces) {
    const [x, y] = this.corner(square);
    const height = pieces.length;
    const cx = x + CELL / 2;
    const rx = 34, ry = 16;
    const step = height > 1 ? Math.min(11, 50 / (height - 1)) : 0;
    const thick = Math.max(3, Math.min(10, step || 10));
    const g = el("g", { class: "column", "data-square": square, "data-height": height, "data-pieces": pieces }, this.svg);
    const bottomFace = y + CELL / 2 + ((height - 1) * step) / 2 - thick / 2 + 4;
    for (let i = height - 1; i >= 0; i--) {
      const letter = pieces[i];
      const top = bottomFace - (height - 1 - i) * step;
      const p = el("g", { class: `piece ${letter}` }, g);
      el("ellipse", { cx, cy: top + thick, rx, ry, class: "band" }, p);
      el("rect", { x: cx - rx, y: top, width: 2 * rx, height: thick, class: "band", "stroke-width": 0 }, p);
      el("ellipse", { cx, cy: top, rx, ry, class: "face" }, p);
      const king = letter === "W" || letter === "B";
      if (king && i === 0) crown(p, cx, top);
      // A king inside the column commands again once it is uncovered: a
      // gold stripe on the front of its band says it is there.
      if (king && i > 0) {
        const shown = Math.min(step, thick);
        const stripe = Math.max(3, shown - 1);
        el("rect", { x: cx - 20, y: top + ry + thick - shown / 2 - stripe / 2, width: 40, height: stripe, rx: 1.5, class: "buried-king" }, p);
      }
    }
    if (height < 2) return;
    const badge = el("g", { class: "badge" }, g);
    el("circle", { cx: x + CELL - 15, cy: y + 15, r: 12 }, badge);
    const t = el("text", { x: x + CELL - 15, y: y + 20 }, badge);
    t.textContent = height;
  }

  matching() {
    const { from, path } = this.picked;
    return this.choices().filter((m) => m.from === from && path.every((sq, i) => m.path[i] === sq));
  }

  targets() {
    if (!this.picked) return;
    const depth = this.picked.path.length;
    const next = new Set(this.matching().filter((m) => m.path.length > depth).map((m) => m.path[depth]));
    for (const square of next) {
      const [x, y] = this.corner(square);
      el("circle", { cx: x + CELL / 2, cy: y + CELL / 2, r: 16, class: "target", "data-target": square }, this.svg);
    }
  }

  // The squares that take clicks, on top of all; one with a column says
  // what the column holds when the pointer rests on it.
  hitAreas(columns) {
    const size = this.view.size;
    const pickable = this.movable();
    for (let rank = 0; rank < size; rank++) {
      for (let file = 0; file < size; file++) {
        if (!isDark(file, rank)) continue;
        const square = squareName(file, rank);
        const [x, y] = this.corner(square);
        const hit = el("rect", { x, y, width: CELL, height: CELL, class: "hit", "data-square": square }, this.svg);
        // A column that may be picked ahead says so (it does not glow:
        // the turn is the opponent's).
        if (!this.view.canMove && pickable.has(square)) hit.dataset.ahead = "yes";
        hit.addEventListener("click", () => this.click(square));
        if (columns.has(square)) el("title", {}, hit).textContent = columnText(square, columns.get(square));
      }
    }
  }

  click(square) {
    if (this.view.onSquare) return this.view.onSquare(square);
    // A click takes a move picked ahead back (and may pick another).
    if (this.premove) this.premove = null;
    if (this.choices().length === 0) return this.draw();
    if (this.picked) {
      const depth = this.picked.path.length;
      if (this.matching().some((m) => m.path[depth] === square)) {
        this.picked.path.push(square);
        const ways = this.takeForcedSteps();
        // One way left: the rest of the chain plays itself, or waits
        // for the turn.
        if (ways.length === 1) return this.view.canMove ? this.play(ways[0].text) : this.pickAhead(ways[0]);
        return this.draw();
      }
      // A landing already taken (a step the board took for the player)
      // keeps the pick as it is; asked only after the next landings, as
      // a chain may land on a square it landed on before.
      if (this.picked.path.includes(square)) return this.draw();
    }
    this.picked = this.movable().has(square) ? { from: square, path: [] } : null;
    this.draw();
  }

  // Take the chain's next landings while every way on goes through the
  // same one (and none stops here), so that the player taps only where
  // there is a choice; the moves still matching.
  takeForcedSteps() {
    for (;;) {
      const ways = this.matching();
      const depth = this.picked.path.length;
      const next = new Set(ways.map((m) => m.path[depth]));
      if (next.size !== 1 || next.has(undefined)) return ways;
      this.picked.path.push(...next);
    }
  }

  // The squares of a move typed so far (typing.js), picked as clicks
  // would pick them; none: nothing picked.
  pickTyped(squares) {
    this.picked = squares.length > 0 ? { from: squares[0], path: squares.slice(1) } : null;
    this.draw();
  }

  play(text) {
    this.picked = null;
    this.sent = { fen: this.view.fen, at: performance.now() };
    // A refused move leaves the position as it was: the board takes
    // moves again after the wait, and shows so.
    setTimeout(() => this.draw(), SENT_MOVE_WAIT_MS);
    this.onMove(text);
    this.draw();
  }

  // A move was sent from the position shown, and the answer (another
  // position) has not come yet: the board takes no second one (it would
  // be refused as out of turn). A refused move leaves the position as it
  // was, so this lasts a moment at most.
  waitsForAnswer() {
    return Boolean(this.sent) && this.sent.fen === this.view.fen && performance.now() - this.sent.at < SENT_MOVE_WAIT_MS;
  }

  // Keep `move` to play when the turn comes.
  pickAhead(move) {
    this.picked = null;
    this.premove = { from: move.from, path: move.path, text: move.text };
    this.draw();
  }

  // The move picked ahead, if `legal` (the moves now the turn has come)
  // has it, taken off the board either way: the caller plays it.
  takePremove(legal) {
    const ahead = this.premove;
    this.premove = null;
    return ahead && legal.some((m) => m.text === ahead.text) ? ahead.text : null;
  }
}

const PIECE_NAMES = { w: "white man", W: "white king", b: "black man", B: "black king" };

// A column in words, top first: "d4: black man" or "d4: 3 pieces, top
// first: black man, white king, white man".
function columnText(square, pieces) {
  const names = [...pieces].map((letter) => PIECE_NAMES[letter]);
  if (names.length === 1) return `${square}: ${names[0]}`;
  return `${square}: ${names.length} pieces, top first: ${names.join(", ")}`;
}

function crown(parent, cx, cy) {
  const points = [[-13, 6], [-15, -6], [-7, 0], [0, -9], [7, 0], [15, -6], [13, 6]]
    .map(([dx, dy]) => `${cx + dx},${cy + dy}`).join(" ");
  el("polygon", { points, class: "crown" }, parent);
}
