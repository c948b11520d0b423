//! Legal move generation for both variants.
//!
//! Captures are compulsory and a chain is one move. A chain is searched
//! depth-first without touching the board: the jumped squares are a
//! bitboard that blocks crossing, landing and jumping again, and the
//! capturing column's own start square counts as empty.

use super::geometry::{Bitboard, Direction, Geometry, Square, squares};
use super::moves::{MAX_CAPTURES, Move};
use super::position::{KingLanding, Position};

impl Position {
    /// All legal moves, appended to `out` (which is cleared first).
    pub fn generate_moves(&self, out: &mut Vec<Move>) {
        out.clear();
        self.generate_captures(out);
        if out.is_empty() {
            self.generate_quiet(out);
        }
    }

    /// All legal moves in a fresh vector.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut out = Vec::with_capacity(32);
        self.generate_moves(&mut out);
        out
    }

    /// Number of legal moves. Plain moves are counted with bitboards, which
    /// is what makes bulk-counted perft fast.
    pub fn count_moves(&self, scratch: &mut Vec<Move>) -> usize {
        if self.has_capture() {
            scratch.clear();
            self.generate_captures(scratch);
            scratch.len()
        } else {
            self.count_quiet()
        }
    }

    fn empty_squares(&self) -> Bitboard {
        self.geometry.playable & !self.occupied()
    }

    fn own_men(&self) -> Bitboard {
        self.commanded_by(self.side) & !self.kings
    }

    /// Whether the side to move has a capture (and so must capture).
    pub fn has_capture(&self) -> bool {
        let empty = self.empty_squares();
        let enemy = self.commanded_by(!self.side);
        let men = self.own_men();
        let man_dirs: &[Direction] = if self.variant().men_capture_backwards() {
            &Direction::ALL
        } else {
            &Direction::forward(self.side)
        };
        for &dir in man_dirs {
            if dir.shift(dir.shift(men) & enemy) & empty != 0 {
                return true;
            }
        }
        let kings = self.commanded_by(self.side) & self.kings;
        if !self.variant().flying_kings() {
            return Direction::ALL
                .iter()
                .any(|&dir| dir.shift(dir.shift(kings) & enemy) & empty != 0);
        }
        // A king's first leg never crosses its own square, so counting that
        // square as empty (as ChainSearch does) changes nothing here.
        squares(kings).any(|sq| ChainSearch::new(self, sq, None).can_capture_from(sq, true, 0))
    }

    fn generate_captures(&self, out: &mut Vec<Move>) {
        let own = self.commanded_by(self.side);
        for from in squares(own) {
            let mut chain = ChainSearch::new(self, from, Some(&mut *out));
            let king = self.kings & from.bb() != 0;
            chain.extend(from, king, 0, false);
        }
    }

    fn generate_quiet(&self, out: &mut Vec<Move>) {
        let g = self.geometry;
        let empty = self.empty_squares();
        let promotion = g.promotion[self.side.index()];
        for dir in Direction::forward(self.side) {
            for from in squares(self.own_men()) {
                if let Some(to) = g.step(from, dir).filter(|t| empty & t.bb() != 0) {
                    out.push(Move::quiet(from, to, promotion & to.bb() != 0));
                }
            }
        }
        let flying = self.variant().flying_kings();
        for from in squares(self.commanded_by(self.side) & self.kings) {
            for dir in Direction::ALL {
                let mut sq = from;
                while let Some(to) = g.step(sq, dir).filter(|t| empty & t.bb() != 0) {
                    out.push(Move::quiet(from, to, false));
                    if !flying {
                        break;
                    }
                    sq = to;
                }
            }
        }
    }

    fn count_quiet(&self) -> usize {
        let g = self.geometry;
        let empty = self.empty_squares();
        let men = self.own_men();
        let mut count = Direction::forward(self.side)
            .iter()
            .map(|dir| (dir.shift(men) & empty).count_ones() as usize)
            .sum();
        let kings = self.commanded_by(self.side) & self.kings;
        if !self.variant().flying_kings() {
            return count
                + Direction::ALL
                    .iter()
                    .map(|dir| (dir.shift(kings) & empty).count_ones() as usize)
                    .sum::<usize>();
        }
        for from in squares(kings) {
            for dir in Direction::ALL {
                let mut sq = from;
                while let Some(to) = g.step(sq, dir).filter(|t| empty & t.bb() != 0) {
                    count += 1;
                    sq = to;
                }
            }
        }
        count
    }
}

/// Depth-first search of the capture chains of one column.
struct ChainSearch<'a> {
    g: &'static Geometry,
    flying: bool,
    men_capture_backwards: bool,
    promotion_ends_move: bool,
    landing: KingLanding,
    forward: [Direction; 2],
    promotion: Bitboard,
    /// Empty squares, with the capturing column's start square among them.
    empty: Bitboard,
    enemy: Bitboard,
    from: Square,
    depth: usize,
    landings: [u8; MAX_CAPTURES],
    jumped: [u8; MAX_CAPTURES],
    out: Option<&'a mut Vec<Move>>,
}

