#!/usr/bin/env python3
"""Reference perft for Bashni and Lasca, written from docs/rules.md alone.

This is a deliberately simple, slow and independent move generator: it
shares no code and no data structure with the Rust crates (no bitboards, no
move type, no specialisation), only the rules as docs/rules.md states them.
A board is a dict from (file, rank) to a column string, top piece first, in
the letters of the position string (w b man, W B king). It exists to make
and check the rows of tests/data/perft.tsv, in particular those for the
ForcedCapture=false option, which no third-party program plays. It is not
run by CI. Run it with python3 (3.8 or later, no packages):

    python3 tests/reference/perft.py bashni 'king_landing=continue' 'W:a1w,... 0 1' 5
    python3 tests/reference/perft.py --check tests/data/perft.tsv [--max-nodes N]
    python3 tests/reference/perft.py --divide lasca 'forced_capture=false' 'W:...' 3

The options field is the one of perft.tsv: `-` or `;`-separated
`king_landing=continue|free` (Bashni only) and `forced_capture=true|false`.
`--check` recomputes every row of the table up to --max-nodes leaves
(default 300000) and reports any difference; the exit code is 1 if one
differs.
"""

import sys

SIZE = {"bashni": 8, "lasca": 7}
DIAGONALS = [(1, 1), (-1, 1), (1, -1), (-1, -1)]


class Rules:
    def __init__(self, variant, options):
        if variant not in SIZE:
            raise ValueError("unknown variant " + variant)
        self.variant = variant
        self.size = SIZE[variant]
        self.flying_kings = variant == "bashni"
        self.men_capture_backwards = variant == "bashni"
        self.promotion_ends_move = variant == "lasca"
        self.land_to_continue = variant == "bashni"
        self.forced_capture = True
        if options != "-":
            for item in options.split(";"):
                key, value = item.split("=")
                if key == "king_landing" and variant == "bashni":
                    if value not in ("continue", "free"):
                        raise ValueError("bad king_landing " + value)
                    self.land_to_continue = value == "continue"
                elif key == "forced_capture":
                    if value not in ("true", "false"):
                        raise ValueError("bad forced_capture " + value)
                    self.forced_capture = value == "true"
                else:
                    raise ValueError("unknown option " + item)

    def on_board(self, sq):
        f, r = sq
        return 0 <= f < self.size and 0 <= r < self.size and (f + r) % 2 == 0

    def far_rank(self, side):
        return self.size - 1 if side == "w" else 0

    def forward(self, side):
        return 1 if side == "w" else -1


def square_name(sq):
    return "abcdefgh"[sq[0]] + str(sq[1] + 1)


def parse_square(text):
    return (ord(text[0].lower()) - ord("a"), int(text[1:]) - 1)


def parse_fen(text):
    """The position string of docs/protocol.md: returns (board, side)."""
    token = text.split()[0]
    side, columns = token.split(":")
    board = {}
    for item in columns.split(","):
        if not item:
            continue
        i = 1
        while item[i].isdigit():
            i += 1
        board[parse_square(item[:i])] = item[i:]
    return board, side.lower()


def owner(column):
    return column[0].lower()


def is_king(column):
    return column[0].isupper()


class Move:
    def __init__(self, start, landings, victims, crowned):
        self.start = start
        self.landings = landings
        self.victims = victims
        self.crowned = crowned

    def text(self):
        if self.victims:
            return square_name(self.start) + "".join(
                "x" + square_name(sq) for sq in self.landings
            )
        return square_name(self.start) + "-" + square_name(self.landings[0])


