// A pasted PDN file as the analysis board takes it: a file of many games
// (a tournament's runs to hundreds of kilobytes, far more than one
// message may carry) is cut into its games here, so the player picks one
// and only that one goes to the server, which checks it. A game begins
// with its tags, so a tag line after move text starts the next one; a
// file whose games have no tags stays one text (the server then shows its
// first game and says so). A single line that is a position string is a
// position, not a game.

// `[Name "value"]`, a value's quotes escaped by a backslash.
const TAG = /^\s*\[(\w+)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$/;
// A position string: the side to move and a colon first (`W:`, `B:`).
const POSITION = /^[WB]:\S/i;

// The games of `text`, each `{text, title}`: the title names its place in
// the file and what its tags say ("3. Ann – Bob, Club game, 2-0").
export function splitGames(text) {
  const games = [];
  let lines = [];
  let inMoves = false;
  for (const line of text.split(/\r?\n/)) {
    const isTag = TAG.test(line);
    if (isTag && inMoves) {
      games.push(lines.join("\n"));
      lines = [];
      inMoves = false;
    }
    if (!isTag && line.trim() !== "") inMoves = true;
    lines.push(line);
  }
  if (lines.some((line) => line.trim() !== "")) games.push(lines.join("\n"));
  return games.map((game, i) => ({ text: game, title: `${i + 1}. ${titleOf(game)}` }));
}

// What a game's tags say of it: its players, event and result.
function titleOf(game) {
  const tags = {};
  for (const line of game.split("\n")) {
    const tag = TAG.exec(line);
    if (tag) tags[tag[1]] = tag[2].replace(/\\(.)/g, "$1");
  }
  const known = (value) => (value && value !== "?" ? value : "");
  const players = known(tags.White) || known(tags.Black) ? `${known(tags.White) || "?"} – ${known(tags.Black) || "?"}` : "";
  const words = [players, known(tags.Event), known(tags.Result)].filter(Boolean);
  return words.length ? words.join(", ") : "a game without tags";
}

// The position string `text` is, if it is one alone (trimmed); null
// otherwise.
export function positionOf(text) {
  const trimmed = text.trim();
  return !trimmed.includes("\n") && POSITION.test(trimmed) ? trimmed : null;
}

// The size of `message` as the server counts it: its JSON's bytes.
export function messageBytes(message) {
  return new TextEncoder().encode(JSON.stringify(message)).length;
}
