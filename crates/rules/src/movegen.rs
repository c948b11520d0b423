//! Legal move generation for both variants.
//!
//! Captures are compulsory by default (the `ForcedCapture` rule; off, plain
//! moves are legal beside them) and a chain is one move. A chain is searched
//! depth-first without touching the board: the jumped squares are a
//! bitboard that blocks crossing, landing and jumping again, and the
//! capturing column's own start square counts as empty.
//!
//! Everything here works on bitboards only: which squares hold columns of
//! which commander, and which commanders are kings. What lies under the
//! commanders only matters when a capture is made, so counting the moves of
//! a position (the last ply of perft) never reads the columns. The rule
//! switches of each variant are compile-time constants (`Rules`), so each
//! variant gets its own specialised code with no per-square rule tests.

use std::marker::PhantomData;

use super::bitboard::Bitboard;
use super::geometry::{BASHNI, Colour, Direction, Geometry, LASCA, Square, Variant};
use super::moves::{MAX_CAPTURES, Move};
use super::position::{KingLanding, Position};

/// The rules of one variant (and king-landing and forced-capture options),
/// fixed at compile time.
pub(super) trait Rules {
    const FLYING: bool;
    const MEN_CAPTURE_BACKWARDS: bool;
    const PROMOTION_ENDS_MOVE: bool;
    /// Flying kings must land where the chain goes on, if they can.
    const LAND_TO_CONTINUE: bool;
    /// A side that can capture must: no plain move beside a capture.
    const FORCED_CAPTURE: bool = true;
    fn geometry() -> &'static Geometry;
}

/// The rules `R` with captures optional (`ForcedCapture` off): a type of
/// its own, so that the default rules compile exactly as without the
/// option and pay nothing for it.
pub(super) struct Optional<R>(PhantomData<R>);

impl<R: Rules> Rules for Optional<R> {
    const FLYING: bool = R::FLYING;
    const MEN_CAPTURE_BACKWARDS: bool = R::MEN_CAPTURE_BACKWARDS;
    const PROMOTION_ENDS_MOVE: bool = R::PROMOTION_ENDS_MOVE;
    const LAND_TO_CONTINUE: bool = R::LAND_TO_CONTINUE;
    const FORCED_CAPTURE: bool = false;
    #[inline(always)]
    fn geometry() -> &'static Geometry {
        R::geometry()
    }
}

pub(super) struct BashniContinue;
pub(super) struct BashniFree;
pub(super) struct Lasca;

impl Rules for BashniContinue {
    const FLYING: bool = true;
    const MEN_CAPTURE_BACKWARDS: bool = true;
    const PROMOTION_ENDS_MOVE: bool = false;
    const LAND_TO_CONTINUE: bool = true;
    #[inline(always)]
    fn geometry() -> &'static Geometry {
        &BASHNI
    }
}

impl Rules for BashniFree {
    const FLYING: bool = true;
    const MEN_CAPTURE_BACKWARDS: bool = true;
    const PROMOTION_ENDS_MOVE: bool = false;
    const LAND_TO_CONTINUE: bool = false;
    #[inline(always)]
    fn geometry() -> &'static Geometry {
        &BASHNI
    }
}

impl Rules for Lasca {
    const FLYING: bool = false;
    const MEN_CAPTURE_BACKWARDS: bool = false;
    const PROMOTION_ENDS_MOVE: bool = true;
    const LAND_TO_CONTINUE: bool = false;
    #[inline(always)]
    fn geometry() -> &'static Geometry {
        &LASCA
    }
}

/// Which `Rules` type a position's moves are generated with: its variant,
/// landing and capture rules in one value that the position keeps, so that
/// choosing the specialised code is a single branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RulesKind {
    BashniContinue,
    BashniFree,
    Lasca,
    OptionalBashniContinue,
    OptionalBashniFree,
    OptionalLasca,
}

impl RulesKind {
    pub(super) fn of(variant: Variant, landing: KingLanding, forced_capture: bool) -> RulesKind {
        match (variant, landing, forced_capture) {
            (Variant::Bashni, KingLanding::Continue, true) => RulesKind::BashniContinue,
            (Variant::Bashni, KingLanding::Free, true) => RulesKind::BashniFree,
            (Variant::Lasca, _, true) => RulesKind::Lasca,
            (Variant::Bashni, KingLanding::Continue, false) => RulesKind::OptionalBashniContinue,
            (Variant::Bashni, KingLanding::Free, false) => RulesKind::OptionalBashniFree,
            (Variant::Lasca, _, false) => RulesKind::OptionalLasca,
        }
    }
}