def chains(rules, board, side, start):
    """Every complete capture chain of the column on `start`."""
    found = []
    man_at_start = not is_king(board[start])

    def empty(sq, jumped):
        # The capturing column has left its start square; a jumped square
        # can never be crossed or landed on again in this move.
        if not rules.on_board(sq) or sq in jumped:
            return False
        return sq == start or sq not in board

    def enemy(sq, jumped):
        return (
            rules.on_board(sq)
            and sq != start
            and sq not in jumped
            and sq in board
            and owner(board[sq]) != side
        )

    def jumps(at, king, jumped):
        """The captures possible from `at`: a list of (victim, landings)."""
        result = []
        for df, dr in DIAGONALS:
            if king and rules.flying_kings:
                sq = (at[0] + df, at[1] + dr)
                while empty(sq, jumped):
                    sq = (sq[0] + df, sq[1] + dr)
                if not enemy(sq, jumped):
                    continue
                victim = sq
                landings = []
                sq = (victim[0] + df, victim[1] + dr)
                while empty(sq, jumped):
                    landings.append(sq)
                    sq = (sq[0] + df, sq[1] + dr)
            else:
                if not king and dr != rules.forward(side) and not rules.men_capture_backwards:
                    continue
                victim = (at[0] + df, at[1] + dr)
                behind = (at[0] + 2 * df, at[1] + 2 * dr)
                if not (enemy(victim, jumped) and empty(behind, jumped)):
                    continue
                landings = [behind]
            if landings:
                result.append((victim, landings))
        return result

    def extend(at, king, jumped, landings, victims):
        options = jumps(at, king, jumped)
        if not options:
            if victims:
                found.append(Move(start, landings, victims, king and man_at_start))
            return
        for victim, squares in options:
            now_jumped = jumped | {victim}
            if king and rules.flying_kings and rules.land_to_continue:
                going_on = [t for t in squares if jumps(t, True, now_jumped)]
                if going_on:
                    squares = going_on
            for to in squares:
                crowned = not king and to[1] == rules.far_rank(side)
                path, taken = landings + [to], victims + [victim]
                if crowned and rules.promotion_ends_move:
                    found.append(Move(start, path, taken, True))
                else:
                    extend(to, king or crowned, now_jumped, path, taken)

    extend(start, is_king(board[start]), frozenset(), [], [])
    return found


def plain_moves(rules, board, side, start):
    moves = []
    king = is_king(board[start])
    for df, dr in DIAGONALS:
        if not king and dr != rules.forward(side):
            continue
        sq = (start[0] + df, start[1] + dr)
        while rules.on_board(sq) and sq not in board:
            crowned = not king and sq[1] == rules.far_rank(side)
            moves.append(Move(start, [sq], [], crowned))
            if not (king and rules.flying_kings):
                break
            sq = (sq[0] + df, sq[1] + dr)
    return moves


def legal_moves(rules, board, side):
    mine = sorted(sq for sq, col in board.items() if owner(col) == side)
    captures = [mv for sq in mine for mv in chains(rules, board, side, sq)]
    if captures and rules.forced_capture:
        return captures
    return captures + [mv for sq in mine for mv in plain_moves(rules, board, side, sq)]


def play(board, side, move):
    """The board after `move`: each jumped column loses its top piece, which
    goes under the bottom of the moving column, in the order taken."""
    after = dict(board)
    column = after.pop(move.start)
    for victim in move.victims:
        top, rest = after[victim][0], after[victim][1:]
        if rest:
            after[victim] = rest
        else:
            del after[victim]
        column = column + top
    if move.crowned:
        column = column[0].upper() + column[1:]
    after[move.landings[-1]] = column
    return after, ("b" if side == "w" else "w")


def perft(rules, board, side, depth):
    if depth == 0:
        return 1
    moves = legal_moves(rules, board, side)
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        child, other = play(board, side, move)
        total += perft(rules, child, other, depth - 1)
    return total


def divide(rules, board, side, depth):
    lines = []
    for move in legal_moves(rules, board, side):
        child, other = play(board, side, move)
        lines.append((move.text(), perft(rules, child, other, depth - 1)))
    return sorted(lines)


def check_table(path, max_nodes):
    bad = 0
    checked = 0
    for number, line in enumerate(open(path), 1):
        line = line.rstrip("\n")
        if not line or line.startswith("#") or line.startswith("variant\t"):
            continue
        variant, options, fen, depth, nodes = line.split("\t")
        if int(nodes) > max_nodes:
            continue
        rules = Rules(variant, options)
        board, side = parse_fen(fen)
        got = perft(rules, board, side, int(depth))
        checked += 1
        if got != int(nodes):
            bad += 1
            print("line %d: %s %s %s depth %s: table %s, reference %d"
                  % (number, variant, options, fen, depth, nodes, got))
    print("%d rows checked, %d differ" % (checked, bad))
    return 1 if bad else 0


def main(args):
    if args and args[0] == "--check":
        max_nodes = 300000
        if "--max-nodes" in args:
            max_nodes = int(args[args.index("--max-nodes") + 1])
        return check_table(args[1], max_nodes)
    show_divide = bool(args) and args[0] == "--divide"
    if show_divide:
        args = args[1:]
    if len(args) != 4:
        print(__doc__)
        return 2
    variant, options, fen, depth = args
    rules = Rules(variant, options)
    board, side = parse_fen(fen)
    if show_divide:
        lines = divide(rules, board, side, int(depth))
        for text, count in lines:
            print("%s: %d" % (text, count))
        print("Nodes searched: %d" % sum(n for _, n in lines))
    else:
        print(perft(rules, board, side, int(depth)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
