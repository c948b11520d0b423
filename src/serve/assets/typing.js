// Moves by keyboard, as lidraughts offers: the player types the squares
// of a move as the notation writes them (c3-d4, c3xe5xc7, c3:e5, C3XE5)
// or shortened to start and end (c3c7) where only one move has them. The
// board picks what has been typed so far and shows where it can go on;
// the move plays as soon as the squares name exactly one legal move and
// no longer one begins with them, or on Enter when one of them ends there.
// While the opponent is to move, a move typed is picked ahead (a
// premove) from those the board offers then, as a click would pick it.

// The squares typed, or null when the text holds anything but squares
// and the separators the notation allows.
export function typedSquares(text) {
  const squares = text.toLowerCase().match(/[a-h][1-8]/g) || [];
  const rest = text.toLowerCase().replace(/[a-h][1-8]/g, "");
  return /^[\s\-x:]*$/.test(rest) ? squares : null;
}

const stepsOf = (move) => [move.from, ...move.path];

const startsWith = (steps, squares) => squares.every((square, i) => steps[i] === square);

// Of the legal moves: those the squares could still become (`open`), and
// those they already name (`named`), in full or by start and end.
export function movesTyped(squares, legal) {
  const open = legal.filter((move) => startsWith(stepsOf(move), squares));
  const named = legal.filter((move) => {
    const steps = stepsOf(move);
    const full = steps.length === squares.length && startsWith(steps, squares);
    const short = squares.length === 2 && steps[0] === squares[0] && steps.at(-1) === squares[1];
    return full || short;
  });
  return { open, named };
}

// Wire `input` to `board`: what is typed picks on the board, a move
// named plays, and `hint` (an element) says what is wrong on Enter.
export function typeMoves(input, hint, board) {
  const say = (text) => { hint.textContent = text; };
  const follow = (enter) => {
    say("");
    // Enter on an empty field (after a move that played itself as it
    // was typed whole) asks nothing.
    if (input.value.trim() === "") return board.view && board.pickTyped([]);
    const squares = typedSquares(input.value);
    if (squares === null) return say("Type squares: c3-d4, or c3xe5xc7 for a capture.");
    const choices = board.view ? board.choices() : [];
    if (choices.length === 0) return enter && say("It is not your move.");
    const now = board.view.canMove;
    const { open, named } = movesTyped(squares, choices);
    board.pickTyped(open.length > 0 ? squares : []);
    const unique = named.length === 1 && open.every((move) => move === named[0]);
    if (named.length === 1 && (unique || enter)) {
      input.value = "";
      return now ? board.play(named[0].text) : board.pickAhead(named[0]);
    }
    if (!enter || squares.length === 0) return;
    if (named.length > 1) return say(`Which one: ${named.map((move) => move.text).join(", ")}?`);
    // A move refused because a capture must be made says so.
    const forced = now && board.view.captureForced ? " A capture is compulsory." : "";
    const none = now ? `No legal move ${input.value.trim()} here.${forced}` : `No move ${input.value.trim()} to pick ahead.`;
    say(open.length > 0 ? "Type on: the move goes further." : none);
  };
  input.addEventListener("input", () => follow(false));
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") follow(true);
    if (event.key === "Escape") {
      input.value = "";
      follow(false);
    }
  });
}