/// Run `$body` with the type `$r` bound to the `Rules` of `$pos`.
macro_rules! with_rules {
    ($pos:expr, $r:ident => $body:expr) => {{
        use $crate::movegen::{BashniContinue, BashniFree, Lasca, Optional, RulesKind};
        match $pos.rules_kind {
            RulesKind::BashniContinue => {
                type $r = BashniContinue;
                $body
            }
            RulesKind::BashniFree => {
                type $r = BashniFree;
                $body
            }
            RulesKind::Lasca => {
                type $r = Lasca;
                $body
            }
            RulesKind::OptionalBashniContinue => {
                type $r = Optional<BashniContinue>;
                $body
            }
            RulesKind::OptionalBashniFree => {
                type $r = Optional<BashniFree>;
                $body
            }
            RulesKind::OptionalLasca => {
                type $r = Optional<Lasca>;
                $body
            }
        }
    }};
}
pub(super) use with_rules;

/// The part of a position move generation needs, seen from the side to
/// move: commanders by colour and which commanders are kings.
#[derive(Clone, Copy, Debug)]
pub(super) struct Bits {
    pub own: Bitboard,
    pub enemy: Bitboard,
    pub kings: Bitboard,
    pub side: Colour,
}

impl Bits {
    #[inline]
    pub fn of(pos: &Position) -> Bits {
        Bits {
            own: pos.commanded_by(pos.side),
            enemy: pos.commanded_by(!pos.side),
            kings: pos.kings,
            side: pos.side,
        }
    }

    /// The position after the quiet move `from`-`to`, the other side to move.
    #[inline]
    pub fn after_quiet<R: Rules>(&self, from: Bitboard, to: Bitboard) -> Bits {
        let moved = from | to;
        let mut kings = self.kings;
        if kings.meets(from) {
            kings ^= moved;
        } else {
            kings |= to & R::geometry().promotion[self.side.index()];
        }
        Bits {
            own: self.enemy,
            enemy: self.own ^ moved,
            kings,
            side: !self.side,
        }
    }

    /// The position after a capture from `from` to `to` that jumped the
    /// columns on `jumped`; `king` is the capturing commander's final rank.
    /// Only here are the columns read: a jumped column loses its commander
    /// and the next piece down (either colour, either rank) takes over.
    #[inline]
    pub fn after_capture(
        &self,
        pos: &Position,
        from: Bitboard,
        to: Bitboard,
        jumped: Bitboard,
        king: bool,
    ) -> Bits {
        let mut own = self.own & !from | to;
        let mut enemy = self.enemy & !jumped;
        let mut kings = self.kings & !(from | jumped);
        if king {
            kings |= to;
        }
        for sq in jumped {
            let col = pos.columns[sq.index()];
            let bit = sq.bb();
            if col.own() > 1 {
                enemy |= bit;
            } else if col.prisoners() > 0 {
                own |= bit;
            } else {
                continue;
            }
            if col.king_bits() & 2 != 0 {
                kings |= bit;
            }
        }
        Bits {
            own: enemy,
            enemy: own,
            kings,
            side: !self.side,
        }
    }

    #[inline]
    pub fn empty<R: Rules>(&self) -> Bitboard {
        R::geometry().playable & !(self.own | self.enemy)
    }

    #[inline]
    fn men(&self) -> Bitboard {
        self.own & !self.kings
    }

    #[inline]
    pub fn own_kings(&self) -> Bitboard {
        self.own & self.kings
    }

    /// Where the men would step to along each forward direction, if empty.
    #[inline(always)]
    pub fn men_steps(&self) -> (Bitboard, Bitboard) {
        let men = self.men();
        match self.side {
            Colour::White => (men << 7, men << 9),
            Colour::Black => (men >> 9, men >> 7),
        }
    }

    /// `[d]`: the squares from which a short jump along `d` exists,
    /// whatever stands on them (bit-parallel over the whole board).
    #[inline(always)]
    fn jump_sources(&self, empty: Bitboard) -> [Bitboard; 4] {
        let mut sources = [Bitboard::EMPTY; 4];
        each_dir(|d| sources[d as usize] = d.shift_back(d.shift_back(empty) & self.enemy));
        sources
    }

    /// The men that can jump at once.
    #[inline(always)]
    fn capturing_men<R: Rules>(&self, sources: &[Bitboard; 4]) -> Bitboard {
        let mut found = Bitboard::EMPTY;
        each_dir(|d| {
            if men_capture_along::<R>(d, self.side) {
                found |= sources[d as usize];
            }
        });
        found & self.men()
    }

