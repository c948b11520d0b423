//! One search thread: principal-variation search with a capture-only
//! quiescence, a shared transposition table, killers and history.

use super::params::{
    LMR_MIN_DEPTH, LMR_MIN_MOVES, ORDER_CAPTURE as CAPTURE, ORDER_KILLER as KILLER,
    ORDER_TT_MOVE as TT_MOVE,
};
use super::{MATE, MAX_PLY, Shared, is_mate_score};
use crate::eval::evaluate;
use crate::nnue::AccumulatorStack;
use crate::tt::{Bound, Table, TtEntry};
use bashni_rules::{DrawRules, Move, Position};
use std::sync::atomic::Ordering;

/// A root move with what the last iteration learned of it.
#[derive(Clone, Debug)]
pub struct RootMove {
    pub mv: Move,
    pub score: i32,
    /// The bound of `score` when its search failed outside the window.
    pub bound: Bound,
    pub pv: Vec<Move>,
    pub seldepth: usize,
    /// The iteration whose completed search last set `score` (0: none
    /// yet), so that a cut-short iteration can tell fresh scores from
    /// those an earlier iteration left behind.
    pub depth: i32,
}

impl RootMove {
    /// A root move not searched yet: it sorts behind every searched one.
    pub fn new(mv: Move) -> RootMove {
        RootMove {
            mv,
            score: -MATE,
            bound: Bound::Exact,
            pv: vec![mv],
            seldepth: 0,
            depth: 0,
        }
    }
}

pub struct Worker<'a, T: Table> {
    pub pos: Position,
    shared: &'a Shared<'a, T>,
    rules: DrawRules,
    /// Keys of the game and of the search path; the last is the current one.
    keys: Vec<u64>,
    pub nodes: u64,
    pub seldepth: usize,
    pub aborted: bool,
    main_thread: bool,
    move_lists: Vec<Vec<Move>>,
    order_scores: Vec<Vec<i32>>,
    pv: Vec<Vec<Move>>,
    killers: Vec<[u32; 2]>,
    /// History of quiet moves by (from, to) for the side that played them.
    history: Box<[[[i32; 64]; 64]; 2]>,
    /// The learned evaluation's accumulators along the path, if it is on.
    nnue: Option<AccumulatorStack>,
}

impl<'a, T: Table> Worker<'a, T> {
    pub fn new(
        pos: Position,
        game_keys: &[u64],
        shared: &'a Shared<'a, T>,
        rules: DrawRules,
        main_thread: bool,
    ) -> Self {
        let mut keys = game_keys.to_vec();
        if keys.last() != Some(&pos.key()) {
            keys.push(pos.key());
        }
        let nnue = (shared.network.clone()).map(|net| AccumulatorStack::new(net, &pos));
        Worker {
            pos,
            shared,
            rules,
            keys,
            nodes: 0,
            seldepth: 0,
            aborted: false,
            main_thread,
            move_lists: (0..=MAX_PLY).map(|_| Vec::with_capacity(64)).collect(),
            order_scores: (0..=MAX_PLY).map(|_| Vec::with_capacity(64)).collect(),
            pv: (0..MAX_PLY + 2)
                .map(|_| Vec::with_capacity(MAX_PLY))
                .collect(),
            killers: vec![[0; 2]; MAX_PLY + 2],
            history: Box::new([[[0; 64]; 64]; 2]),
            nnue,
        }
    }

    /// Count a node; now and then publish the count and check for a stop.
    #[inline]
    fn visit(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes & 255 == 0 {
            self.shared.publish_nodes(self.main_thread, self.nodes);
            if self.main_thread {
                self.shared.check_limits();
            }
        }
        if self.shared.halt.load(Ordering::Relaxed)
            || self.shared.signals.stop.load(Ordering::Relaxed)
        {
            self.aborted = true;
        }
        self.aborted
    }

