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
    this.board = new Board($("editor-board"), () => {});
    fill($("editor-tools"), TOOLS.map(([value, title], i) => h("label", { class: "tool" },
      h("input", { type: "radio", name: "editor-tool", value, checked: i === 0 }), ` ${title}`)));
    $("editor-variant").addEventListener("change", () => this.load($("editor-variant").value, null));
    $("editor-to-move").addEventListener("change", () => this.draw());
    $("editor-start").addEventListener("click", () => this.load(this.variant, null));
    $("editor-empty").addEventListener("click", () => {
      this.columns = new Map();
      this.draw();
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
    this.error("");
    this.draw();
  }

  // The position string: side to move, then each column top piece first.
  fen() {
    const columns = [...this.columns].map(([square, pieces]) => square + pieces);
    return `${$("editor-to-move").value}:${columns.join(",")} 0 1`;
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
    $("editor-fen").textContent = this.fen();
    localStorage.setItem(EDITOR_KEY, JSON.stringify({ variant: this.variant, fen: this.fen() }));
  }
}