    /// The columns that might capture: men and stepping kings that can
    /// jump at once, and every flying king.
    #[inline(always)]
    fn capture_candidates<R: Rules>(&self, sources: &[Bitboard; 4]) -> Bitboard {
        let kings = if R::FLYING {
            self.own_kings()
        } else {
            (sources[0] | sources[1] | sources[2] | sources[3]) & self.own_kings()
        };
        self.capturing_men::<R>(sources) | kings
    }

    /// Run the capture search of every column that might capture; returns
    /// the number of complete chains found. Sinks that record paths get
    /// the chains in `generate_moves` order (by start square); the others
    /// get them in any order.
    #[inline]
    pub fn for_each_capture<R: Rules, S: ChainSink>(&self, sink: &mut S) -> u64 {
        let empty = self.empty::<R>();
        let sources = self.jump_sources(empty);
        if S::PATH {
            let mut leaves = 0;
            for from in self.capture_candidates::<R>(&sources) {
                let mut chain = Chain::<R, S>::new(self, from, empty, &mut *sink);
                chain.extend(from, self.kings.has(from), Bitboard::EMPTY, false);
                leaves += chain.leaves;
            }
            return leaves;
        }
        self.all_captures_bulk::<R, S>(empty, &sources, sink)
    }

    #[inline(always)]
    fn all_captures_bulk<R: Rules, S: ChainSink>(
        &self,
        empty: Bitboard,
        sources: &[Bitboard; 4],
        sink: &mut S,
    ) -> u64 {
        let men = self.short_captures_bulk::<R, S, false>(empty, sources, sink);
        if R::FLYING {
            men + self.king_captures::<R, S>(empty, sink)
        } else if self.own_kings().is_empty() {
            men
        } else {
            men + self.short_captures_bulk::<R, S, true>(empty, sources, sink)
        }
    }

    /// The chains of the men (or of stepping kings if `KING`), found a
    /// whole direction at a time. After a first jump along `dir`, the
    /// jumped square and the vacated start square both lie behind the
    /// capturer (against `dir`), so a second jump along any other direction
    /// depends only on the original board: a landing from which no such
    /// jump starts ends the chain, and is counted without searching. Only
    /// landings where the chain goes on, or where a Bashni man is crowned
    /// and goes on as a flying king, are searched.
    #[inline(always)]
    fn short_captures_bulk<R: Rules, S: ChainSink, const KING: bool>(
        &self,
        empty: Bitboard,
        sources: &[Bitboard; 4],
        sink: &mut S,
    ) -> u64 {
        let pieces = if KING { self.own_kings() } else { self.men() };
        let promotion = promotion_of::<R, KING>(self.side);
        let mut leaves = 0;
        let mut onward_landings = [Bitboard::EMPTY; 4];
        each_dir(|dir| {
            let jumpers = sources[dir as usize] & pieces;
            if !captures_along::<R, KING>(dir, self.side) || jumpers.is_empty() {
                return;
            }
            let landings = dir.shift(dir.shift(jumpers));
            let mut onward = Bitboard::EMPTY;
            each_dir(|d| {
                if captures_along::<R, KING>(d, self.side) && d != dir.opposite() {
                    onward |= sources[d as usize];
                }
            });
            let ends = if R::PROMOTION_ENDS_MOVE {
                landings & (promotion | !onward)
            } else {
                landings & !(onward | promotion)
            };
            leaves += ends.len() as u64;
            if !S::COUNT_ONLY {
                for to in ends {
                    let victim = dir.shift_back(to.bb());
                    let from = dir.shift_back(victim).lowest();
                    let crowned = promotion.has(to);
                    sink.leaf(from, to, victim, KING || crowned, crowned, &[], &[]);
                }
            }
            onward_landings[dir as usize] = landings & !ends;
        });
        if onward_landings != [Bitboard::EMPTY; 4] {
            leaves += self.short_chains::<R, S, KING>(empty, &onward_landings, sink);
        }
        leaves
    }

    /// The chains that go on past the first landing (`landings[d]`,
    /// reached along `d`), searched one by one.
    #[inline(never)]
    fn short_chains<R: Rules, S: ChainSink, const KING: bool>(
        &self,
        empty: Bitboard,
        landings: &[Bitboard; 4],
        sink: &mut S,
    ) -> u64 {
        let promotion = promotion_of::<R, KING>(self.side);
        let mut leaves = 0;
        for dir in Direction::ALL {
            for to in landings[dir as usize] {
                let victim = dir.shift_back(to.bb());
                let from = dir.shift_back(victim).lowest();
                let mut chain = ShortChain::<R, S, KING> {
                    enemy: self.enemy,
                    empty: empty | from.bb(),
                    promotion,
                    side: self.side,
                    from,
                    sink: &mut *sink,
                    bits: self,
                    rules: PhantomData,
                };
                leaves += if promotion.has(to) {
                    chain.crowned(to.bb(), victim, victim)
                } else {
                    chain.leaves_from(to.bb(), dir, victim)
                };
            }
        }
        leaves
    }

