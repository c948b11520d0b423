// This browser's ladder runs still going, by variant, as the page last
// saw them: the lobby's ladder button then leads back to one.

import { readJson } from "./text.js";

const RUNS_KEY = "bashni.runs";

function load() {
  return readJson(RUNS_KEY) ?? {};
}

// The room of this browser's run going in `variant`, if any.
export function runGoing(variant) {
  return load()[variant] ?? null;
}

// The page saw its run in `room` of `variant`, still going or not.
export function noteRun(variant, room, going) {
  const runs = load();
  if (going) runs[variant] = room;
  else if (runs[variant] === room) delete runs[variant];
  else return;
  localStorage.setItem(RUNS_KEY, JSON.stringify(runs));
}
