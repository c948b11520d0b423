// Move numbers as game records write them: a move number counts a White
// move and the Black move after it ("3. c3-d4 f6-e5"); a Black move
// written without its White one reads "3... f6-e5". A game from a set
// position starts at that position's side to move and move number.

// Ply `ply` (1 for the first) of a game from `startFen`: its move
// number and whether White makes it.
function plyNumber(startFen, ply) {
  const [board, , number] = startFen.trim().split(/\s+/);
  const blackFirst = board.startsWith("B") ? 1 : 0;
  const fromWhite = ply - 1 + blackFirst;
  return { number: (parseInt(number, 10) || 1) + Math.floor(fromWhite / 2), white: fromWhite % 2 === 0 };
}

// "3." for a White move, "3..." for a Black one.
export function plyLabel(startFen, ply) {
  const { number, white } = plyNumber(startFen, ply);
  return white ? `${number}.` : `${number}...`;
}

// The first row's number, and whether its White move is missing (the
// game starts with Black to move).
export function firstRow(startFen) {
  const { number, white } = plyNumber(startFen, 1);
  return { number, blackFirst: !white };
}

// Moves played from `fen` as one numbered line: "3... f6-e5 4. c3-d4".
export function numberedLine(fen, moves) {
  return moves.map((move, i) => {
    const label = plyLabel(fen, i + 1);
    return i === 0 || !label.endsWith("...") ? `${label} ${move}` : move;
  }).join(" ");
}