    /// The kings' chains, searched one king at a time.
    #[inline(always)]
    fn king_captures<R: Rules, S: ChainSink>(&self, empty: Bitboard, sink: &mut S) -> u64 {
        let mut leaves = 0;
        for from in self.own_kings() {
            let mut chain = Chain::<R, S>::new(self, from, empty, &mut *sink);
            chain.extend(from, true, Bitboard::EMPTY, false);
            leaves += chain.leaves;
        }
        leaves
    }

    /// Whether the side to move has a capture.
    #[inline]
    pub fn has_capture<R: Rules>(&self) -> bool {
        let empty = self.empty::<R>();
        if self.capturing_men::<R>(&self.jump_sources(empty)).any() {
            return true;
        }
        self.own_kings().iter().any(|k| {
            let mut sink = Count;
            let chain = Chain::<R, Count>::new(self, k, empty, &mut sink);
            chain.can_capture_as_king(k, Bitboard::EMPTY)
        })
    }

    /// Number of legal moves: chains are searched, plain moves are counted
    /// with population counts. The common case (no capture, no king) is
    /// small enough to inline into perft's loops; the rest is out of line.
    /// With captures optional, plain moves count beside the captures.
    #[inline(always)]
    pub fn count_moves<R: Rules>(&self) -> u64 {
        if !R::FORCED_CAPTURE {
            return self.count_captures::<R>() + self.count_quiet::<R>();
        }
        match self.count_captures::<R>() {
            0 => self.count_quiet::<R>(),
            captures => captures,
        }
    }

    /// The number of captures (so 0 if plain moves are the only moves).
    #[inline(always)]
    pub fn count_captures<R: Rules>(&self) -> u64 {
        let empty = self.empty::<R>();
        let sources = self.jump_sources(empty);
        if self.capture_candidates::<R>(&sources).is_empty() {
            return 0;
        }
        self.count_chains::<R>(empty, &sources)
    }

    /// The number of plain moves (legal only if there is no capture, or
    /// if captures are optional).
    #[inline(always)]
    pub fn count_quiet<R: Rules>(&self) -> u64 {
        let empty = self.empty::<R>();
        let (left, right) = self.men_steps();
        let count = (left & empty).len() as u64 + (right & empty).len() as u64;
        match self.own_kings() {
            kings if kings.is_empty() => count,
            kings => count + count_king_steps::<R>(kings, empty),
        }
    }

    #[inline(never)]
    fn count_chains<R: Rules>(&self, empty: Bitboard, sources: &[Bitboard; 4]) -> u64 {
        self.all_captures_bulk::<R, _>(empty, sources, &mut Count)
    }

    /// Call `f(from, to)` for every plain move, in the order of
    /// `generate_moves` (men by direction then square, then kings).
    #[inline]
    pub fn for_each_quiet<R: Rules>(&self, mut f: impl FnMut(Square, Square)) {
        for (dir, targets) in self.man_step_targets::<R>() {
            for to in targets {
                f(dir.shift_back(to.bb()).lowest(), to);
            }
        }
        self.for_each_king_step::<R>(f);
    }

    /// The men's plain moves: for each forward direction, the squares they
    /// step to (the men stand one step back).
    #[inline(always)]
    pub fn man_step_targets<R: Rules>(&self) -> [(Direction, Bitboard); 2] {
        let empty = self.empty::<R>();
        Direction::forward(self.side).map(|dir| (dir, dir.shift(self.men()) & empty))
    }

    /// `f(from, to)` for every plain king move, in `generate_moves` order.
    #[inline]
    pub fn for_each_king_step<R: Rules>(&self, mut f: impl FnMut(Square, Square)) {
        let empty = self.empty::<R>();
        for from in self.own_kings() {
            for dir in Direction::ALL {
                let steps = king_ray::<R>(from, dir, empty);
                if dir.is_upward() {
                    steps.iter().for_each(|to| f(from, to));
                } else {
                    steps.iter_down().for_each(|to| f(from, to));
                }
            }
        }
    }
}