    fn make(&mut self, mv: &Move) -> bashni_rules::Undo {
        let undo = match &mut self.nnue {
            Some(stack) => stack.make(&mut self.pos, mv),
            None => self.pos.make(mv),
        };
        self.keys.push(self.pos.key());
        undo
    }

    fn unmake(&mut self, mv: &Move, undo: bashni_rules::Undo) {
        self.keys.pop();
        if let Some(stack) = &mut self.nnue {
            stack.pop();
        }
        self.pos.unmake(mv, undo);
    }

    /// The static score from the side to move's view: the network's when
    /// one is on, else the linear evaluation's.
    #[inline]
    fn evaluate(&mut self) -> i32 {
        match &mut self.nnue {
            Some(stack) => stack.evaluate(&self.pos),
            None => evaluate(&self.pos),
        }
    }

    /// A draw by the variant's rules or by repetition of a position since
    /// the last irreversible move.
    fn is_draw(&self) -> bool {
        if self.rules.is_draw(&self.pos) {
            return true;
        }
        let key = self.pos.key();
        let window = (self.pos.no_progress_plies() as usize).min(self.keys.len() - 1);
        let n = self.keys.len();
        (2..=window)
            .step_by(2)
            .any(|back| self.keys[n - 1 - back] == key)
    }

    /// The score of a position a draw rule ends: a side with no legal move
    /// has lost all the same, since that rule comes first (docs/rules.md).
    #[cold]
    fn draw_or_loss(&self, ply: usize) -> i32 {
        if self.pos.count_moves() == 0 {
            -MATE + ply as i32
        } else {
            0
        }
    }

    /// Search every root move in `roots[first..]` with the window
    /// `(alpha, beta)`; sorts them best first and returns the best score.
    pub fn search_root(
        &mut self,
        roots: &mut [RootMove],
        first: usize,
        depth: i32,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        self.seldepth = 0;
        let mut best = -MATE;
        for i in first..roots.len() {
            let mv = roots[i].mv;
            let undo = self.make(&mv);
            let forced = roots.len() == 1;
            let child_depth = if forced { depth } else { depth - 1 };
            let mut score;
            if i == first {
                score = -self.negamax(child_depth, -beta, -alpha, 1);
            } else {
                score = -self.negamax(child_depth, -alpha - 1, -alpha, 1);
                if score > alpha && score < beta && !self.aborted {
                    score = -self.negamax(child_depth, -beta, -alpha, 1);
                }
            }
            self.unmake(&mv, undo);
            if self.aborted {
                return best;
            }
            let root = &mut roots[i];
            if i == first || score > alpha {
                root.score = score;
                root.depth = depth;
                root.seldepth = self.seldepth;
                root.bound = if score >= beta {
                    Bound::Lower
                } else if score <= alpha {
                    Bound::Upper
                } else {
                    Bound::Exact
                };
                root.pv.clear();
                root.pv.push(mv);
                root.pv.extend_from_slice(&self.pv[1]);
            } else {
                // Only known to be no better than alpha: keep it behind.
                root.score = -MATE;
            }
            if score > best {
                best = score;
            }
            if score > alpha {
                alpha = score;
                if score >= beta {
                    break;
                }
            }
        }
        // Stable sort keeps the previous order among equals.
        roots[first..].sort_by_key(|r| std::cmp::Reverse(r.score));
        best
    }

