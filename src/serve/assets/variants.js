// The games as the server's welcome describes them, and a room's rules in
// words: what every view looks up or shows the same way.

import { fill, h } from "./text.js";

// The welcome's entry for variant `name` (undefined before the welcome).
export function variantInfo(welcome, name) {
  return welcome ? welcome.variants.find((v) => v.name === name) : undefined;
}

export function variantTitle(welcome, name) {
  const info = variantInfo(welcome, name);
  return info ? info.title : name;
}

// Squares per side of variant `name`'s board.
export function boardSize(welcome, name) {
  const info = variantInfo(welcome, name);
  return info ? info.size : 8;
}

// A <select> of every variant, by title.
export function fillVariants(select, welcome) {
  fill(select, welcome.variants.map((v) => h("option", { value: v.name }, v.title)));
}

// The rules in a few words, as a room's title says them.
export function rulesText(rules) {
  const parts = [rules.forced_capture ? "forced capture" : "captures optional"];
  if (rules.no_progress_plies) parts.push(`${rules.no_progress_plies / 2}-move draw`);
  if (rules.repetitions) parts.push(rules.repetitions === 3 ? "threefold" : `${rules.repetitions}-fold`);
  // Moves, as the no-progress draw counts them (plies said only where
  // they make no whole number of moves).
  if (rules.max_plies) parts.push(rules.max_plies % 2 ? `${rules.max_plies} plies` : `${rules.max_plies / 2}-move limit`);
  if (rules.king_landing !== "continue") parts.push("free king landing");
  return parts.join(", ");
}
