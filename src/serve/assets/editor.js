// The position editor: pick a piece and click squares to stack it on
// their columns, from the bottom up (each click puts the piece on top),
// or clear a square; choose the side to move and the variant. The page
// only writes the position string (notation); whether the position is
// one the rules take is the server's answer, shown here word for word.

import { $, fill, h, readJson } from "./text.js";
import { Board, columnsOf } from "./board.js";
import { fillVariants, variantInfo } from "./variants.js";

// The position being edited, kept by this browser.
const EDITOR_KEY = "bashni.editor";

// The tools: a piece letter of the position string, or "clear".
const TOOLS = [
  ["w", "White man"], ["W", "White king"], ["b", "Black man"], ["B", "Black king"], ["clear", "Clear square"],
];

export class Editor {
  // app: {send(message), welcome, analyse(variant, fen)}
  constructor(app) {
    this.app = app;
    this.variant = null;
    this.columns = new Map();
    // The position's counts after its board: plies without a capture or
    // a man move, and the move number (kept from the position loaded, so
    // a game's position edited goes on at its move; an edit starts the
    // quiet count again, as a position set by hand has no past).
    this.quiet = 0;
    this.moveNumber = 1;
    this.board = new Board($("editor-board"), () => {});
    fill($("editor-tools"), TOOLS.map(([value, title], i) => h("label", { class: "tool" },
      h("input", { type: "radio", name: "editor-tool", value, checked: i === 0 }), ` ${title}`)));
    $("editor-variant").addEventListener("change", () => this.load($("editor-variant").value, null));
    $("editor-to-move").addEventListener("change", () => this.edited());
    $("editor-start").addEventListener("click", () => this.load(this.variant, null));
    $("editor-empty").addEventListener("click", () => {
      this.columns = new Map();
      this.edited();
    });
    $("editor-done").addEventListener("click", () => this.app.analyse(this.variant, this.fen()));
  }

  // The variants offered; the position this browser last edited comes
  // back (a reload kept nothing before).
  setup(welcome) {
    fillVariants($("editor-variant"), welcome);
    if (this.variant) return;
    const kept = readJson(EDITOR_KEY);
    const known = kept && welcome.variants.some((v) => v.name === kept.variant);
    try {
      if (known) return this.load(kept.variant, kept.fen);
    } catch {
      // A kept position that no longer reads: start afresh.
    }
    this.load(welcome.variants[0].name, null);
  }

  info() {
    return variantInfo(this.app.welcome, this.variant);
  }

  // Start from `fen`, or from the variant's start position.
  load(variant, fen) {
    this.variant = variant;
    const position = fen || this.info().start_fen;
    this.columns = columnsOf(position);
    const [, quiet, number] = position.trim().split(/\s+/);
    this.quiet = parseInt(quiet, 10) || 0;
    this.moveNumber = parseInt(number, 10) || 1;
    $("editor-variant").value = variant;
    $("editor-to-move").value = position.trim().startsWith("B") ? "B" : "W";
    this.error("");
    this.draw();
  }

  tool() {
    const picked = document.querySelector("input[name='editor-tool']:checked");
    return picked ? picked.value : "w";
  }

  click(square) {
    const tool = this.tool();
    if (tool === "clear") this.columns.delete(square);
    else this.columns.set(square, tool + (this.columns.get(square) || ""));
    this.edited();
  }

  // The position was changed by hand.
  edited() {
    this.quiet = 0;
    this.error("");
    this.draw();
  }

  // The position string: side to move, then each column top piece first.
  fen() {
    const columns = [...this.columns].map(([square, pieces]) => square + pieces);
    return `${$("editor-to-move").value}:${columns.join(",")} ${this.quiet} ${this.moveNumber}`;
  }

  // The server's refusal quotes the whole position string, which the
  // editor shows under the board already: what is wrong is said alone.
  error(text) {
    const reason = text.replace(/^position '[^']*': /, "");
    $("editor-error").textContent = reason.charAt(0).toUpperCase() + reason.slice(1);
  }

  draw() {
    this.board.show({
      size: this.info().size,
      fen: this.fen(),
      legal: [],
      lastMove: null,
      flipped: false,
      canMove: false,
      captureForced: false,
      onSquare: (square) => this.click(square),
    });
    // A long position breaks after a column's comma, not inside a square.
    const columns = this.fen().split(",");
    fill($("editor-fen"), columns.flatMap((text, i) => (i + 1 < columns.length ? [`${text},`, h("wbr")] : [text])));
    localStorage.setItem(EDITOR_KEY, JSON.stringify({ variant: this.variant, fen: this.fen() }));
  }
}
