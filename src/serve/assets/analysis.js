// A finished game's analysis: the evaluation graph (White's view, capped
// at ±10 pawns) and the ?/?? marks of the move list.

const SVG = "http://www.w3.org/2000/svg";

export function drawGraph(svg, evals) {
  svg.replaceChildren();
  if (!evals || evals.length === 0) return;
  const width = 300, height = 80, cap = 1000;
  const x = (i) => (evals.length === 1 ? width / 2 : (i / (evals.length - 1)) * width);
  const y = (cp) => height / 2 - (Math.max(-cap, Math.min(cap, cp)) / cap) * (height / 2 - 2);
  const mid = document.createElementNS(SVG, "line");
  for (const [k, v] of Object.entries({ x1: 0, x2: width, y1: height / 2, y2: height / 2, class: "axis" })) mid.setAttribute(k, v);
  svg.appendChild(mid);
  const area = document.createElementNS(SVG, "polygon");
  const points = evals.map((cp, i) => `${x(i)},${y(cp)}`);
  area.setAttribute("points", [`0,${height / 2}`, ...points, `${width},${height / 2}`].join(" "));
  area.setAttribute("class", "eval-area");
  svg.appendChild(area);
}

// The mark of move `index`, if the analysis gave one.
export function markOf(analysis, index) {
  if (!analysis || analysis.status !== "done") return "";
  return analysis.marks[index] || "";
}
