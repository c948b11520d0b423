// The play server's page: the lobby, one room at a time, the analysis
// board and the position editor, drawn from what the server sends. The
// browser keeps a display name and the seat tokens it was given (one per
// room): with them a reload, or a lost and regained connection, brings
// the player back to their seat.

import { Connection } from "./network.js";
import { Lobby } from "./lobby.js";
import { Room } from "./room.js";
import { Study } from "./study.js";
import { Editor } from "./editor.js";
import { $, h, readJson } from "./text.js";

const TOKENS_KEY = "bashni.tokens";
const NAME_KEY = "bashni.name";
const GUEST_KEY = "bashni.guest";
const DEVICE_KEY = "bashni.device";
// A device id, room id or seat token: 128 bits as 32 lowercase hex digits.
const HEX128 = /^[0-9a-f]{32}$/;

// A random id this browser keeps: the ladder's best is kept per name and
// device.
function deviceId() {
  let id = localStorage.getItem(DEVICE_KEY);
  if (!HEX128.test(id || "")) {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    id = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
    localStorage.setItem(DEVICE_KEY, id);
  }
  return id;
}
const ROOM_PATH = /^\/room\/([0-9a-f]{32})$/;
// What the page asks again by itself once it is connected again; anything
// else (a move, a button) unsent is the player's to know about.
const ASKED_AGAIN_ON_RECONNECT = new Set(["open", "leave", "lobby", "your_games"]);
// The most rooms the lobby asks after for "Your games" (the server's cap).
const YOUR_GAMES_ASKED = 50;
// How long typing in the name field pauses before the name is checked.
const NAME_CHECK_DELAY_MS = 300;
// The views that have an address of their own.
const VIEW_PATHS = { "/analysis": "study", "/editor": "editor" };

// The tab's title outside a room (a room's page says whose move it is).
const TITLE = document.title;

// The seat tokens as stored now: another tab of this browser may have
// added one since this page loaded (a copy kept by the page and written
// back whole dropped that tab's seats).
function loadTokens() {
  return readJson(TOKENS_KEY) ?? {};
}

// Keep the token of a seat this browser was given, beside every other
// tab's.
function keepToken(room, token) {
  const tokens = loadTokens();
  tokens[room] = token;
  localStorage.setItem(TOKENS_KEY, JSON.stringify(tokens));
}

const app = {
  welcome: null,
  roomId: null,
  seats: {}, // room id -> seat, as the server confirmed
  get tokens() {
    return loadTokens();
  },
  device: deviceId(),
  send: (message) => {
    if (connection.send(message) || ASKED_AGAIN_ON_RECONNECT.has(message.type)) return;
    showError("Not connected, so that was not sent: the page is reconnecting.");
  },
  name: () => $("name").value.trim() || guestName,
  seat: (id) => (id in app.seats ? app.seats[id] : null),
  watch: (id) => go(`/room/${id}`),
  // Ask again for what the address shows (the room's whole state).
  reopen: () => route(),
  go: (path) => go(path),
  // Close the room this page waits in alone, for the lobby.
  cancel: () => go("/", { cancel: true }),
  // The room this page's creator left waiting for an opponent: it stays
  // listed, and the page goes back to it once someone sits down.
  heldRoom: null,
  // The editor's position to the analysis board: the board is shown once
  // the server took it; its error otherwise stays in the editor.
  analyse: (variant, fen) => {
    app.editorWaits = true;
    app.send({ type: "study_position", variant, fen, moves: [], cursor: 0 });
  },
  edit: (variant, fen) => {
    editor.load(variant, fen);
    go("/editor");
  },
  // A game to the analysis board, {variant, start_fen, moves, cursor,
  // rules, recorded, header}: it opens there as a reload would find it.
  study: (line) => {
    study.load(line);
    go("/analysis");
  },
  // The lobby first: the form is brought to view once it shows.
  playFrom: (variant, fen, rules) => {
    go("/");
    lobby.startFrom(variant, fen, rules);
  },
  editorWaits: false,
  notice: (text) => showNote(text, "notice"),
  withdrawNote: (text) => withdrawNote(text),
};

// This browser's guest name, the name while the field is empty (a bare
// "Guest" was everyone's).
const guestName = localStorage.getItem(GUEST_KEY) || `Guest ${Math.floor(Math.random() * 9000) + 1000}`;
localStorage.setItem(GUEST_KEY, guestName);
$("name").value = localStorage.getItem(NAME_KEY) || guestName;
$("name").addEventListener("change", () => {
  if (!$("name").value.trim()) $("name").value = guestName;
  keepName();
  // The ladder's best is kept per name.
  lobby.askBest();
});
// Kept as it is typed too: a reload before the field is left loses none.
function keepName() {
  localStorage.setItem(NAME_KEY, app.name());
}
keepName();