/// What one side's columns could do if it were that side's turn, counted
/// bit-parallel over the board. The evaluation reads its mobility and threat
/// terms from here, so the movement rules are written once, in `rules`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reach {
    /// Plain man moves: one per man and forward direction with an empty
    /// square in front.
    pub man_moves: u32,
    /// Empty squares the kings could move to, per direction (a square that
    /// two kings reach along the same diagonal counts once).
    pub king_moves: u32,
    /// Enemy-commanded columns the side could jump at once: the first jump
    /// of a chain, by a man in a direction it captures in or by a king.
    pub jumpable: Bitboard,
}

impl Position {
    /// What `colour`'s columns could do on its turn (see [`Reach`]). The
    /// landing rule does not matter here: it only chooses among chains.
    #[inline]
    pub fn reach(&self, colour: Colour) -> Reach {
        match self.variant() {
            super::geometry::Variant::Bashni => reach::<BashniContinue>(self, colour),
            super::geometry::Variant::Lasca => reach::<Lasca>(self, colour),
        }
    }
}

#[inline(always)]
fn reach<R: Rules>(pos: &Position, colour: Colour) -> Reach {
    let bits = Bits {
        own: pos.commanded_by(colour),
        enemy: pos.commanded_by(!colour),
        kings: pos.kings,
        side: colour,
    };
    let empty = bits.empty::<R>();
    let (men, kings) = (bits.men(), bits.own_kings());
    let mut reach = Reach::default();
    for dir in Direction::forward(colour) {
        reach.man_moves += (dir.shift(men) & empty).len();
    }
    each_dir(|dir| {
        // Columns with an empty square behind them along `dir`.
        let jumpable = bits.enemy & dir.shift_back(empty);
        if men_capture_along::<R>(dir, colour) {
            reach.jumpable |= dir.shift(men) & jumpable;
        }
        if kings.any() {
            let mut ray = dir.shift(kings) & empty;
            let mut travelled = ray;
            while R::FLYING && ray.any() {
                ray = dir.shift(ray) & empty;
                travelled |= ray;
            }
            reach.king_moves += travelled.len();
            let launch = if R::FLYING { kings | travelled } else { kings };
            reach.jumpable |= dir.shift(launch) & jumpable;
        }
    });
    reach
}

#[inline(always)]
fn is_forward(dir: Direction, side: Colour) -> bool {
    dir.is_upward() == (side == Colour::White)
}

/// Whether a king (if `KING`) or a man of `side` may make a short capture
/// along `dir`.
#[inline(always)]
fn captures_along<R: Rules, const KING: bool>(dir: Direction, side: Colour) -> bool {
    KING || men_capture_along::<R>(dir, side)
}

/// Where a man (unless `KING`) of `side` is crowned.
#[inline(always)]
fn promotion_of<R: Rules, const KING: bool>(side: Colour) -> Bitboard {
    if KING {
        Bitboard::EMPTY
    } else {
        R::geometry().promotion[side.index()]
    }
}

/// Whether a man of `side` may capture along `dir`.
#[inline(always)]
fn men_capture_along<R: Rules>(dir: Direction, side: Colour) -> bool {
    R::MEN_CAPTURE_BACKWARDS || is_forward(dir, side)
}

/// `f` for each direction in `Direction::ALL` order, unrolled (loops over
/// the array were left rolled up by the compiler in the hot paths).
#[inline(always)]
fn each_dir(mut f: impl FnMut(Direction)) {
    f(Direction::NorthEast);
    f(Direction::NorthWest);
    f(Direction::SouthEast);
    f(Direction::SouthWest);
}

/// Whether `f` holds for some direction, tried in `Direction::ALL` order.
#[inline(always)]
fn any_dir(mut f: impl FnMut(Direction) -> bool) -> bool {
    f(Direction::NorthEast)
        || f(Direction::NorthWest)
        || f(Direction::SouthEast)
        || f(Direction::SouthWest)
}

/// Empty squares a king on `sq` can move to along `dir`.
#[inline(always)]
fn king_ray<R: Rules>(sq: Square, dir: Direction, empty: Bitboard) -> Bitboard {
    if !R::FLYING {
        return dir.shift(sq.bb()) & empty;
    }
    let rays = &R::geometry().rays;
    let mut ray = rays[sq.index()][dir as usize];
    let blockers = ray & !empty;
    if blockers.any() {
        ray ^= rays[dir.nearest(blockers).index()][dir as usize];
    }
    ray & empty
}

