// The bashni board: draws what the server sends and sends what the user
// does. The server keeps the game and checks every move; the page only
// knows the legal moves it was given.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const CELL = 100;
const $ = (id) => document.getElementById(id);

const ui = {
  state: null, // the last `state` message
  lines: [], // analysis lines for ui.linesPly
  linesPly: -1,
  flipped: false,
  picked: null, // {from, path: [...]} while a move is being entered
  editing: null, // {size, side, columns: Map square -> "Wwb"} in the editor
  errors: [],
};

// ---- the connection -------------------------------------------------------

const token = new URLSearchParams(location.search).get("token") || "";
const socket = new WebSocket(`ws://${location.host}/ws?token=${encodeURIComponent(token)}`);
socket.onmessage = (event) => receive(JSON.parse(event.data));
socket.onclose = () => showError("the connection to the server is closed; reload the page");

function send(message) {
  if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function receive(message) {
  switch (message.type) {
    case "state":
      ui.state = message;
      ui.stateAt = performance.now();
      ui.picked = null;
      render();
      break;
    case "analysis":
      ui.lines = message.lines;
      ui.linesPly = message.ply;
      renderLines();
      break;
    case "error":
      showError(message.message);
      break;
    case "pdn":
      showPdn(message.text);
      break;
  }
}

// ---- positions ------------------------------------------------------------

function boardSize(variant) {
  return variant === "lasca" ? 7 : 8;
}

// "W:c3wbb,d4B 0 1" -> {side, columns: Map("c3" -> "wbb", ...), rest}
function parseFen(fen) {
  const [board, ...rest] = fen.trim().split(/\s+/);
  const [side, list = ""] = board.split(":");
  const columns = new Map();
  for (const item of list.split(",").filter(Boolean)) {
    const match = item.match(/^([a-h][1-8])([wWbB]*)$/);
    if (match) columns.set(match[1], match[2]);
  }
  return { side: side.toUpperCase(), columns, rest: rest.join(" ") };
}

function writeFen(side, columns, size) {
  const items = [];
  for (let rank = 1; rank <= size; rank++) {
    for (let file = 0; file < size; file++) {
      const square = String.fromCharCode(97 + file) + rank;
      const pieces = columns.get(square);
      if (pieces) items.push(square + pieces);
    }
  }
  return `${side}:${items.join(",")}`;
}

const isDark = (file, rank) => (file + rank) % 2 === 0; // a1 is dark (0-based)
const squareName = (file, rank) => String.fromCharCode(97 + file) + (rank + 1);

// ---- drawing the board ----------------------------------------------------

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

// Board coordinates of a square's top-left corner.
function corner(square, size) {
  const file = square.charCodeAt(0) - 97;
  const rank = parseInt(square.slice(1), 10) - 1;
  const col = ui.flipped ? size - 1 - file : file;
  const row = ui.flipped ? rank : size - 1 - rank;
  return [col * CELL, row * CELL];
}

function defs(svg) {
  const d = el("defs", {}, svg);
  for (const [id, inner, outer] of [["face-white", "#fffdf6", "#e4dbc2"], ["face-black", "#5a5a5a", "#262626"]]) {
    const g = el("radialGradient", { id, cx: "40%", cy: "35%", r: "70%" }, d);
    el("stop", { offset: "0%", "stop-color": inner }, g);
    el("stop", { offset: "100%", "stop-color": outer }, g);
  }
}

function render() {
  const s = ui.state;
  document.body.classList.toggle("flipped", ui.flipped);
  for (const mode of ["play", "humans", "analysis"]) {
    document.body.classList.toggle(`mode-${mode}`, s.settings.mode === mode);
  }
  syncControls(s);
  drawBoard();
  renderStatus(s);
  renderMoves(s);
  renderLines();
  renderGraph(s);
  if (!ui.editing && document.activeElement !== $("fen")) $("fen").value = s.fen;
}

function drawBoard() {
  const s = ui.state;
  const variant = ui.editing ? ui.editing.variant : s.variant;
  const size = boardSize(variant);
  const fen = ui.editing ? writeFen(ui.editing.side, ui.editing.columns, size) : s.fen;
  const svg = $("board");
  svg.innerHTML = "";
  svg.setAttribute("viewBox", `0 0 ${size * CELL} ${size * CELL}`);
  svg.dataset.variant = variant;
  defs(svg);
  drawSquares(svg, size);
  if (!ui.editing) drawMarks(svg, size);
  for (const [square, pieces] of parseFen(fen).columns) drawColumn(svg, square, pieces, size);
  if (!ui.editing) drawTargets(svg, size);
  drawHitAreas(svg, size);
}

function drawSquares(svg, size) {
  for (let rank = 0; rank < size; rank++) {
    for (let file = 0; file < size; file++) {
      const [x, y] = corner(squareName(file, rank), size);
      const dark = isDark(file, rank);
      el("rect", { x, y, width: CELL, height: CELL, class: dark ? "dark" : "light" }, svg);
      const bottomRow = y === (size - 1) * CELL;
      const leftCol = x === 0;
      if (bottomRow) {
        const t = el("text", { x: x + CELL - 14, y: y + CELL - 6, class: `coord${dark ? " on-dark" : ""}` }, svg);
        t.textContent = String.fromCharCode(97 + file);
      }
      if (leftCol) {
        const t = el("text", { x: x + 5, y: y + 16, class: `coord${dark ? " on-dark" : ""}` }, svg);
        t.textContent = rank + 1;
      }
    }
  }
}

function drawMarks(svg, size) {
  const last = ui.state.last_move;
  if (last) {
    for (const square of [last.from, ...last.path]) {
      const [x, y] = corner(square, size);
      el("rect", { x, y, width: CELL, height: CELL, class: "last" }, svg);
    }
  }
  if (ui.picked) {
    for (const square of [ui.picked.from, ...ui.picked.path]) {
      const [x, y] = corner(square, size);
      el("rect", { x, y, width: CELL, height: CELL, class: square === ui.picked.from ? "selected" : "path" }, svg);
    }
  }
}

// A column as a stack of discs seen slightly from the side: the bottom
// piece lowest, the commander on top with its whole face showing.
function drawColumn(svg, square, pieces, size) {
  const [x, y] = corner(square, size);
  const height = pieces.length;
  const cx = x + CELL / 2;
  const rx = 34, ry = 16;
  const step = height > 1 ? Math.min(11, 50 / (height - 1)) : 0;
  const thick = Math.max(3, Math.min(10, step || 10));
  const g = el("g", { class: "column", "data-square": square, "data-height": height }, svg);
  const bottomFace = y + CELL / 2 + ((height - 1) * step) / 2 - thick / 2 + 4;
  // Draw bottom first; `pieces` is written top first.
  for (let i = height - 1; i >= 0; i--) {
    const letter = pieces[i];
    const top = bottomFace - (height - 1 - i) * step;
    const p = el("g", { class: `piece ${letter}`, "data-piece": letter, "data-index": i }, g);
    el("ellipse", { cx, cy: top + thick, rx, ry, class: "band" }, p);
    el("rect", { x: cx - rx, y: top, width: 2 * rx, height: thick, class: "band", "stroke-width": 0 }, p);
    if (letter === "W" || letter === "B") {
      el("rect", { x: cx - rx, y: top + thick / 2 - 1.5, width: 2 * rx, height: 3, class: "king-stripe" }, p);
    }
    el("ellipse", { cx, cy: top, rx, ry, class: "face" }, p);
    if (i === 0) {
      el("ellipse", { cx, cy: top, rx: rx - 7, ry: ry - 3.5, class: "commander-ring" }, p);
      if (letter === "W" || letter === "B") drawCrown(p, cx, top);
    }
  }
  if (height > 1) {
    const badge = el("g", { class: "badge" }, g);
    el("circle", { cx: x + CELL - 15, cy: y + 15, r: 12 }, badge);
    const t = el("text", { x: x + CELL - 15, y: y + 20 }, badge);
    t.textContent = height;
  }
}

function drawCrown(parent, cx, cy) {
  const points = [[-13, 6], [-15, -6], [-7, 0], [0, -9], [7, 0], [15, -6], [13, 6]]
    .map(([dx, dy]) => `${cx + dx},${cy + dy}`).join(" ");
  el("polygon", { points, class: "crown" }, parent);
}

function drawTargets(svg, size) {
  if (!ui.picked) return;
  const { next, finals } = candidates();
  for (const square of finals) {
    if (next.has(square)) continue;
    const [x, y] = corner(square, size);
    el("circle", { cx: x + CELL / 2, cy: y + CELL / 2, r: 30, class: "target final" }, svg);
  }
  for (const square of next) {
    const [x, y] = corner(square, size);
    el("circle", { cx: x + CELL / 2, cy: y + CELL / 2, r: 14, class: "target" }, svg);
  }
}

function drawHitAreas(svg, size) {
  for (let rank = 0; rank < size; rank++) {
    for (let file = 0; file < size; file++) {
      if (!isDark(file, rank)) continue;
      const square = squareName(file, rank);
      const [x, y] = corner(square, size);
      const hit = el("rect", { x, y, width: CELL, height: CELL, class: "hit", "data-square": square }, svg);
      hit.addEventListener("click", (e) => clickSquare(square, e.shiftKey));
      hit.addEventListener("contextmenu", (e) => {
        e.preventDefault();
        clickSquare(square, true);
      });
    }
  }
}

// ---- entering moves -------------------------------------------------------

function humanMayMove() {
  const s = ui.state;
  if (!s || ui.editing || s.legal.length === 0) return false;
  if (s.settings.mode !== "play") return true;
  const whiteToMove = s.fen.startsWith("W");
  const engineWhite = s.settings.engine_side === "white";
  return whiteToMove !== engineWhite && s.engine_status !== "thinking";
}

// The moves that fit what has been clicked so far.
function matching() {
  const { from, path } = ui.picked;
  return ui.state.legal.filter((m) => m.from === from && path.every((sq, i) => m.path[i] === sq));
}

function candidates() {
  const moves = matching();
  const depth = ui.picked.path.length;
  return {
    next: new Set(moves.filter((m) => m.path.length > depth).map((m) => m.path[depth])),
    finals: new Set(moves.map((m) => m.path[m.path.length - 1])),
  };
}

function clickSquare(square, remove) {
  if (ui.editing) return editSquare(square, remove);
  if (!humanMayMove()) return;
  const legal = ui.state.legal;
  if (ui.picked) {
    const moves = matching();
    const depth = ui.picked.path.length;
    const extended = moves.filter((m) => m.path[depth] === square);
    if (extended.length > 0) {
      ui.picked.path.push(square);
      const done = extended.filter((m) => m.path.length === depth + 1);
      if (done.length === 1 && extended.length === 1) return playMove(done[0].text);
      return drawBoard();
    }
    // A click on the last square of a chain skips the landings between.
    const ending = moves.filter((m) => m.path[m.path.length - 1] === square);
    if (ending.length === 1) return playMove(ending[0].text);
    if (ending.length > 1) return offerChoice(ending);
  }
  ui.picked = legal.some((m) => m.from === square) ? { from: square, path: [] } : null;
  drawBoard();
}

function playMove(text) {
  ui.picked = null;
  $("choice").hidden = true;
  send({ type: "move", text });
}

function offerChoice(moves) {
  const list = $("choice-list");
  list.innerHTML = "";
  for (const m of moves) {
    const b = document.createElement("button");
    b.textContent = m.text;
    b.onclick = () => playMove(m.text);
    list.appendChild(b);
  }
  const cancel = document.createElement("button");
  cancel.textContent = "cancel";
  cancel.onclick = () => { $("choice").hidden = true; };
  list.appendChild(cancel);
  $("choice").hidden = false;
}

// ---- the panel ------------------------------------------------------------

function syncControls(s) {
  $("variant").value = s.variant;
  $("mode").value = s.settings.mode;
  $("engine-side").value = s.settings.engine_side;
  if (document.activeElement !== $("movetime")) $("movetime").value = s.settings.movetime_ms / 1000;
  const clock = s.settings.clock;
  if (document.activeElement !== $("clock")) {
    $("clock").value = clock ? `${clock.base_ms / 60000}+${clock.increment_ms / 1000}` : "";
  }
  syncEngineOptions(s);
}

// The engine options the page sets: the control, the option's protocol
// name and the settings field. Their ranges are not written here: the
// server sends the ones the engine declared (`engine_options`), and a
// control of an option the engine lacks stays hidden.
const ENGINE_OPTIONS = [
  { id: "multipv", name: "MultiPV", field: "multipv" },
  { id: "threads", name: "Threads", field: "threads" },
  { id: "hash", name: "Hash", field: "hash_mb" },
  { id: "move-overhead", name: "Move Overhead", field: "move_overhead_ms" },
];

function syncEngineOptions(s) {
  const ranges = s.engine_options || {};
  for (const label of document.querySelectorAll("[data-option]")) {
    label.hidden = !ranges[label.dataset.option];
  }
  for (const { id, name, field } of ENGINE_OPTIONS) {
    const range = ranges[name];
    const input = $(id);
    if (!range) continue;
    input.min = range.min;
    input.max = range.max;
    const value = s.settings[field];
    if (document.activeElement !== input) input.value = value === null ? range.default : value;
  }
  syncSkill(ranges["Skill Level"], s.settings.skill);
}

// The skill levels of the engine's range, the top one as "full".
function syncSkill(range, skill) {
  const select = $("skill");
  if (!range) return;
  const key = `${range.min}..${range.max}`;
  if (select.dataset.range !== key) {
    select.innerHTML = "";
    for (const level of [range.max, ...Array.from({ length: range.max - range.min }, (_, i) => range.min + i)]) {
      const option = document.createElement("option");
      option.value = level;
      option.textContent = level === range.max ? "full" : String(level);
      select.appendChild(option);
    }
    select.dataset.range = key;
  }
  select.value = String(skill === null ? range.max : skill);
}

// A whole number from a control, or null when it holds none.
function numberIn(id) {
  const value = parseInt($(id).value, 10);
  return Number.isFinite(value) ? value : null;
}

// An engine option's value: what the user set, else what the settings
// hold (null leaves the engine's own, from its defaults or --engine).
function optionValue(id, field) {
  return $(id).dataset.touched ? numberIn(id) : ui.state ? ui.state.settings[field] : null;
}

// "5+3" (minutes + seconds a move), "5" or empty (no clock).
function readClock() {
  const text = $("clock").value.trim();
  if (!text) return null;
  const match = text.match(/^(\d+(?:\.\d+)?)\s*(?:\+\s*(\d+(?:\.\d+)?))?$/);
  if (!match) {
    showError("clock: write minutes + seconds per move, like 5+3");
    return null;
  }
  return { base_ms: Math.round(parseFloat(match[1]) * 60000), increment_ms: Math.round(parseFloat(match[2] || "0") * 1000) };
}

function sendSettings() {
  const seconds = parseFloat($("movetime").value);
  send({
    clock: readClock(),
    type: "settings",
    mode: $("mode").value,
    engine_side: $("engine-side").value,
    movetime_ms: Math.round((isFinite(seconds) ? seconds : 1) * 1000),
    skill: numberIn("skill"),
    multipv: numberIn("multipv") ?? (ui.state ? ui.state.settings.multipv : 1),
    threads: optionValue("threads", "threads"),
    hash_mb: optionValue("hash", "hash_mb"),
    move_overhead_ms: optionValue("move-overhead", "move_overhead_ms"),
  });
}

function formatClock(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, "0")}`;
}

// The server's times, with the running clock counted down between states.
function renderClocks() {
  const s = ui.state;
  $("clocks").hidden = !s || !s.clocks_ms;
  if (!s || !s.clocks_ms) return;
  const whiteRuns = s.fen.startsWith("W") && !s.result;
  const blackRuns = !s.fen.startsWith("W") && !s.result;
  const elapsed = performance.now() - ui.stateAt;
  const [white, black] = s.clocks_ms;
  $("clock-white").textContent = `White ${formatClock(white - (whiteRuns ? elapsed : 0))}`;
  $("clock-black").textContent = `Black ${formatClock(black - (blackRuns ? elapsed : 0))}`;
  $("clock-white").classList.toggle("running", whiteRuns);
  $("clock-black").classList.toggle("running", blackRuns);
}

function renderStatus(s) {
  renderClocks();
  const toMove = s.fen.startsWith("W") ? "White" : "Black";
  const doing = { idle: "ready", thinking: "thinking…", analysing: "analysing…", stopped: "not running" }[s.engine_status];
  $("status").textContent = `${toMove} to move · engine ${s.engine_name}: ${doing}`;
  $("engine-error").hidden = !s.engine_error;
  $("engine-error-text").textContent = s.engine_error || "";
  $("result").textContent = s.result || "";
}

function renderMoves(s) {
  const list = $("moves");
  list.innerHTML = "";
  const startNumber = parseInt(s.start_fen.split(/\s+/)[2] || "1", 10);
  const blackFirst = s.start_fen.startsWith("B");
  let item = null;
  s.moves.forEach((text, i) => {
    const black = (i + (blackFirst ? 1 : 0)) % 2 === 1;
    if (!black || item === null) {
      item = document.createElement("li");
      item.value = startNumber + Math.floor((i + (blackFirst ? 1 : 0)) / 2);
      if (black) item.appendChild(document.createTextNode("… "));
      list.appendChild(item);
    }
    const span = document.createElement("span");
    span.textContent = text;
    span.dataset.ply = i + 1;
    if (i + 1 === s.cursor) span.className = "current";
    span.onclick = () => send({ type: "go_to", ply: i + 1 });
    item.appendChild(span);
  });
  const current = list.querySelector(".current");
  if (current) current.scrollIntoView({ block: "nearest" });
}

// The lines are updated in place, several times a second, so that a click
// on one is never lost to a redraw; a click plays the line shown then.
function renderLines() {
  const box = $("lines");
  const s = ui.state;
  if (!s) return;
  const fresh = ui.linesPly === s.cursor && s.engine_status !== "idle";
  const lines = fresh ? ui.lines : [];
  while (box.children.length > lines.length) box.lastChild.remove();
  while (box.children.length < lines.length) {
    const div = document.createElement("div");
    const index = box.children.length;
    div.className = "pv";
    div.title = "play this line";
    div.innerHTML = `<span class="score"></span><span class="depth"></span><span class="moves"></span>`;
    div.onclick = () => ui.lines[index] && send({ type: "line", moves: ui.lines[index].pv });
    box.appendChild(div);
  }
  lines.forEach((line, i) => {
    const div = box.children[i];
    div.dataset.multipv = line.multipv;
    div.querySelector(".score").textContent = line.score;
    div.querySelector(".depth").textContent = `d${line.depth}`;
    div.querySelector(".moves").textContent = line.pv.join(" ");
  });
  const best = lines[0];
  const cp = best ? best.cp : s.evals[s.cursor];
  setEvalBar(cp, best ? best.score : null);
}

function setEvalBar(cp, text) {
  const share = cp === null || cp === undefined ? 0.5 : 1 / (1 + Math.exp(-cp / 250));
  $("eval-white").style.height = `${(share * 100).toFixed(1)}%`;
  $("eval-text").textContent = text || "";
}

function renderGraph(s) {
  const svg = $("graph");
  svg.innerHTML = "";
  const n = Math.max(s.evals.length - 1, 1);
  const X = (ply) => (ply / n) * 300;
  const Y = (cp) => 40 - (Math.max(-1000, Math.min(1000, cp)) / 1000) * 38;
  el("line", { x1: 0, y1: 40, x2: 300, y2: 40, stroke: "#666", "stroke-width": 1 }, svg);
  const points = s.evals.map((cp, ply) => (cp === null ? null : `${X(ply)},${Y(cp)}`)).filter(Boolean);
  if (points.length > 0) {
    el("polyline", { points: points.join(" "), fill: "none", stroke: "#d9a441", "stroke-width": 2 }, svg);
  }
  el("line", { x1: X(s.cursor), y1: 0, x2: X(s.cursor), y2: 80, stroke: "#8ab4f8", "stroke-width": 1 }, svg);
  svg.onclick = (e) => {
    const r = svg.getBoundingClientRect();
    send({ type: "go_to", ply: Math.round(((e.clientX - r.left) / r.width) * n) });
  };
}

function showError(text) {
  ui.errors = [...ui.errors.slice(-2), text];
  const box = $("errors");
  box.innerHTML = "";
  for (const message of ui.errors) {
    const div = document.createElement("div");
    div.textContent = message;
    box.appendChild(div);
  }
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => { ui.errors = []; box.innerHTML = ""; }, 15000);
}

function showPdn(text) {
  $("pdn-box").open = true;
  $("pdn").value = text;
  const link = $("pdn-download");
  link.href = URL.createObjectURL(new Blob([text], { type: "application/x-pdn" }));
  link.hidden = false;
}

// ---- the position editor --------------------------------------------------

function startEditing() {
  const s = ui.state;
  const fen = parseFen(s.fen);
  ui.editing = { variant: s.variant, side: fen.side, columns: fen.columns };
  $("editor").hidden = false;
  $("edit-side").value = fen.side;
  updateEditor();
}

function updateEditor() {
  const e = ui.editing;
  $("fen").value = writeFen(e.side, e.columns, boardSize(e.variant));
  drawBoard();
}

function editSquare(square, remove) {
  const columns = ui.editing.columns;
  const tool = document.querySelector("input[name=tool]:checked").value;
  const pieces = columns.get(square) || "";
  const next = remove ? pieces.slice(1) : tool === "x" ? "" : tool + pieces;
  if (next) columns.set(square, next);
  else columns.delete(square);
  updateEditor();
}

function stopEditing() {
  ui.editing = null;
  $("editor").hidden = true;
  render();
}

// ---- wiring ---------------------------------------------------------------

function wire() {
  $("new-game").onclick = () => send({ type: "new_game", variant: $("variant").value });
  $("variant").onchange = () => {
    if (ui.editing) {
      ui.editing.variant = $("variant").value;
      ui.editing.columns = new Map();
      return updateEditor();
    }
    send({ type: "new_game", variant: $("variant").value });
  };
  for (const id of ["mode", "engine-side", "movetime", "clock", "skill", "multipv"]) $(id).onchange = sendSettings;
  for (const id of ["threads", "hash", "move-overhead"]) {
    $(id).onchange = () => {
      $(id).dataset.touched = "1";
      sendSettings();
    };
  }
  setInterval(renderClocks, 200);
  $("flip").onclick = () => { ui.flipped = !ui.flipped; render(); };
  $("restart").onclick = () => send({ type: "restart" });
  $("edit").onclick = () => (ui.editing ? stopEditing() : startEditing());
  $("edit-side").onchange = () => { ui.editing.side = $("edit-side").value; updateEditor(); };
  $("edit-clear").onclick = () => { ui.editing.columns = new Map(); updateEditor(); };
  $("edit-start").onclick = () => {
    const start = ui.editing.variant === "lasca" ? LASCA_START : BASHNI_START;
    ui.editing.columns = parseFen(start).columns;
    ui.editing.side = "W";
    updateEditor();
  };
  $("edit-done").onclick = () => {
    const fen = $("fen").value;
    const variant = ui.editing.variant;
    stopEditing();
    send({ type: "new_game", variant, fen });
  };
  $("edit-cancel").onclick = stopEditing;
  $("fen").onchange = () => {
    if (ui.editing) {
      const fen = parseFen($("fen").value);
      ui.editing.side = fen.side;
      ui.editing.columns = fen.columns;
      drawBoard();
    }
  };
  $("fen-set").onclick = () => {
    const variant = ui.editing ? ui.editing.variant : $("variant").value;
    if (ui.editing) stopEditing();
    send({ type: "new_game", variant, fen: $("fen").value });
  };
  $("fen-copy").onclick = () => {
    $("fen").select();
    if (navigator.clipboard) navigator.clipboard.writeText($("fen").value).catch(() => document.execCommand("copy"));
  };
  $("pdn-export").onclick = () => send({ type: "export_pdn" });
  $("pdn-import").onclick = () => send({ type: "import_pdn", text: $("pdn").value });
  const go = (ply) => ui.state && send({ type: "go_to", ply: Math.max(0, Math.min(ply, ui.state.moves.length)) });
  $("nav-first").onclick = () => go(0);
  $("nav-back").onclick = () => go(ui.state.cursor - 1);
  $("nav-forward").onclick = () => go(ui.state.cursor + 1);
  $("nav-last").onclick = () => go(ui.state.moves.length);
  document.addEventListener("keydown", (e) => {
    if (!ui.state || e.target.matches("input, textarea, select")) return;
    if (e.key === "ArrowLeft") go(ui.state.cursor - 1);
    if (e.key === "ArrowRight") go(ui.state.cursor + 1);
    if (e.key === "Escape") { ui.picked = null; $("choice").hidden = true; drawBoard(); }
  });
}

const BASHNI_START = "W:a1w,c1w,e1w,g1w,b2w,d2w,f2w,h2w,a3w,c3w,e3w,g3w,b6b,d6b,f6b,h6b,a7b,c7b,e7b,g7b,b8b,d8b,f8b,h8b";
const LASCA_START = "W:a1w,c1w,e1w,g1w,b2w,d2w,f2w,a3w,c3w,e3w,g3w,a5b,c5b,e5b,g5b,b6b,d6b,f6b,a7b,c7b,e7b,g7b";

wire();
