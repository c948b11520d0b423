//! The accumulators along the search path: `make` pushes the child's,
//! updated from its parent's, and `unmake` pops it, so taking a move
//! back costs nothing.

use super::accumulator::{Accumulator, MoveDelta};
use super::network::Network;
use bashni_rules::{Move, Position};
use std::sync::Arc;

/// One search thread's accumulators, the root's at the bottom.
#[derive(Clone, Debug)]
pub struct AccumulatorStack {
    net: Arc<Network>,
    stack: Vec<Accumulator>,
}

impl AccumulatorStack {
    /// A stack holding `pos`'s accumulator, built from scratch.
    pub fn new(net: Arc<Network>, pos: &Position) -> AccumulatorStack {
        let root = Accumulator::from_position(&net, pos);
        let mut stack = Vec::with_capacity(256);
        stack.push(root);
        AccumulatorStack { net, stack }
    }

    /// The network the stack sums for.
    pub fn network(&self) -> &Network {
        &self.net
    }

    /// Make `mv` on `pos` and push the child's accumulator; returns what
    /// `Position::make` returns.
    #[inline]
    pub fn make(&mut self, pos: &mut Position, mv: &Move) -> bashni_rules::Undo {
        let mut delta = MoveDelta::before(pos, mv);
        let undo = pos.make(mv);
        delta.after(pos);
        let mut child = self.current().clone();
        child.apply(&self.net, pos.variant(), &delta);
        self.stack.push(child);
        undo
    }

    /// Drop the accumulator of the move being taken back.
    #[inline]
    pub fn pop(&mut self) {
        debug_assert!(self.stack.len() > 1, "popped the root's accumulator");
        self.stack.pop();
    }

    /// The accumulator of the current position.
    #[inline]
    pub fn current(&self) -> &Accumulator {
        // The root's is never popped.
        &self.stack[self.stack.len() - 1]
    }

    /// The current position's score from the side to move's view.
    #[inline]
    pub fn evaluate(&self, pos: &Position) -> i32 {
        self.net.evaluate(self.current(), pos.side_to_move())
    }
}
