// A finished game's analysis: the evaluation graph (White's view, drawn
// as winning chances, so a pawn or two shows and ten pawns is near the
// edge; a move's score on hover, a click goes there) and the ?/?? marks
// of the move list.

const SVG = "http://www.w3.org/2000/svg";

function element(name, attributes) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, v);
  return node;
}

// A score for a person: pawns from White's side, signed.
function pawns(cp) {
  return `${cp > 0 ? "+" : ""}${(cp / 100).toFixed(2)}`;
}

// White's winning chances of a score, from -1 to 1: the logistic curve
// lichess draws its graph with (a pawn about 0.18, three about 0.5).
function chances(cp) {
  return 2 / (1 + Math.exp(-0.00368208 * cp)) - 1;
}

// The graph of `evals` (one per position after each move). Each move has
// a strip that names it and its score on hover (`labels`: the moves'
// texts) and, with `onPick`, replays the game to there on a click;
// `current` (a ply) is marked.
export function drawGraph(svg, evals, { labels = [], current = null, onPick = null } = {}) {
  svg.replaceChildren();
  if (!evals || evals.length === 0) return;
  const width = 300, height = 80, cap = 1000;
  const x = (i) => (evals.length === 1 ? width / 2 : (i / (evals.length - 1)) * width);
  const y = (cp) => height / 2 - chances(Math.max(-cap, Math.min(cap, cp))) * (height / 2 - 2);
  svg.appendChild(element("line", { x1: 0, x2: width, y1: height / 2, y2: height / 2, class: "axis" }));
  const points = evals.map((cp, i) => `${x(i)},${y(cp)}`);
  svg.appendChild(element("polygon", { points: [`0,${height / 2}`, ...points, `${width},${height / 2}`].join(" "), class: "eval-area" }));
  if (current !== null && current >= 1 && current <= evals.length) {
    svg.appendChild(element("line", { x1: x(current - 1), x2: x(current - 1), y1: 0, y2: height, class: "cursor" }));
  }
  const strip = evals.length === 1 ? width : width / (evals.length - 1);
  evals.forEach((cp, i) => {
    const hit = element("rect", { x: x(i) - strip / 2, y: 0, width: strip, height, class: "hit", "data-ply": i + 1 });
    const title = element("title", {});
    title.textContent = `${labels[i] ?? `ply ${i + 1}`}: ${pawns(cp)}`;
    hit.appendChild(title);
    if (onPick) hit.addEventListener("click", () => onPick(i + 1));
    svg.appendChild(hit);
  });
}

// The mark of move `index`, if the analysis gave one.
export function markOf(analysis, index) {
  if (!analysis || analysis.status !== "done") return "";
  return analysis.marks[index] || "";
}