    fn negamax(&mut self, mut depth: i32, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv[ply].clear();
        if self.visit() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if self.is_draw() {
            return self.draw_or_loss(ply);
        }
        if ply >= MAX_PLY {
            return self.evaluate();
        }
        // Mate distance pruning: no line from here beats a mate already found.
        let alpha_floor = alpha.max(-MATE + ply as i32);
        let beta_ceiling = beta.min(MATE - ply as i32 - 1);
        if alpha_floor >= beta_ceiling {
            return alpha_floor;
        }
        if depth <= 0 {
            return self.quiescence(alpha, beta, ply);
        }
        let pv_node = beta - alpha > 1;
        let key = self.pos.key();
        let tt_entry = self.shared.tt.probe(key);
        let tt_move = tt_entry.map_or(0, |entry| entry.mv);
        if let Some(score) = tt_entry.and_then(|e| tt_cutoff(&e, depth, alpha, beta, ply))
            && !pv_node
        {
            return score;
        }

        let mut moves = std::mem::take(&mut self.move_lists[ply]);
        self.pos.generate_moves(&mut moves);
        if moves.is_empty() {
            self.move_lists[ply] = moves;
            return -MATE + ply as i32;
        }
        // A forced move costs nothing to look past.
        if moves.len() == 1 && ply < MAX_PLY / 2 {
            depth += 1;
        }
        let mut scores = std::mem::take(&mut self.order_scores[ply]);
        self.score_moves(&moves, &mut scores, tt_move, ply);

        let original_alpha = alpha;
        let mut best_score = -MATE;
        let mut best_move = 0u32;
        let side = self.pos.side_to_move().index();
        for index in 0..moves.len() {
            let mv = pick_next(&mut moves, &mut scores, index);
            let quiet = !mv.is_capture() && !mv.promotes();
            let undo = self.make(&mv);
            let score = self.search_child(index, quiet, depth, alpha, beta, ply);
            self.unmake(&mv, undo);
            if self.aborted {
                break;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = mv.tt_code();
                    alpha = score;
                    self.update_pv(ply, mv);
                    if score >= beta {
                        if quiet {
                            self.reward_quiet(&mv, side, depth, ply);
                        }
                        break;
                    }
                }
            }
        }
        self.move_lists[ply] = moves;
        self.order_scores[ply] = scores;
        if self.aborted {
            return 0;
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else if alpha > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.shared.tt.store(
            key,
            TtEntry {
                mv: best_move,
                score: score_to_tt(best_score, ply),
                depth,
                bound,
            },
        );
        best_score
    }

    /// The score of the move just made, the `index`-th at `ply`: the first
    /// with the full window, later ones with a null window (reduced when
    /// quiet and late) and searched again only if they beat `alpha`.
    fn search_child(
        &mut self,
        index: usize,
        quiet: bool,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        if index == 0 {
            return -self.negamax(depth - 1, -beta, -alpha, ply + 1);
        }
        // A quiet move that offers the opponent a capture is not reduced
        // (whether that capture is forced on the opponent or not).
        let reduction =
            if quiet && depth >= LMR_MIN_DEPTH && index >= LMR_MIN_MOVES && !self.pos.has_capture()
            {
                1 + (index >= 3 * LMR_MIN_MOVES) as i32
            } else {
                0
            };
        let mut score = -self.negamax(depth - 1 - reduction, -alpha - 1, -alpha, ply + 1);
        if reduction > 0 && score > alpha && !self.aborted {
            score = -self.negamax(depth - 1, -alpha - 1, -alpha, ply + 1);
        }
        if score > alpha && score < beta && !self.aborted {
            score = -self.negamax(depth - 1, -beta, -alpha, ply + 1);
        }
        score
    }

