// Building the page from data without ever parsing data as HTML: every
// name and text a user sent goes in as a text node, so no markup from a
// user can reach the page.

// h("button", {class: "x", onclick: f}, "text", child, ...)
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export const $ = (id) => document.getElementById(id);

// Replace a node's children.
export function fill(node, ...children) {
  node.replaceChildren();
  for (const child of children.flat()) {
    if (child !== undefined && child !== null && child !== false) node.append(child);
  }
}

// What this browser kept under `key` (JSON), or null: nothing kept, or
// text that no longer reads.
export function readJson(key) {
  try {
    return JSON.parse(localStorage.getItem(key));
  } catch {
    return null;
  }
}

// A player's name set in a sentence, isolated from it (FSI ... PDI): a
// name in a right-to-left script, "אבג 123", would otherwise take the
// words around it into its own direction and show as "123 אבג".
export function isolate(name) {
  return `\u2068${name}\u2069`;
}

// `White` or `Black` for the server's `white` or `black`.
export function colourWord(colour) {
  return colour === "white" ? "White" : "Black";
}

// A result as a player reads it: who won and the score, then why
// (`White wins, 2-0 (Black resigned)`, or with the players' names
// `{white, black}`: `Ann wins with White, 2-0 (Black resigned)`); a draw
// whose reason says so already as that (`Draw agreed, 1-1`); a game
// called off before both sides moved (result `*`), that and why
// (`aborted (White aborted the game)`).
const RESULT_WORDS = { "2-0": "White wins", "0-2": "Black wins", "1-1": "Draw" };
const WINNERS = { "2-0": "white", "0-2": "black" };

export function resultText(result, names = null) {
  if (result.result === "*") return `Game aborted (${result.reason})`;
  if (result.result === "1-1" && result.reason.startsWith("draw ")) {
    return `D${result.reason.slice(1)}, ${result.result}`;
  }
  const winner = WINNERS[result.result];
  const name = winner && names && names[winner];
  const words = name ? `${isolate(name)} wins with ${colourWord(winner)}` : RESULT_WORDS[result.result] ?? "Over";
  return `${words}, ${result.result} (${result.reason})`;
}

// A game's end as its status line says it: "Game over: ..." or, for a
// game called off, "Game aborted (...)".
export function endText(result, names = null) {
  return result.result === "*" ? resultText(result) : `Game over: ${resultText(result, names)}`;
}

// "m:ss" (and tenths under ten seconds) of milliseconds.
export function clockText(ms) {
  const clamped = Math.max(0, ms);
  // A clock that ran out reads as out, not as a tenth still counted.
  if (clamped === 0) return "0:00";
  const total = clamped / 1000;
  const minutes = Math.floor(total / 60);
  const seconds = total - minutes * 60;
  if (total < 10) return `${minutes}:${seconds.toFixed(1).padStart(4, "0")}`;
  return `${minutes}:${String(Math.floor(seconds)).padStart(2, "0")}`;
}

// Copy `url`, and say on `button` whether it worked for two seconds (the
// clipboard is only there on https or localhost); then the button says
// what it said before.
export function copyLink(button, url) {
  button.dataset.label ??= button.textContent;
  const say = (text) => {
    button.textContent = text;
    clearTimeout(button.copyTimer);
    button.copyTimer = setTimeout(() => (button.textContent = button.dataset.label), 2000);
  };
  if (!navigator.clipboard) {
    say("Copy it from the address bar");
    return;
  }
  navigator.clipboard.writeText(url).then(() => say("Link copied"), () => say("Copy it from the address bar"));
}
