//! Stand-in transposition table until the lock-free one lands.

use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtEntry {
    pub mv: u32,
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

pub trait Table: Send + Sync + 'static {
    fn with_megabytes(mb: usize) -> Self
    where
        Self: Sized;
    fn probe(&self, key: u64) -> Option<TtEntry>;
    fn store(&self, key: u64, entry: TtEntry);
    fn new_search(&self);
    fn clear(&self);
    fn hashfull(&self) -> u32;
}

pub struct LockFreeTable {
    slots: Vec<[AtomicU64; 2]>,
}

fn pack(e: TtEntry) -> u64 {
    let bound = match e.bound {
        Bound::Exact => 0u64,
        Bound::Lower => 1,
        Bound::Upper => 2,
    };
    e.mv as u64
        | ((e.score as i16 as u16 as u64) << 32)
        | ((e.depth.clamp(-128, 127) as i8 as u8 as u64) << 48)
        | bound << 56
}

fn unpack(d: u64) -> TtEntry {
    TtEntry {
        mv: d as u32,
        score: (d >> 32) as u16 as i16 as i32,
        eval: 0,
        depth: (d >> 48) as u8 as i8 as i32,
        bound: match (d >> 56) & 3 {
            0 => Bound::Exact,
            1 => Bound::Lower,
            _ => Bound::Upper,
        },
    }
}

impl Table for LockFreeTable {
    fn with_megabytes(mb: usize) -> Self {
        let n = (mb.max(1) << 20) / 16;
        LockFreeTable {
            slots: (0..n)
                .map(|_| [AtomicU64::new(0), AtomicU64::new(0)])
                .collect(),
        }
    }
    fn probe(&self, key: u64) -> Option<TtEntry> {
        let s = &self.slots[(key % self.slots.len() as u64) as usize];
        let (k, d) = (s[0].load(Ordering::Relaxed), s[1].load(Ordering::Relaxed));
        (d != 0 && k ^ d == key).then(|| unpack(d))
    }
    fn store(&self, key: u64, entry: TtEntry) {
        let s = &self.slots[(key % self.slots.len() as u64) as usize];
        let d = pack(entry);
        s[0].store(key ^ d, Ordering::Relaxed);
        s[1].store(d, Ordering::Relaxed);
    }
    fn new_search(&self) {}
    fn clear(&self) {
        for s in &self.slots {
            s[0].store(0, Ordering::Relaxed);
            s[1].store(0, Ordering::Relaxed);
        }
    }
    fn hashfull(&self) -> u32 {
        let n = self.slots.len().min(1000);
        self.slots[..n]
            .iter()
            .filter(|s| s[1].load(Ordering::Relaxed) != 0)
            .count() as u32
            * 1000
            / n as u32
    }
}