impl<'a> ChainSearch<'a> {
    fn new(pos: &Position, from: Square, out: Option<&'a mut Vec<Move>>) -> Self {
        let variant = pos.variant();
        let side = pos.side_to_move();
        ChainSearch {
            g: pos.geometry(),
            flying: variant.flying_kings(),
            men_capture_backwards: variant.men_capture_backwards(),
            promotion_ends_move: variant.promotion_ends_move(),
            landing: pos.king_landing(),
            forward: Direction::forward(side),
            promotion: pos.geometry().promotion[side.index()],
            empty: (pos.geometry().playable & !pos.occupied()) | from.bb(),
            enemy: pos.commanded_by(!side),
            from,
            depth: 0,
            landings: [0; MAX_CAPTURES],
            jumped: [0; MAX_CAPTURES],
            out,
        }
    }

    #[inline]
    fn directions(&self, king: bool) -> &[Direction] {
        if king || self.men_capture_backwards {
            &Direction::ALL
        } else {
            &self.forward
        }
    }

    #[inline]
    fn is_empty(&self, sq: Square) -> bool {
        self.empty & sq.bb() != 0
    }

    /// The enemy column a capture from `sq` along `dir` would take, if any.
    #[inline]
    fn victim(&self, sq: Square, dir: Direction, king: bool, jumped: Bitboard) -> Option<Square> {
        let mut next = self.g.step(sq, dir)?;
        if king && self.flying {
            while self.is_empty(next) {
                next = self.g.step(next, dir)?;
            }
        }
        (self.enemy & !jumped & next.bb() != 0).then_some(next)
    }

    /// Whether a column standing on `sq` could capture at once.
    fn can_capture_from(&self, sq: Square, king: bool, jumped: Bitboard) -> bool {
        self.directions(king).iter().any(|&dir| {
            self.victim(sq, dir, king, jumped)
                .and_then(|v| self.g.step(v, dir))
                .is_some_and(|t| self.is_empty(t))
        })
    }

    /// Extend the chain standing on `sq`; returns whether any capture was
    /// possible from here (if not, the caller ends the move).
    fn extend(&mut self, sq: Square, king: bool, jumped: Bitboard, promoted: bool) -> bool {
        let mut found = false;
        for i in 0..self.directions(king).len() {
            let dir = self.directions(king)[i];
            let Some(victim) = self.victim(sq, dir, king, jumped) else {
                continue;
            };
            let jumped = jumped | victim.bb();
            let mut landing = self.g.step(victim, dir);
            if !(king && self.flying) {
                let Some(to) = landing.filter(|&t| self.is_empty(t)) else {
                    continue;
                };
                found = true;
                let crowned = !king && self.promotion & to.bb() != 0;
                if crowned && self.promotion_ends_move {
                    self.leaf(to, victim, true);
                } else {
                    self.follow(to, victim, king || crowned, jumped, promoted || crowned);
                }
                continue;
            }
            // Flying king: every empty square behind the victim is a landing.
            let mut candidates: Bitboard = 0;
            while let Some(t) = landing.filter(|&t| self.is_empty(t)) {
                candidates |= t.bb();
                landing = self.g.step(t, dir);
            }
            if candidates == 0 {
                continue;
            }
            found = true;
            if self.landing == KingLanding::Continue {
                let continuing = squares(candidates)
                    .filter(|&t| self.can_capture_from(t, true, jumped))
                    .fold(0, |acc, t| acc | t.bb());
                if continuing != 0 {
                    candidates = continuing;
                }
            }
            for to in squares(candidates) {
                self.follow(to, victim, true, jumped, promoted);
            }
        }
        found
    }

    /// Land on `to` after jumping `victim`, then go on or end the move there.
    #[inline]
    fn follow(&mut self, to: Square, victim: Square, king: bool, jumped: Bitboard, promoted: bool) {
        self.push(to, victim);
        if !self.extend(to, king, jumped, promoted) {
            self.emit(to, promoted);
        }
        self.depth -= 1;
    }

    /// Land on `to` and end the move whatever else is possible.
    fn leaf(&mut self, to: Square, victim: Square, promoted: bool) {
        self.push(to, victim);
        self.emit(to, promoted);
        self.depth -= 1;
    }

    #[inline]
    fn push(&mut self, to: Square, victim: Square) {
        self.landings[self.depth] = to.0;
        self.jumped[self.depth] = victim.0;
        self.depth += 1;
    }

    fn emit(&mut self, to: Square, promotes: bool) {
        if let Some(out) = self.out.as_deref_mut() {
            out.push(Move {
                from: self.from.0,
                to: to.0,
                captures: self.depth as u8,
                promotes,
                landings: self.landings,
                jumped: self.jumped,
            });
        }
    }
}
