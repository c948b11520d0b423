// The lobby: the form that creates a room and the live list of public
// rooms. Everything it offers (variants, clocks, strength ranges) comes
// from the server's welcome message.

import { $, fill, h, isolate, readJson } from "./text.js";
import { fillVariants, rulesText, variantInfo, variantTitle } from "./variants.js";
import { runGoing } from "./runs.js";

const FORM_KEY = "bashni.create";
// How long the quick game buttons rest after a click.
const QUICK_REST_MS = 3000;
// The create form's fields a browser keeps between visits.
const FORM_FIELDS = ["variant", "forced-capture", "king-landing", "no-progress-on", "no-progress-moves", "threefold", "clock", "clock-minutes", "clock-increment", "colour", "opponent", "strength-kind", "skill", "elo"];

export class Lobby {
  // app: {send(message), name(), welcome, device, tokens, watch(id)}
  constructor(app) {
    this.app = app;
    $("create").addEventListener("submit", (event) => {
      event.preventDefault();
      this.create();
    });
    $("opponent").addEventListener("change", () => this.syncStrength());
    $("clock").addEventListener("change", () => this.syncClock());
    $("variant").addEventListener("change", () => this.syncVariant());
    $("ladder-start").addEventListener("click", () => this.app.send({
      type: "ladder", variant: $("ladder-variant").value, name: this.app.name(), device: this.app.device,
    }));
    $("leaderboard-show").addEventListener("click", () => this.askLeaderboard());
    $("ladder-variant").addEventListener("change", () => {
      this.syncLadder();
      this.askBest();
      if (!$("leaderboard").hidden) this.askLeaderboard();
    });
    $("strength-kind").addEventListener("change", () => this.syncStrength());
    $("start-clear").addEventListener("click", () => this.startFrom(null, null));
    this.start = null;
  }

  // Create the next room from `fen` (a position of `variant` from the
  // analysis board), or from the usual start with none; the captures
  // and king landings as the line was played (the draw rules stay the
  // form's).
  startFrom(variant, fen, rules) {
    this.start = fen;
    $("start-from").hidden = !fen;
    $("start-fen").textContent = fen || "";
    if (variant) $("variant").value = variant;
    if (rules) {
      $("forced-capture").checked = rules.forced_capture;
      $("king-landing").value = rules.king_landing;
    }
    $("variant").disabled = Boolean(fen);
    this.syncVariant();
    // The form is below the quick games and the list: bring it to view.
    if (fen) $("create-panel").scrollIntoView({ block: "start" });
  }

  askLeaderboard() {
    this.app.send({ type: "leaderboard", variant: $("ladder-variant").value });
  }

  // This browser's best in the ladder chosen, shown before a run as the
  // run's own line shows it.
  askBest() {
    const variant = $("ladder-variant").value;
    if (variant) this.app.send({ type: "ladder_best", variant, name: this.app.name(), device: this.app.device });
  }

  showBest(message) {
    if (message.variant !== $("ladder-variant").value) return;
    // As the room shows it: no score yet is "-".
    $("ladder-own-best").textContent = message.best ? String(message.best) : "-";
  }

  // The ladder's button leads back to this browser's run going in the
  // variant chosen (the server would too), or starts one.
  syncLadder() {
    const going = runGoing($("ladder-variant").value);
    $("ladder-start").textContent = going ? "Continue your run" : "Climb the ladder";
  }

  // Where kings land is a choice only where kings fly (Bashni).
  syncVariant() {
    const info = variantInfo(this.app.welcome, $("variant").value);
    const flying = Boolean(info && info.flying_kings);
    $("king-landing-choice").hidden = !flying;
  }

  // Where kings land, as this room's variant has it: the choice made
  // where kings fly (kept while another variant is looked at), else the
  // only way there is.
  kingLanding() {
    return $("king-landing-choice").hidden ? "continue" : $("king-landing").value;
  }

  // A button per variant and clock the server offers: a quick game.
  quickGames(welcome) {
    const rows = welcome.variants.map((variant) => h("div", { class: "quick-row" },
      h("span", { class: "quick-variant" }, variant.title),
      welcome.clocks.map((clock) => h("button", {
        class: "quick",
        dataset: { variant: variant.name, clock },
        title: `${variant.title}, ${clock.replace("+", " min + ")} s a move`,
        onclick: () => this.askQuick(variant.name, clock),
      }, clock))));
    fill($("quick-games"), rows);
    // Say which rules: the ladder plays by others, a pasted game by its own.
    const moves = welcome.online_no_progress_plies / 2;
    $("quick-hint").textContent = "Meet the first player waiting for the same game, or wait for the next one; "
      + `colours are drawn. The online rules: forced capture, a draw after ${moves} moves without a capture or man move, or by threefold repetition.`;
  }