    /// Captures are compulsory by default, so a position with a capture has
    /// no "stand pat": every capture is searched until the position is
    /// quiet. With `ForcedCapture` off the side to move may ignore its
    /// captures and make a plain move, so it may stand pat on the static
    /// evaluation, and only the captures are searched beyond it.
    fn quiescence(&mut self, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv[ply].clear();
        if self.visit() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if self.rules.is_draw(&self.pos) {
            return self.draw_or_loss(ply);
        }
        if ply >= MAX_PLY {
            return self.evaluate();
        }
        if !self.pos.has_capture() {
            // Quiet, unless the side to move cannot move at all: then it has lost.
            let stuck = self.pos.count_moves() == 0;
            return if stuck {
                -MATE + ply as i32
            } else {
                self.evaluate()
            };
        }
        let mut moves = std::mem::take(&mut self.move_lists[ply]);
        let mut best = -MATE;
        if self.pos.forced_capture() {
            self.pos.generate_moves(&mut moves);
        } else {
            best = self.stand_pat(&mut moves, beta);
            if best >= beta {
                self.move_lists[ply] = moves;
                return best;
            }
            alpha = alpha.max(best);
        }
        // Longer chains first: they usually decide the exchange.
        moves.sort_unstable_by_key(|m| std::cmp::Reverse(m.capture_count()));
        for mv in moves.iter() {
            let undo = self.make(mv);
            let score = -self.quiescence(-beta, -alpha, ply + 1);
            self.unmake(mv, undo);
            if self.aborted {
                break;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, *mv);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        self.move_lists[ply] = moves;
        best
    }

    /// Quiescence with captures optional, in a position with a capture:
    /// the side can move, and a plain move (or none of the captures) is
    /// taken to be at least as good as the static evaluation, as in chess.
    /// Returns that score; below `beta`, `moves` gets the captures to try.
    /// Out of line, so the default rules' quiescence stays as it was.
    #[cold]
    #[inline(never)]
    fn stand_pat(&mut self, moves: &mut Vec<Move>, beta: i32) -> i32 {
        // The network's score when one is on, as at every other leaf.
        let score = self.evaluate();
        moves.clear();
        if score < beta {
            self.pos.generate_moves(moves);
            moves.retain(Move::is_capture);
        }
        score
    }

    /// `mv` became the best move at `ply`: the line from here is `mv`
    /// followed by the line found below it.
    fn update_pv(&mut self, ply: usize, mv: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply].clear();
        head[ply].push(mv);
        head[ply].extend_from_slice(&tail[0]);
    }

    fn score_moves(&self, moves: &[Move], scores: &mut Vec<i32>, tt_move: u32, ply: usize) {
        let side = self.pos.side_to_move().index();
        scores.clear();
        scores.extend(moves.iter().map(|mv| {
            let code = mv.tt_code();
            if code == tt_move {
                TT_MOVE
            } else if mv.is_capture() || mv.promotes() {
                CAPTURE + 16 * mv.capture_count() as i32 + mv.promotes() as i32
            } else if self.killers[ply][0] == code {
                KILLER + 1
            } else if self.killers[ply][1] == code {
                KILLER
            } else {
                self.history[side][mv.from().index()][mv.to().index()]
            }
        }));
    }

    fn reward_quiet(&mut self, mv: &Move, side: usize, depth: i32, ply: usize) {
        let code = mv.tt_code();
        if self.killers[ply][0] != code {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = code;
        }
        let entry = &mut self.history[side][mv.from().index()][mv.to().index()];
        *entry += depth * depth;
        if *entry > KILLER / 2 {
            for table in self.history.iter_mut() {
                for row in table.iter_mut() {
                    for h in row.iter_mut() {
                        *h /= 2;
                    }
                }
            }
        }
    }
}

/// Move the best-scored remaining move to `index` and return it.
#[inline]
fn pick_next(moves: &mut [Move], scores: &mut [i32], index: usize) -> Move {
    let mut best = index;
    for i in index + 1..moves.len() {
        if scores[i] > scores[best] {
            best = i;
        }
    }
    moves.swap(index, best);
    scores.swap(index, best);
    moves[index]
}

/// The table's score for this node when its entry is deep enough and its
/// bound settles the window `(alpha, beta)`.
fn tt_cutoff(entry: &TtEntry, depth: i32, alpha: i32, beta: i32, ply: usize) -> Option<i32> {
    let score = score_from_tt(entry.score, ply);
    let cut = entry.depth >= depth
        && match entry.bound {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
        };
    cut.then_some(score)
}

/// Mate scores are stored relative to the node, not the root.
fn score_to_tt(score: i32, ply: usize) -> i32 {
    if is_mate_score(score) {
        score + score.signum() * ply as i32
    } else {
        score
    }
}

fn score_from_tt(score: i32, ply: usize) -> i32 {
    if is_mate_score(score) {
        score - score.signum() * ply as i32
    } else {
        score
    }
}