/// Plain moves of the kings on `kings`.
#[inline(never)]
fn count_king_steps<R: Rules>(kings: Bitboard, empty: Bitboard) -> u64 {
    if !R::FLYING {
        let mut count = 0;
        each_dir(|dir| count += (dir.shift(kings) & empty).len() as u64);
        return count;
    }
    kings
        .iter()
        .map(|k| king_steps::<R>(k, empty).len() as u64)
        .sum()
}

/// Empty squares a king on `sq` can move to.
#[inline(always)]
fn king_steps<R: Rules>(sq: Square, empty: Bitboard) -> Bitboard {
    let mut steps = Bitboard::EMPTY;
    each_dir(|dir| steps |= king_ray::<R>(sq, dir, empty));
    steps
}

/// Receives each complete capture chain.
pub(super) trait ChainSink {
    /// Whether the chain's squares must be recorded in order.
    const PATH: bool;
    /// `leaf` does nothing: only the number of chains is wanted.
    const COUNT_ONLY: bool = false;
    /// A chain from `from` ends on `to` having jumped `jumped`; the
    /// capturing commander ends as a king if `king`, crowned on the way if
    /// `promoted`. With `PATH`, `landings` and `victims` list the legs.
    #[allow(clippy::too_many_arguments)]
    fn leaf(
        &mut self,
        from: Square,
        to: Square,
        jumped: Bitboard,
        king: bool,
        promoted: bool,
        landings: &[u8],
        victims: &[u8],
    );
}

/// Counting needs nothing but the number of chains.
pub(super) struct Count;

impl ChainSink for Count {
    const PATH: bool = false;
    const COUNT_ONLY: bool = true;
    #[inline(always)]
    fn leaf(&mut self, _: Square, _: Square, _: Bitboard, _: bool, _: bool, _: &[u8], _: &[u8]) {}
}

impl ChainSink for Vec<Move> {
    const PATH: bool = true;
    #[inline]
    fn leaf(
        &mut self,
        from: Square,
        to: Square,
        _: Bitboard,
        _: bool,
        promoted: bool,
        landings: &[u8],
        victims: &[u8],
    ) {
        let mut mv = Move::quiet(from, to, promoted);
        mv.captures = landings.len() as u8;
        mv.landings[..landings.len()].copy_from_slice(landings);
        mv.jumped[..victims.len()].copy_from_slice(victims);
        self.push(mv);
    }
}

/// The rest of a man's chain (a stepping king's if `KING`), for sinks
/// that need no path: a lean depth-first count with the board in
/// registers. A man crowned on the way hands over to `Chain` (Bashni) or
/// stops (Lasca).
struct ShortChain<'s, 'b, R, S, const KING: bool> {
    enemy: Bitboard,
    /// Empty squares, with the capturing column's start square among them.
    empty: Bitboard,
    promotion: Bitboard,
    side: Colour,
    from: Square,
    sink: &'s mut S,
    bits: &'b Bits,
    rules: PhantomData<R>,
}

impl<R: Rules, S: ChainSink, const KING: bool> ShortChain<'_, '_, R, S, KING> {
    /// Chains that go on from `at`, reached along `came` having jumped
    /// `jumped`; the move ends here (one chain) if none does. The way back
    /// (against `came`) is blocked by the column just jumped.
    fn leaves_from(&mut self, at: Bitboard, came: Direction, jumped: Bitboard) -> u64 {
        let victims = self.enemy & !jumped;
        let mut leaves = 0;
        each_dir(|dir| {
            if dir == came.opposite() || !captures_along::<R, KING>(dir, self.side) {
                return;
            }
            let victim = dir.shift(at) & victims;
            let to = dir.shift(victim) & self.empty;
            if to.is_empty() {
                return;
            }
            let jumped = jumped | victim;
            leaves += if !to.meets(self.promotion) {
                self.leaves_from(to, dir, jumped)
            } else if R::PROMOTION_ENDS_MOVE {
                let to = to.lowest();
                self.sink.leaf(self.from, to, jumped, true, true, &[], &[]);
                1
            } else {
                self.crowned(to, victim, jumped)
            };
        });
        if leaves == 0 {
            self.sink
                .leaf(self.from, at.lowest(), jumped, KING, false, &[], &[]);
            leaves = 1;
        }
        leaves
    }

    /// A Bashni man crowned on `to`: the chain goes on as a flying king.
    #[inline(never)]
    fn crowned(&mut self, to: Bitboard, victim: Bitboard, jumped: Bitboard) -> u64 {
        let mut chain = Chain::<R, S>::new(self.bits, self.from, self.empty, &mut *self.sink);
        chain.follow(to.lowest(), victim.lowest(), true, jumped, true);
        chain.leaves
    }
}