  // Ask for a quick game; the buttons rest a moment, so a double click
  // asks once (the server refuses a second request as soon).
  askQuick(variant, clock) {
    const buttons = [...document.querySelectorAll("button.quick")];
    for (const button of buttons) button.disabled = true;
    setTimeout(() => buttons.forEach((button) => (button.disabled = false)), QUICK_REST_MS);
    this.app.send({ type: "quick", variant, clock, name: this.app.name(), device: this.app.device });
  }

  // Fill the form's choices from what the server offers.
  setup(welcome) {
    this.quickGames(welcome);
    fillVariants($("variant"), welcome);
    fillVariants($("ladder-variant"), welcome);
    this.syncLadder();
    const clocks = welcome.clocks.map((c) => h("option", { value: c }, `${c.replace("+", " + ")} (min + s)`));
    fill($("clock"), h("option", { value: "" }, "no clock"), clocks, h("option", { value: "custom" }, "other…"));
    $("clock").value = welcome.clocks.includes("5+3") ? "5+3" : "";
    // Any clock within the server's bounds, said at the fields.
    const [minLow, minHigh] = welcome.clock_minutes;
    const [incLow, incHigh] = welcome.clock_increment_seconds;
    Object.assign($("clock-minutes"), { min: minLow, max: minHigh, value: 5 });
    Object.assign($("clock-increment"), { min: incLow, max: incHigh, value: 3 });
    const [low, high] = welcome.strength.skill;
    const levels = [];
    for (let level = low; level <= high; level++) levels.push(h("option", { value: level }, String(level)));
    fill($("skill"), levels);
    $("skill").value = Math.min(high, Math.max(low, 5));
    const [eloLow, eloHigh] = welcome.strength.elo;
    Object.assign($("elo"), { min: eloLow, max: eloHigh, value: Math.round((eloLow + eloHigh) / 100) * 50 });
    // In moves, as the room's title says it ("15-move draw"); sent in plies.
    $("no-progress-moves").value = welcome.online_no_progress_plies / 2;
    this.strengthHints = {
      skill: `${low} weakest to ${high} full strength`,
      elo: `${eloLow} to ${eloHigh}`,
    };
    this.restoreForm();
    this.askBest();
    this.syncClock();
    this.syncStrength();
    this.syncVariant();
  }

  syncClock() {
    $("clock-custom").hidden = $("clock").value !== "custom";
  }

  // The clock asked for: one of the list, one set by hand, or none.
  clock() {
    const picked = $("clock").value;
    if (picked !== "custom") return picked || null;
    return `${Number($("clock-minutes").value)}+${Number($("clock-increment").value)}`;
  }

  syncStrength() {
    const engine = $("opponent").value === "engine";
    $("strength").hidden = !engine;
    const elo = $("strength-kind").value === "elo";
    $("skill").hidden = elo;
    $("elo").hidden = !elo;
    if (this.strengthHints) $("strength-hint").textContent = this.strengthHints[elo ? "elo" : "skill"];
  }

  // The form as last used to create a room comes back on the next visit,
  // as far as the server still offers it.
  restoreForm() {
    const saved = readJson(FORM_KEY) ?? {};
    for (const id of FORM_FIELDS) {
      const field = $(id);
      if (!(id in saved)) continue;
      if (field.type === "checkbox") field.checked = Boolean(saved[id]);
      else if (field.tagName !== "SELECT" || [...field.options].some((o) => o.value === saved[id])) field.value = saved[id];
    }
  }

  saveForm() {
    const saved = {};
    for (const id of FORM_FIELDS) saved[id] = $(id).type === "checkbox" ? $(id).checked : $(id).value;
    localStorage.setItem(FORM_KEY, JSON.stringify(saved));
  }

  create() {
    // A ticked draw rule with an empty or odd count is said, not quietly
    // sent as "off" (Number("") is 0) or refused by the server.
    if ($("no-progress-on").checked && !$("no-progress-moves").reportValidity()) return;
    const engine = $("opponent").value === "engine";
    const elo = $("strength-kind").value === "elo";
    // An Elo out of range is said at the field, with the range.
    if (engine && elo && !$("elo").reportValidity()) return;
    // So is a clock set by hand out of bounds.
    const custom = $("clock").value === "custom";
    if (custom && !($("clock-minutes").reportValidity() && $("clock-increment").reportValidity())) return;
    this.saveForm();
    const setup = {
      variant: $("variant").value,
      rules: {
        forced_capture: $("forced-capture").checked,
        king_landing: this.kingLanding(),
        no_progress_plies: $("no-progress-on").checked ? 2 * Number($("no-progress-moves").value) : 0,
        repetitions: $("threefold").checked ? 3 : 0,
        max_plies: 0,
      },
      clock: this.clock(),
      colour: $("colour").value,
      opponent: $("opponent").value,
      skill: engine && !elo ? Number($("skill").value) : null,
      elo: engine && elo ? Number($("elo").value) : null,
      start: this.start,
    };
    this.app.send({ type: "create", name: this.app.name(), setup });
  }

