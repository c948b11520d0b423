//! The comparison table: a `DashMap` with the lock-free table's entry
//! budget and replacement rule (`bench --tt dashmap`).

use super::{GENERATIONS, Slot, Table, TtEntry, keeps_old, relative_age};
use dashmap::DashMap;
use dashmap::mapref::entry::Entry;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering::Relaxed};

/// What the map table keeps per position: the entry and its search.
#[derive(Clone, Copy)]
struct Stamped {
    entry: TtEntry,
    generation: u8,
}

/// The comparison table: a `DashMap` holding at most as many entries as
/// the lock-free table of the same size. Its policy is deliberately simple:
/// a store for a position already present follows the same rule as the
/// lock-free table; a new position is refused while the map is full; when
/// a search starts on a full map, entries of older searches are dropped in
/// one pass. Each entry costs about 40 bytes against the lock-free 16, so
/// the same entry budget uses roughly 2.5 times the memory.
pub struct DashMapTable {
    map: DashMap<u64, Stamped>,
    capacity: usize,
    len: AtomicUsize,
    generation: AtomicU8,
}

impl DashMapTable {
    /// How many entries it may hold.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// How many entries it holds.
    pub fn len(&self) -> usize {
        self.len.load(Relaxed)
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Entries sampled by the map table's `hashfull`.
const HASHFULL_SAMPLE: usize = 1000;

impl Table for DashMapTable {
    /// The map grows as entries arrive, so making it cannot fail.
    fn try_with_megabytes(mb: usize) -> Option<Self> {
        Some(DashMapTable {
            map: DashMap::new(),
            capacity: (mb.max(1) << 20) / std::mem::size_of::<Slot>(),
            len: AtomicUsize::new(0),
            generation: AtomicU8::new(0),
        })
    }

    fn probe(&self, key: u64) -> Option<TtEntry> {
        self.map.get(&key).map(|s| s.entry)
    }

    fn store(&self, key: u64, entry: TtEntry) {
        let generation = self.generation.load(Relaxed);
        match self.map.entry(key) {
            Entry::Occupied(mut slot) => {
                let old = *slot.get();
                if !keeps_old(&old.entry, relative_age(generation, old.generation), &entry) {
                    let mv = if entry.mv == 0 {
                        old.entry.mv
                    } else {
                        entry.mv
                    };
                    slot.insert(Stamped {
                        entry: TtEntry { mv, ..entry },
                        generation,
                    });
                }
            }
            Entry::Vacant(slot) => {
                if self.len.fetch_add(1, Relaxed) < self.capacity {
                    slot.insert(Stamped { entry, generation });
                } else {
                    self.len.fetch_sub(1, Relaxed);
                }
            }
        }
    }

    fn new_search(&self) {
        let generation = (self.generation.load(Relaxed) + 1) % GENERATIONS;
        self.generation.store(generation, Relaxed);
        if self.len() >= self.capacity {
            self.map.retain(|_, s| s.generation == generation);
            self.len.store(self.map.len(), Relaxed);
        }
    }

    fn clear(&self) {
        self.map.clear();
        self.map.shrink_to_fit();
        self.len.store(0, Relaxed);
        self.generation.store(0, Relaxed);
    }

    /// Entries of this search among a sample, scaled by how full the map is.
    fn hashfull(&self) -> u32 {
        let generation = self.generation.load(Relaxed);
        let (mut sampled, mut current) = (0usize, 0usize);
        for s in self.map.iter().take(HASHFULL_SAMPLE) {
            sampled += 1;
            current += (s.generation == generation) as usize;
        }
        if sampled == 0 {
            return 0;
        }
        let fill = self.len().min(self.capacity) as u64 * 1000 / self.capacity as u64;
        (fill * current as u64 / sampled as u64) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tt::Bound;
    use crate::tt::tests::entry;

    #[test]
    fn clear_forgets_everything() {
        let table = DashMapTable::with_megabytes(1);
        table.store(3, entry(1, 2, 4, Bound::Exact));
        table.clear();
        assert_eq!(table.probe(3), None);
        assert!(table.is_empty());
    }

    #[test]
    fn holds_as_many_entries_as_the_lock_free_table() {
        for mb in [1, 3, 64] {
            let lock_free = crate::tt::LockFreeTable::with_megabytes(mb);
            assert_eq!(
                DashMapTable::with_megabytes(mb).capacity(),
                lock_free.capacity()
            );
        }
    }

    #[test]
    fn full_map_table_refuses_new_positions_until_a_search_starts() {
        let table = DashMapTable::with_megabytes(1);
        let capacity = table.capacity() as u64;
        for key in 0..capacity {
            table.store(key, entry(1, 0, 1, Bound::Exact));
        }
        table.store(capacity, entry(1, 0, 1, Bound::Exact));
        assert_eq!(table.probe(capacity), None);
        table.new_search();
        assert!(table.is_empty(), "a full map drops older searches");
        table.store(capacity, entry(1, 0, 1, Bound::Exact));
        assert!(table.probe(capacity).is_some());
    }
}
