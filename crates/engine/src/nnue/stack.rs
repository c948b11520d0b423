//! The accumulators along the search path. `make` only records the
//! columns the move changes; the sums are brought up to date when a
//! position is evaluated, from the nearest ancestor whose sums are
//! known. Most nodes of a search are never evaluated (interior nodes,
//! and quiescence nodes with a capture to make), so most updates are
//! never done. `unmake` pops, so taking a move back costs nothing.

use super::accumulator::{Accumulator, MoveDelta};
use super::network::Network;
use bashni_rules::{Move, Position, Variant};
use std::sync::Arc;

/// One ply: the move's column changes and, once computed, the sums.
#[derive(Clone, Debug)]
struct Entry {
    /// The move into this entry's position (`MoveDelta::NONE` at the root).
    delta: MoveDelta,
    acc: Accumulator,
    computed: bool,
}

/// Entries of the score cache (a power of two).
const CACHE_SIZE: usize = 1 << 16;
/// The key bits an entry keeps; the rest index it, and the low 16 bits of
/// the entry hold the score (|score| <= MAX_EVAL < 2^15).
const KEY_BITS: u64 = !0xFFFF;

/// One search thread's accumulators, the root's at the bottom.
#[derive(Clone, Debug)]
pub struct AccumulatorStack {
    net: Arc<Network>,
    variant: Variant,
    /// Scores of positions evaluated before, by position key: iterative
    /// deepening meets the same leaves again and again, and a score found
    /// here needs neither the accumulator's update nor the layers. An
    /// entry is the key's high 48 bits and the score's 16 (0 is empty:
    /// a key with zero high bits is simply never found).
    cache: Box<[u64]>,
    /// Entries `0..len` are the path; the rest are kept for reuse.
    entries: Vec<Entry>,
    len: usize,
}

impl AccumulatorStack {
    /// A stack holding `pos`'s accumulator, built from scratch.
    pub fn new(net: Arc<Network>, pos: &Position) -> AccumulatorStack {
        let root = Entry {
            delta: MoveDelta::NONE,
            acc: Accumulator::from_position(&net, pos),
            computed: true,
        };
        AccumulatorStack {
            net,
            variant: pos.variant(),
            entries: vec![root],
            len: 1,
            cache: vec![0; CACHE_SIZE].into_boxed_slice(),
        }
    }

    /// The network the stack sums for.
    pub fn network(&self) -> &Network {
        &self.net
    }

    /// Make `mv` on `pos` and record what it changes; returns what
    /// `Position::make` returns.
    #[inline]
    pub fn make(&mut self, pos: &mut Position, mv: &Move) -> bashni_rules::Undo {
        if self.len == self.entries.len() {
            let copy = self.entries[self.len - 1].clone();
            self.entries.push(copy);
        }
        let entry = &mut self.entries[self.len];
        entry.delta.record_before(pos, mv);
        let undo = pos.make(mv);
        entry.delta.after(pos);
        entry.computed = false;
        self.prefetch_score(pos.key());
        self.len += 1;
        undo
    }

    /// Start loading the score cache's entry for `key`: found or not, the
    /// entry is read if the position is evaluated, and a cold read cost as
    /// much as the lookup saved. Moves, draw and capture checks come
    /// between, and hide the load.
    #[inline]
    fn prefetch_score(&self, key: u64) {
        let entry: *const u64 = &self.cache[Self::slot(key)];
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch only hints; the address is a valid entry.
        unsafe {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            _mm_prefetch::<_MM_HINT_T0>(entry.cast());
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = entry;
    }

    /// The score cache's entry for `key`.
    #[inline]
    fn slot(key: u64) -> usize {
        (key as usize) & (CACHE_SIZE - 1)
    }

    /// Drop the entry of the move being taken back.
    #[inline]
    pub fn pop(&mut self) {
        debug_assert!(self.len > 1, "popped the root's accumulator");
        self.len -= 1;
    }

    /// The accumulator of the current position, brought up to date.
    #[inline]
    pub fn current(&mut self) -> &Accumulator {
        let top = self.len - 1;
        if !self.entries[top].computed {
            self.catch_up(top);
        }
        &self.entries[top].acc
    }

    /// Compute entries from the nearest computed ancestor up to `top`.
    fn catch_up(&mut self, top: usize) {
        // The root is always computed, so the search stops there at worst.
        let known = (0..top)
            .rev()
            .find(|&i| self.entries[i].computed)
            .unwrap_or(0);
        for i in known + 1..=top {
            let (done, rest) = self.entries.split_at_mut(i);
            let (parent, entry) = (&done[i - 1], &mut rest[0]);
            entry
                .acc
                .apply_from(&parent.acc, &self.net, self.variant, &entry.delta);
            entry.computed = true;
        }
    }

    /// The current position's score from the side to move's view.
    #[inline]
    pub fn evaluate(&mut self, pos: &Position) -> i32 {
        let key = pos.key();
        let slot = Self::slot(key);
        let entry = self.cache[slot];
        if entry != 0 && entry & KEY_BITS == key & KEY_BITS {
            return entry as u16 as i16 as i32;
        }
        let top = self.len - 1;
        if !self.entries[top].computed {
            self.catch_up(top);
        }
        let score = self
            .net
            .evaluate(&self.entries[top].acc, pos.side_to_move());
        debug_assert!(score.abs() <= i16::MAX as i32);
        self.cache[slot] = (key & KEY_BITS) | score as i16 as u16 as u64;
        score
    }
}