  render(rooms) {
    this.syncLadder();
    const tokens = this.app.tokens;
    const row = (room) => {
      const free = room.players.findIndex((p) => p === null);
      const players = room.players.map((p) => (p === null ? "(free)" : isolate(p))).join(" vs ");
      // A room this browser holds a seat in (another tab) is opened in
      // that seat, never joined a second time.
      const mine = Object.hasOwn(tokens, room.id);
      const join = room.phase === "waiting" && free >= 0 && room.config.opponent === "anyone" && !mine
        ? h("button", { class: "join", onclick: () => this.app.send({ type: "join", room: room.id, name: this.app.name() }) }, "Join")
        : null;
      const watch = h("button", { class: "watch", onclick: () => this.app.watch(room.id) }, mine ? "Your game" : "Watch");
      // What a joiner plays by, and whether not from the start: in its
      // column, and under the game's name where a phone has no room for
      // that column.
      const rules = rulesText(room.config.rules) + (room.from_position ? ", from a set position" : "");
      return h("tr", { dataset: { room: room.id } },
        h("td", {}, variantTitle(this.app.welcome, room.config.variant),
          h("span", { class: "rules-inline" }, rules)),
        h("td", {}, rules),
        h("td", {}, room.config.clock ?? "—"),
        h("td", { class: "players" }, players),
        h("td", {}, String(room.watchers)),
        h("td", {}, join, watch));
    };
    const waiting = rooms.filter((r) => r.phase === "waiting");
    const playing = rooms.filter((r) => r.phase !== "waiting");
    fill($("open-rooms"), waiting.length ? waiting.map(row) : h("tr", {}, h("td", { colspan: 6, class: "empty" }, "No open game: ask for a quick game, or create one.")));
    fill($("live-rooms"), playing.length ? playing.map(row) : h("tr", {}, h("td", { colspan: 6, class: "empty" }, "No game being played.")));
  }

  // The rooms this browser sits in, newest first, each from its side.
  renderYourGames(games) {
    $("your-games-panel").hidden = games.length === 0;
    const row = (game) => h("tr", { dataset: { room: game.room } },
      h("td", {}, variantTitle(this.app.welcome, game.config.variant)),
      h("td", {}, whenText(game.at_ms)),
      h("td", {}, game.config.clock ?? "—"),
      h("td", { class: "players" }, game.opponent ?? "(free)"),
      h("td", {}, game.colour === "white" ? "White" : "Black"),
      h("td", { class: "standing", title: game.result?.reason ?? "" }, standing(game)),
      h("td", {}, h("button", { class: "watch", onclick: () => this.app.watch(game.room) }, "Open")));
    fill($("your-games"), games.map(row));
  }

  renderLeaderboard(variant, lines) {
    $("leaderboard").hidden = false;
    $("leaderboard-caption").textContent = `Best runs: ${variantTitle(this.app.welcome, variant)}`;
    const rows = lines.map((line, i) => h("tr", {},
      h("td", {}, String(i + 1)), h("td", {}, line.name), h("td", {}, String(line.best)), h("td", {}, String(line.wins))));
    fill($("leaderboard-lines"), rows.length ? rows : h("tr", {}, h("td", { colspan: 4, class: "empty" }, "No run has beaten a rival yet.")));
  }
}

// Where a game of this browser's stands, from its side.
function standing(game) {
  const more = game.games > 1 ? ` (game ${game.games})` : "";
  if (game.phase === "waiting") return "Waiting for an opponent";
  if (game.phase === "playing") return (game.your_move ? "Your move" : "Their move") + more;
  if (game.run) return runStanding(game.run);
  const won = game.colour === "white" ? "2-0" : "0-2";
  const words = { "*": "Aborted", "1-1": "Draw", [won]: "Won" };
  return (words[game.result.result] ?? "Lost") + more;
}

// Where a ladder run stands between its games or after its last: a
// rival beaten is no end while the run goes on.
function runStanding(run) {
  const beaten = `${run.wins} ${run.wins === 1 ? "rival" : "rivals"} beaten`;
  if (run.status === "playing") return `Beat rival ${run.wins}; rival ${run.wins + 1} is next`;
  if (run.status === "complete") return `Ladder climbed: ${beaten}`;
  return `Run over (${run.status}): ${beaten}`;
}

// A moment as the list shows it: the time today, else the day.
function whenText(ms) {
  const at = new Date(ms);
  const today = at.toDateString() === new Date().toDateString();
  return today
    ? at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
    : at.toLocaleDateString([], { day: "numeric", month: "short", year: "numeric" });
}
