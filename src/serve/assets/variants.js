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

export function rulesText(config) {
  const parts = [config.forced_capture ? "forced capture" : "captures optional"];
  if (config.no_progress_plies) parts.push(`${config.no_progress_plies / 2}-move draw`);
  if (config.repetitions) parts.push(config.repetitions === 3 ? "threefold" : `${config.repetitions}-fold`);
  if (config.max_plies) parts.push(`${config.max_plies} plies`);
  if (config.king_landing !== "continue") parts.push("free king landing");
  return parts.join(", ");
}