/// Depth-first search of the capture chains of one column.
struct Chain<'s, R, S> {
    /// Empty squares, with the capturing column's start square among them.
    empty: Bitboard,
    enemy: Bitboard,
    promotion: Bitboard,
    side: Colour,
    from: Square,
    depth: usize,
    leaves: u64,
    landings: [u8; MAX_CAPTURES],
    victims: [u8; MAX_CAPTURES],
    sink: &'s mut S,
    rules: PhantomData<R>,
}

impl<'s, R: Rules, S: ChainSink> Chain<'s, R, S> {
    #[inline]
    fn new(bits: &Bits, from: Square, empty: Bitboard, sink: &'s mut S) -> Self {
        Chain {
            empty: empty | from.bb(),
            enemy: bits.enemy,
            promotion: R::geometry().promotion[bits.side.index()],
            side: bits.side,
            from,
            depth: 0,
            leaves: 0,
            landings: [0; MAX_CAPTURES],
            victims: [0; MAX_CAPTURES],
            sink,
            rules: PhantomData,
        }
    }

    /// Extend the chain standing on `sq`; returns whether any capture was
    /// possible from here (if not, the caller ends the move).
    #[inline]
    fn extend(&mut self, sq: Square, king: bool, jumped: Bitboard, promoted: bool) -> bool {
        if R::FLYING && king {
            self.extend_flying(sq, jumped, promoted)
        } else {
            self.extend_short(sq, king, jumped, promoted)
        }
    }

    /// Short jumps: every man, and Lasca's officers.
    fn extend_short(&mut self, sq: Square, king: bool, jumped: Bitboard, promoted: bool) -> bool {
        let at = sq.bb();
        let victims = self.enemy & !jumped;
        let mut found = false;
        each_dir(|dir| {
            if !(king || men_capture_along::<R>(dir, self.side)) {
                return;
            }
            let victim = dir.shift(at) & victims;
            let to = dir.shift(victim) & self.empty;
            if to.is_empty() {
                return;
            }
            found = true;
            let crowned = !king && self.promotion.meets(to);
            let jumped = jumped | victim;
            let (to, victim) = (to.lowest(), victim.lowest());
            if crowned && R::PROMOTION_ENDS_MOVE {
                self.push(to, victim);
                self.emit(to, jumped, true, true);
                self.depth -= 1;
            } else {
                self.follow(to, victim, king || crowned, jumped, promoted || crowned);
            }
        });
        found
    }

    /// A flying king: the victim is the first column along a diagonal, and
    /// every empty square behind it is a landing.
    fn extend_flying(&mut self, sq: Square, jumped: Bitboard, promoted: bool) -> bool {
        let mut found = false;
        each_dir(|dir| {
            let Some(victim) = self.flying_victim(sq, dir, jumped) else {
                return;
            };
            let mut landings = king_ray::<R>(victim, dir, self.empty);
            if landings.is_empty() {
                return;
            }
            found = true;
            let jumped = jumped | victim.bb();
            if R::LAND_TO_CONTINUE {
                let continuing: Bitboard = landings
                    .iter()
                    .filter(|&t| self.can_capture_as_king(t, jumped))
                    .collect();
                if continuing.any() {
                    landings = continuing;
                }
            }
            for to in landings {
                self.follow(to, victim, true, jumped, promoted);
            }
        });
        found
    }

    /// The enemy column a flying king on `sq` would jump along `dir`.
    #[inline(always)]
    fn flying_victim(&self, sq: Square, dir: Direction, jumped: Bitboard) -> Option<Square> {
        let blockers = R::geometry().rays[sq.index()][dir as usize] & !self.empty;
        if blockers.is_empty() {
            return None;
        }
        let victim = dir.nearest(blockers);
        (self.enemy & !jumped).has(victim).then_some(victim)
    }

    /// Whether a king standing on `sq` could capture at once.
    #[inline]
    fn can_capture_as_king(&self, sq: Square, jumped: Bitboard) -> bool {
        any_dir(|dir| {
            if R::FLYING {
                self.flying_victim(sq, dir, jumped)
                    .is_some_and(|v| dir.shift(v.bb()).meets(self.empty))
            } else {
                let victim = dir.shift(sq.bb()) & self.enemy & !jumped;
                dir.shift(victim).meets(self.empty)
            }
        })
    }