// Whether the name may be taken is the server's word, asked a moment
// after typing stops: a refused name is said at its field, not when a
// game is created with it.
let nameCheck = null;
function askAboutName() {
  clearTimeout(nameCheck);
  nameCheck = setTimeout(() => {
    keepName();
    app.send({ type: "check_name", name: app.name() });
  }, NAME_CHECK_DELAY_MS);
}
$("name").addEventListener("input", askAboutName);

function showNameProblem(message) {
  if (message.name !== app.name()) return;
  $("name-problem").textContent = message.problem ? `Name refused: ${message.problem}.` : "";
  $("name-problem").hidden = !message.problem;
  $("name").setAttribute("aria-invalid", message.problem ? "true" : "false");
}

const lobby = new Lobby(app);
const room = new Room(app);
const study = new Study(app);
const editor = new Editor(app);

// Show what the address says: a room, or the lobby; a room shown before
// is left (closed if `cancel`).
function route({ cancel = false } = {}) {
  const match = location.pathname.match(ROOM_PATH);
  const roomId = match ? match[1] : null;
  if (app.roomId && roomId !== app.roomId) leaveRoom(cancel);
  if (roomId) letGoOfHeldRoom(roomId);
  // The chat of a room left is not shown under another's address, even
  // while that room's state is on its way (or refused).
  if (roomId !== app.roomId) room.chat.forget();
  const view = roomId ? "room" : VIEW_PATHS[location.pathname] || "lobby";
  showView(view, roomId);
  // The room's page names the tab after the game as it is drawn.
  document.title = TITLE;
  if (app.roomId) app.send({ type: "open", room: app.roomId, token: app.tokens[app.roomId] ?? null });
  if (view === "lobby") {
    askYourGames();
    // A run may have ended in the room just left.
    lobby.syncLadder();
    lobby.askBest();
  }
  if (view === "study" && app.welcome) study.enter();
}

// Leave the room shown: a creator still alone in a room waiting for an
// opponent keeps it (lichess's seeks: a header link or Back closed a room
// whose link was shared), unless they `cancel` it; anyone else stops
// watching, or leaves their seat to come back to.
function leaveRoom(cancel) {
  const waitingAlone = document.body.dataset.phase === "waiting" && document.body.dataset.seated === "yes";
  if (waitingAlone && !cancel) app.heldRoom = app.roomId;
  else app.send({ type: "leave" });
}

// A page shows one room: opening `roomId` leaves the room it held, which
// is then off the lobby until its creator is back in it (the server
// closes it if they stay away).
function letGoOfHeldRoom(roomId) {
  if (app.heldRoom && app.heldRoom !== roomId) showNote("Your game waiting for an opponent is off the lobby until you go back to it.", "notice");
  app.heldRoom = null;
}

// A new connection holds nothing: the room held is asked for again,
// as a page on it would.
function holdAgain() {
  if (app.heldRoom && !app.roomId) app.send({ type: "open", room: app.heldRoom, token: app.tokens[app.heldRoom] ?? null });
}

// The held room's state: once an opponent sat down, the game is shown.
function followHeldRoom(state) {
  if (state.phase === "waiting") return;
  app.heldRoom = null;
  if (state.phase !== "playing") return;
  showNote("Your game has started.", "notice");
  go(`/room/${state.id}`);
}

// Show `view` (of room `roomId`) from its top: a page opened where the
// lobby was scrolled to hid a room's opponent and clock. The same view
// again (a reconnect) stays where it is.
function showView(view, roomId) {
  if (document.body.dataset.view !== view || app.roomId !== roomId) window.scrollTo(0, 0);
  // What the last room's state said of it is not another room's.
  if (app.roomId !== roomId) {
    delete document.body.dataset.phase;
    delete document.body.dataset.seated;
  }
  app.roomId = roomId;
  document.body.dataset.view = view;
}

// The lobby's "Your games": the newest rooms this browser keeps a seat
// token for (the server tells which are still seats of theirs).
function askYourGames() {
  const rooms = Object.entries(app.tokens).filter(([room, token]) => HEX128.test(room) && HEX128.test(token))
    .slice(-YOUR_GAMES_ASKED).map(([room, token]) => ({ room, token }));
  if (rooms.length > 0) app.send({ type: "your_games", rooms });
}