    /// Land on `to` after jumping `victim`, then go on or end the move there.
    #[inline]
    fn follow(&mut self, to: Square, victim: Square, king: bool, jumped: Bitboard, promoted: bool) {
        self.push(to, victim);
        if !self.extend(to, king, jumped, promoted) {
            self.emit(to, jumped, king, promoted);
        }
        self.depth -= 1;
    }

    #[inline(always)]
    fn push(&mut self, to: Square, victim: Square) {
        if S::PATH {
            self.landings[self.depth] = to.0;
            self.victims[self.depth] = victim.0;
        }
        self.depth += 1;
    }

    #[inline(always)]
    fn emit(&mut self, to: Square, jumped: Bitboard, king: bool, promoted: bool) {
        self.leaves += 1;
        let n = if S::PATH { self.depth } else { 0 };
        self.sink.leaf(
            self.from,
            to,
            jumped,
            king,
            promoted,
            &self.landings[..n],
            &self.victims[..n],
        );
    }
}

/// Generate all legal moves of `pos` into `out` (cleared first): the
/// captures, then (if there is none, or if captures are optional) the
/// plain moves.
pub(super) fn generate<R: Rules>(pos: &Position, out: &mut Vec<Move>) {
    out.clear();
    let bits = Bits::of(pos);
    if bits.for_each_capture::<R, _>(out) == 0 || !R::FORCED_CAPTURE {
        let promotion = R::geometry().promotion[bits.side.index()];
        let men = bits.men();
        bits.for_each_quiet::<R>(|from, to| {
            let promotes = men.has(from) && promotion.has(to);
            out.push(Move::quiet(from, to, promotes));
        });
    }
}

impl Position {
    /// All legal moves, appended to `out` (which is cleared first).
    pub fn generate_moves(&self, out: &mut Vec<Move>) {
        with_rules!(self, R => generate::<R>(self, out))
    }

    /// All legal moves in a fresh vector.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut out = Vec::with_capacity(32);
        self.generate_moves(&mut out);
        out
    }

    /// Number of legal moves. Plain moves are counted with bitboards, which
    /// is what makes bulk-counted perft fast.
    pub fn count_moves(&self) -> usize {
        with_rules!(self, R => Bits::of(self).count_moves::<R>() as usize)
    }

    /// Whether the side to move has a capture (and so must capture, unless
    /// captures are optional: see [`Position::forced_capture`]).
    pub fn has_capture(&self) -> bool {
        with_rules!(self, R => Bits::of(self).has_capture::<R>())
    }
}

#[cfg(test)]
mod reach_tests {
    use crate::{Bitboard, Colour, RuleSet, Variant, parse_square};

    fn bb(variant: Variant, names: &[&str]) -> Bitboard {
        names
            .iter()
            .map(|n| parse_square(variant, n).unwrap())
            .collect()
    }

    #[test]
    fn men_reach_forward_and_jump_as_their_variant_allows() {
        // White man d4 between black columns c5 (ahead) and e3 (behind).
        let fen = "W:d4w,c5b,e3b,g7b 0 1";
        let bashni = crate::Position::from_fen(&RuleSet::new(Variant::Bashni), fen).unwrap();
        let reach = bashni.reach(Colour::White);
        assert_eq!(reach.man_moves, 1, "d4-e5 only: c5 is taken");
        assert_eq!(reach.jumpable, bb(Variant::Bashni, &["c5", "e3"]));
        assert_eq!(reach.king_moves, 0);

        // Lasca soldiers capture forward only: e3 is behind d4.
        let lasca = crate::Position::from_fen(&RuleSet::new(Variant::Lasca), fen).unwrap();
        assert_eq!(
            lasca.reach(Colour::White).jumpable,
            bb(Variant::Lasca, &["c5"])
        );
    }

    #[test]
    fn flying_kings_reach_along_free_diagonals_stepping_officers_one_square() {
        let fen = "W:a1W,e5b,h8b 0 1";
        let bashni = crate::Position::from_fen(&RuleSet::new(Variant::Bashni), fen).unwrap();
        let reach = bashni.reach(Colour::White);
        assert_eq!(reach.king_moves, 3, "b2 c3 d4, then e5 blocks");
        assert_eq!(reach.jumpable, bb(Variant::Bashni, &["e5"]));

        let lasca_fen = "W:a1W,c3b,g7b 0 1";
        let lasca = crate::Position::from_fen(&RuleSet::new(Variant::Lasca), lasca_fen).unwrap();
        let reach = lasca.reach(Colour::White);
        assert_eq!(reach.king_moves, 1, "b2 only");
        assert_eq!(reach.jumpable, Bitboard::EMPTY, "c3 is two steps away");
    }
}