function go(path, how = {}) {
  if (location.pathname !== path) history.pushState(null, "", path);
  route(how);
}

window.addEventListener("popstate", () => route());
for (const [id, path] of [["to-lobby", "/"], ["nav-lobby", "/"], ["nav-study", "/analysis"], ["nav-editor", "/editor"]]) {
  $(id).addEventListener("click", (event) => {
    event.preventDefault();
    go(path);
  });
}

function receive(message) {
  switch (message.type) {
    case "welcome":
      app.welcome = message;
      app.send({ type: "check_name", name: app.name() });
      lobby.setup(message);
      study.setup(message);
      editor.setup(message);
      if (document.body.dataset.view === "study") study.enter();
      break;
    case "study":
      study.show(message);
      if (app.editorWaits) {
        app.editorWaits = false;
        study.anotherGame();
        go("/analysis");
      }
      break;
    case "study_lines":
      study.lines(message);
      break;
    case "study_pdn":
      study.exported(message.text);
      break;
    case "lobby":
      lobby.render(message.rooms);
      break;
    case "seated":
      keepToken(message.room, message.token);
      app.seats[message.room] = message.seat;
      // The held room taken again after a reconnection: the page stays.
      if (message.room === app.heldRoom) break;
      // A position from the analysis board is for the room just made; a
      // room held before is left for this one.
      lobby.startFrom(null, null);
      letGoOfHeldRoom(message.room);
      if (app.roomId !== message.room) {
        history.pushState(null, "", `/room/${message.room}`);
        showView("room", message.room);
      }
      break;
    case "room":
      if (message.id === app.roomId) room.show(message);
      else if (message.id === app.heldRoom) followHeldRoom(message);
      break;
    case "room_move":
      if (message.id === app.roomId) room.applyMove(message);
      break;
    case "chat":
      if (message.room === app.roomId) room.chat.receive(message);
      break;
    case "replay":
      if (message.room === app.roomId) room.replay.receive(message);
      break;
    case "quick_waiting":
      // Another tab of this browser asked for the same quick game: this
      // one goes to the room where it waits.
      app.notice("You already wait for this game.");
      app.watch(message.room);
      break;
    case "name_checked":
      showNameProblem(message);
      break;
    case "your_games":
      lobby.renderYourGames(message.games);
      break;
    case "ladder_best":
      lobby.showBest(message);
      break;
    case "leaderboard":
      lobby.renderLeaderboard(message.variant, message.lines);
      break;
    case "left":
      break;
    case "no_room":
      // An address of a room that is not there leads to the lobby (with
      // the server's word on it) rather than an empty board.
      if (message.room === app.roomId) go("/");
      showError(message.message);
      break;
    case "study_refused":
      // The editor shows why its position was refused beside it.
      if (app.editorWaits) editor.error(message.message);
      else if (!study.refused(message.message)) showError(message.message);
      app.editorWaits = false;
      break;
    case "error":
      showError(message.message);
      break;
  }
}

// The server's words start lower case, to be put after others ("not
// stored: ..."); alone in a note they read as a sentence.
function showError(text) {
  const sentence = text.charAt(0).toUpperCase() + text.slice(1);
  showNote(/[.!?]$/.test(sentence) ? sentence : `${sentence}.`, "error");
}

// How long a note stays, in milliseconds.
const NOTE_MS = 6000;

// Show `text` for a while; the same text again is shown once, for longer
// (a refusal said three times stacked three notes).
function showNote(text, kind) {
  const same = [...$("errors").children].find((n) => n.textContent === text && n.className === kind);
  const note = same ?? h("div", { class: kind }, text);
  if (!same) $("errors").append(note);
  clearTimeout(note.timer);
  note.timer = setTimeout(() => note.remove(), NOTE_MS);
}

// Take a note down before its time: what it said no longer holds.
function withdrawNote(text) {
  const note = [...$("errors").children].find((n) => n.textContent === text);
  if (!note) return;
  clearTimeout(note.timer);
  note.remove();
}

const connection = new Connection({
  onMessage: receive,
  onOpen: () => {
    app.send({ type: "lobby" });
    route();
    holdAgain();
  },
  onStatus: (status) => {
    $("connection").textContent = status;
    // The board takes no moves while they could not be sent.
    document.body.dataset.connection = $("connection").dataset.status = status.split(":")[0];
  },
});
