//! Transposition tables shared by all search threads.
//!
//! [`LockFreeTable`] is the engine's table: a fixed array of 64-byte buckets
//! of four 16-byte slots, written and read with plain relaxed atomics and no
//! lock. Each slot is two words, a check word and a data word, in the spirit
//! of Hyatt's "lockless hashing": the check word holds the key XOR a mix of
//! the data word, so a slot torn by two threads writing at once (check word
//! from one write, data word from another) fails the key test and reads as a
//! miss instead of returning mixed data.
//!
//! `DashMapTable` (feature `dashmap-table`) is a plain concurrent hash map
//! with the same entry budget, kept to measure the lock-free table against
//! (docs/tt-and-eval.md).

#[cfg(feature = "dashmap-table")]
mod map;
#[cfg(feature = "dashmap-table")]
pub use map::DashMapTable;

use bashni_rules::mix64 as mix;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};

/// What a stored score means relative to the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The score is exact.
    Exact,
    /// The true score is at least this (a fail-high).
    Lower,
    /// The true score is at most this (a fail-low).
    Upper,
}

/// One search result. `score` is stored as i16 and `depth` as i8: values
/// outside those ranges come back saturated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtEntry {
    /// `Move::tt_code`, 0 = no move.
    pub mv: u32,
    /// Score from the stored search.
    pub score: i32,
    /// Remaining depth; negative in quiescence search.
    pub depth: i32,
    /// What the score means.
    pub bound: Bound,
}

/// A table shared by all search threads.
pub trait Table: Send + Sync + 'static {
    /// A table of `mb` MiB, or `None` when the system will not give that
    /// much memory (a size the machine cannot hold must not abort).
    fn try_with_megabytes(mb: usize) -> Option<Self>
    where
        Self: Sized;
    /// A table of a size known to fit (tests, small fixed tables); panics
    /// when the memory cannot be had. User-chosen sizes go through
    /// `try_with_megabytes`.
    fn with_megabytes(mb: usize) -> Self
    where
        Self: Sized,
    {
        Self::try_with_megabytes(mb).unwrap_or_else(|| panic!("cannot allocate a {mb} MiB table"))
    }
    /// The entry stored for `key`, if any.
    fn probe(&self, key: u64) -> Option<TtEntry>;
    /// Store `entry` for `key`, under the table's replacement rule.
    fn store(&self, key: u64, entry: TtEntry);
    /// A new search starts: entries from older searches age and are replaced first.
    fn new_search(&self);
    /// Forget every entry.
    fn clear(&self);
    /// Permille of sampled slots used by the current search (UCI hashfull).
    fn hashfull(&self) -> u32;
}

/// Searches are counted modulo this (six bits of the slot's meta field).
const GENERATIONS: u8 = 64;

/// How many generations old an entry stamped `stamp` is.
#[inline]
fn relative_age(current: u8, stamp: u8) -> i32 {
    (current.wrapping_sub(stamp) % GENERATIONS) as i32
}

/// Stockfish's rule for a store that hits the same position: keep the old
/// entry when it comes from this search, is at least 4 plies deeper and the
/// new one is not exact; otherwise overwrite.
#[inline]
fn keeps_old(old: &TtEntry, old_age: i32, new: &TtEntry) -> bool {
    old_age == 0 && new.bound != Bound::Exact && new.depth + 4 <= old.depth
}

/// How much a slot is worth keeping when a new position needs room:
/// depth, less 8 plies for each search it is old (Stockfish's measure).
#[inline]
fn worth(depth: i32, age: i32) -> i32 {
    depth - 8 * age
}

// ---------------------------------------------------------------------------
// Slot encoding of the lock-free table.
//
// data word:  bits 0..32 move code, 32..48 score (i16), 48..64 spare
// check word: bits 16..64 = (key << 16 ^ mix(data)) bits 16..64
//             bits 0..8 depth (i8), 8..10 bound (0 = empty), 10..16 generation
//
// So a hit verifies the low 48 key bits, and the bucket index comes from
// the high 32, which adds the index bits to the check. Any change of the
// data word changes the check bits through the mixer.

const CHECK_MASK: u64 = !0xFFFF;

#[inline]
fn saturate_i16(v: i32) -> u64 {
    v.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16 as u64
}

#[inline]
fn encode(key: u64, entry: &TtEntry, generation: u8) -> (u64, u64) {
    let data = entry.mv as u64 | saturate_i16(entry.score) << 32;
    let depth = entry.depth.clamp(i8::MIN as i32, i8::MAX as i32) as i8 as u8 as u64;
    let bound = match entry.bound {
        Bound::Exact => 1,
        Bound::Lower => 2,
        Bound::Upper => 3,
    };
    let meta = depth | bound << 8 | (generation as u64) << 10;
    ((((key << 16) ^ mix(data)) & CHECK_MASK) | meta, data)
}

#[inline]
fn is_empty(check: u64) -> bool {
    (check >> 8) & 3 == 0
}

#[inline]
fn slot_depth(check: u64) -> i32 {
    check as u8 as i8 as i32
}

#[inline]
fn slot_generation(check: u64) -> u8 {
    (check >> 10) as u8 & (GENERATIONS - 1)
}

#[inline]
fn verifies(key: u64, check: u64, data: u64) -> bool {
    !is_empty(check) && (check ^ mix(data)) & CHECK_MASK == key << 16
}

#[inline]
fn decode(check: u64, data: u64) -> TtEntry {
    TtEntry {
        mv: data as u32,
        score: (data >> 32) as u16 as i16 as i32,
        depth: slot_depth(check),
        bound: match (check >> 8) & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            _ => Bound::Upper,
        },
    }
}

#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

impl Slot {
    #[inline]
    fn load(&self) -> (u64, u64) {
        (self.check.load(Relaxed), self.data.load(Relaxed))
    }

    #[inline]
    fn write(&self, (check, data): (u64, u64)) {
        self.check.store(check, Relaxed);
        self.data.store(data, Relaxed);
    }
}

const SLOTS_PER_BUCKET: usize = 4;

/// One cache line: a probe touches one line only.
#[repr(align(64))]
#[derive(Default)]
struct Bucket {
    slots: [Slot; SLOTS_PER_BUCKET],
}

const BUCKET_BYTES: usize = std::mem::size_of::<Bucket>();
const _: () = assert!(BUCKET_BYTES == 64 && std::mem::align_of::<Bucket>() == 64);
// A table of whole MiB is a whole number of buckets.
const _: () = assert!((1 << 20) % BUCKET_BYTES == 0);

/// Buckets sampled by `hashfull`: 250 buckets = 1000 slots, so the count is
/// the permille.
const HASHFULL_BUCKETS: usize = 1000 / SLOTS_PER_BUCKET;

/// Tables above this size are zeroed by all cores on `clear`.
const PARALLEL_CLEAR_BYTES: usize = 16 << 20;

/// The engine's table. Its size is exactly `mb` MiB of buckets (`mb` is
/// at least 1), plus a few words for the struct itself.
pub struct LockFreeTable {
    /// Anonymous memory: page-aligned and zero-filled by the OS. Held as
    /// `MmapRaw`, which hands out only raw pointers: every thread writes
    /// the buckets through a shared reference, so no `&[u8]` or `&mut [u8]`
    /// over the same bytes may ever exist (see `buckets`).
    memory: memmap2::MmapRaw,
    generation: AtomicU8,
}

impl LockFreeTable {
    /// Bytes held by the bucket array.
    pub fn size_in_bytes(&self) -> usize {
        self.buckets().len() * BUCKET_BYTES
    }

    /// Number of entries the table can hold.
    pub fn capacity(&self) -> usize {
        self.buckets().len() * SLOTS_PER_BUCKET
    }

    /// Any bucket count works: the high 32 key bits scaled by the count
    /// (a multiply-high) pick the bucket, so no power-of-two rounding.
    #[inline]
    fn bucket_index(&self, key: u64) -> usize {
        (((key >> 32) * self.buckets().len() as u64) >> 32) as usize
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        &self.buckets()[self.bucket_index(key)]
    }

    #[inline]
    fn generation(&self) -> u8 {
        self.generation.load(Relaxed)
    }
}

impl LockFreeTable {
    /// The bucket array laid over the mapped memory.
    #[inline]
    fn buckets(&self) -> &[Bucket] {
        // SAFETY:
        // - Aliasing: the pointer comes from `MmapRaw::as_mut_ptr`, which
        //   is derived from the mapping itself and not from any reference,
        //   and nothing else ever makes a reference to these bytes. A
        //   `Bucket` is made of atomics (`UnsafeCell`s), so any number of
        //   shared `&Bucket` may write through it at once: no reference
        //   asserts the bytes are frozen, and no data race is possible as
        //   every access is atomic.
        // - Alignment: `mmap` returns page-aligned memory (4 KiB or more),
        //   a multiple of `Bucket`'s 64-byte alignment; checked when the
        //   table is made.
        // - Length: `try_with_megabytes` maps a whole number of MiB, a
        //   multiple of `BUCKET_BYTES`, so the slice ends at the mapping's
        //   end; the mapping lives as long as `self`, hence the borrow.
        // - Validity: anonymous pages read as zero, and all-zero bytes are
        //   valid `AtomicU64`s (an empty slot), so every bucket is
        //   initialised from the start.
        unsafe {
            std::slice::from_raw_parts(
                self.memory.as_mut_ptr().cast::<Bucket>(),
                self.memory.len() / BUCKET_BYTES,
            )
        }
    }
}

impl Table for LockFreeTable {
    fn try_with_megabytes(mb: usize) -> Option<Self> {
        let memory = memmap2::MmapRaw::from(memmap2::MmapMut::map_anon(mb.max(1) << 20).ok()?);
        // `buckets` relies on this; mmap gives page-aligned memory.
        assert!(memory.as_ptr().cast::<Bucket>().is_aligned());
        // Random probes over a big table miss the TLB on 4 KiB pages; huge
        // pages, where the kernel offers them, cut that. Only a hint.
        #[cfg(target_os = "linux")]
        let _ = memory.advise(memmap2::Advice::HugePage);
        Some(LockFreeTable {
            memory,
            generation: AtomicU8::new(0),
        })
    }

    #[inline]
    fn probe(&self, key: u64) -> Option<TtEntry> {
        let generation = self.generation();
        for slot in &self.bucket(key).slots {
            let (check, data) = slot.load();
            if verifies(key, check, data) {
                if slot_generation(check) != generation {
                    // Used again by this search: refresh its age. A failed
                    // exchange means another thread rewrote the slot; fine.
                    let fresh = (check & !(0x3F << 10)) | (generation as u64) << 10;
                    let _ = slot.check.compare_exchange(check, fresh, Relaxed, Relaxed);
                }
                return Some(decode(check, data));
            }
        }
        None
    }

    #[inline]
    fn store(&self, key: u64, entry: TtEntry) {
        let generation = self.generation();
        let bucket = self.bucket(key);
        let mut victim = 0;
        let mut victim_worth = i32::MAX;
        for (i, slot) in bucket.slots.iter().enumerate() {
            let (check, data) = slot.load();
            if is_empty(check) {
                if victim_worth != i32::MIN {
                    victim = i;
                    victim_worth = i32::MIN;
                }
                continue;
            }
            let age = relative_age(generation, slot_generation(check));
            if verifies(key, check, data) {
                let old = decode(check, data);
                if keeps_old(&old, age, &entry) {
                    return;
                }
                // A store without a move keeps the move found before.
                let mv = if entry.mv == 0 { old.mv } else { entry.mv };
                slot.write(encode(key, &TtEntry { mv, ..entry }, generation));
                return;
            }
            let w = worth(slot_depth(check), age);
            if w < victim_worth {
                victim = i;
                victim_worth = w;
            }
        }
        bucket.slots[victim].write(encode(key, &entry, generation));
    }

    fn new_search(&self) {
        self.generation
            .store((self.generation() + 1) % GENERATIONS, Relaxed);
    }

    fn clear(&self) {
        let zero = |bucket: &Bucket| bucket.slots.iter().for_each(|s| s.write((0, 0)));
        if self.size_in_bytes() >= PARALLEL_CLEAR_BYTES {
            self.buckets().par_iter().for_each(zero);
        } else {
            self.buckets().iter().for_each(zero);
        }
        self.generation.store(0, Relaxed);
    }

    fn hashfull(&self) -> u32 {
        let generation = self.generation();
        let sampled = &self.buckets()[..HASHFULL_BUCKETS.min(self.buckets().len())];
        let used = sampled
            .iter()
            .flat_map(|b| &b.slots)
            .filter(|s| {
                let check = s.check.load(Relaxed);
                !is_empty(check) && slot_generation(check) == generation
            })
            .count();
        (used * 1000 / (sampled.len() * SLOTS_PER_BUCKET)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    use bashni_rules::SplitMix64;

    /// An entry from its fields (the map table's tests use it too).
    pub(super) fn entry(mv: u32, score: i32, depth: i32, bound: Bound) -> TtEntry {
        TtEntry {
            mv,
            score,
            depth,
            bound,
        }
    }

    fn round_trip<T: Table>() {
        let table = T::with_megabytes(1);
        let cases = [
            entry(0, 0, 0, Bound::Exact),
            entry(0x8000_0001, -32_000, 127, Bound::Lower),
            entry(u32::MAX, 32_767, -128, Bound::Upper),
            entry(0x8123_4567, -1, -3, Bound::Exact),
            entry(0x8765_4321, 9_999, 1, Bound::Upper),
        ];
        let mut rng = SplitMix64::new(1);
        let keys: Vec<u64> = cases.iter().map(|_| rng.next_u64()).collect();
        for (key, e) in keys.iter().zip(&cases) {
            assert_eq!(table.probe(*key), None);
            table.store(*key, *e);
        }
        for (key, e) in keys.iter().zip(&cases) {
            assert_eq!(table.probe(*key), Some(*e));
        }
    }

    #[test]
    fn every_field_round_trips() {
        round_trip::<LockFreeTable>();
        #[cfg(feature = "dashmap-table")]
        round_trip::<DashMapTable>();
    }

    #[test]
    fn out_of_range_values_saturate() {
        let table = LockFreeTable::with_megabytes(1);
        table.store(7, entry(1, 100_000, 500, Bound::Lower));
        assert_eq!(table.probe(7), Some(entry(1, 32_767, 127, Bound::Lower)));
        table.store(9, entry(1, 0, -500, Bound::Lower));
        assert_eq!(table.probe(9).unwrap().depth, -128);
    }

    /// Keys that all land in the bucket of `key`, none equal to it.
    fn bucket_mates(table: &LockFreeTable, key: u64, count: usize) -> Vec<u64> {
        let mut rng = SplitMix64::new(99);
        let target = table.bucket_index(key);
        let mut mates = Vec::new();
        while mates.len() < count {
            // Same high 32 bits = same bucket; random low bits = another position.
            let k = (key & !0xFFFF_FFFF) | (rng.next_u64() & 0xFFFF_FFFF);
            if k != key && table.bucket_index(k) == target {
                mates.push(k);
            }
        }
        mates
    }

    #[test]
    fn keys_sharing_a_bucket_do_not_alias() {
        let table = LockFreeTable::with_megabytes(1);
        let keys = bucket_mates(&table, 0x1234_5678, 4);
        for (i, &k) in keys.iter().enumerate() {
            table.store(k, entry(0x8000_0000 | i as u32, i as i32, 5, Bound::Exact));
        }
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(table.probe(k).unwrap().mv, 0x8000_0000 | i as u32);
        }
        // A fifth position of the same bucket was never stored.
        let stranger = bucket_mates(&table, keys[0], 8)
            .into_iter()
            .find(|k| !keys.contains(k))
            .unwrap();
        assert_eq!(table.probe(stranger), None);
    }

    #[test]
    fn replacement_keeps_deeper_entries_of_the_current_search() {
        let table = LockFreeTable::with_megabytes(1);
        let k = bucket_mates(&table, 42, 6);
        let stored = |key, depth| table.store(key, entry(1, 0, depth, Bound::Lower));
        // Within one search the shallowest entry makes room.
        for (key, depth) in [(k[0], 9), (k[1], 3), (k[2], 7), (k[3], 5)] {
            stored(key, depth);
        }
        stored(k[4], 1);
        assert_eq!(table.probe(k[1]), None, "depth 3 was the shallowest");
        for key in [k[0], k[2], k[3], k[4]] {
            assert!(table.probe(key).is_some());
        }

        // Entries of an older search go first, even when a little deeper.
        let table = LockFreeTable::with_megabytes(1);
        let stored = |key, depth| table.store(key, entry(1, 0, depth, Bound::Lower));
        stored(k[0], 6);
        stored(k[1], 5);
        table.new_search();
        stored(k[2], 6);
        stored(k[3], 5);
        stored(k[4], 4);
        stored(k[5], 4);
        assert_eq!(table.probe(k[0]), None);
        assert_eq!(table.probe(k[1]), None);
        for key in &k[2..] {
            assert!(table.probe(*key).is_some());
        }
    }

    fn same_position_rule<T: Table>() {
        let table = T::with_megabytes(1);
        let key = 0xDEAD_BEEF_0000_0001;
        table.store(key, entry(0x8000_0007, 50, 12, Bound::Lower));
        // Much shallower, not exact: the deep entry of this search stays.
        table.store(key, entry(0x8000_0009, 10, 2, Bound::Upper));
        assert_eq!(table.probe(key).unwrap().depth, 12);
        // Nearly as deep: overwritten, and a missing move keeps the old one.
        table.store(key, entry(0, 20, 9, Bound::Upper));
        assert_eq!(
            table.probe(key),
            Some(entry(0x8000_0007, 20, 9, Bound::Upper))
        );
        // Exact always wins.
        table.store(key, entry(0x8000_000B, 30, 1, Bound::Exact));
        assert_eq!(table.probe(key).unwrap().bound, Bound::Exact);
        // In a later search even a shallow bound replaces it.
        table.new_search();
        table.store(key, entry(0x8000_000D, 40, 0, Bound::Lower));
        assert_eq!(
            table.probe(key),
            Some(entry(0x8000_000D, 40, 0, Bound::Lower))
        );
    }

    #[test]
    fn same_position_follows_the_depth_and_age_rule() {
        same_position_rule::<LockFreeTable>();
        #[cfg(feature = "dashmap-table")]
        same_position_rule::<DashMapTable>();
    }

    fn hashfull_counts_this_search<T: Table>() {
        let table = T::with_megabytes(1);
        assert_eq!(table.hashfull(), 0);
        let mut rng = SplitMix64::new(5);
        let mut last = 0;
        for _ in 0..4 {
            for _ in 0..8_000 {
                table.store(rng.next_u64(), entry(1, 0, 1, Bound::Exact));
            }
            let now = table.hashfull();
            assert!(now > last, "hashfull {now} after {last}");
            last = now;
        }
        table.new_search();
        assert_eq!(table.hashfull(), 0, "older entries do not count");
        table.clear();
        assert_eq!(table.hashfull(), 0);
    }

    #[test]
    fn hashfull_grows_from_zero() {
        hashfull_counts_this_search::<LockFreeTable>();
        #[cfg(feature = "dashmap-table")]
        hashfull_counts_this_search::<DashMapTable>();
    }

    #[test]
    fn clear_forgets_everything() {
        let table = LockFreeTable::with_megabytes(1);
        table.store(3, entry(1, 2, 4, Bound::Exact));
        table.clear();
        assert_eq!(table.probe(3), None);
    }

    #[test]
    fn size_stays_within_the_megabytes_given() {
        for mb in [1, 3, 64] {
            let table = LockFreeTable::with_megabytes(mb);
            assert_eq!(table.size_in_bytes(), mb << 20);
            assert_eq!(table.capacity(), (mb << 20) / 16);
            assert_eq!(std::mem::size_of_val(table.buckets()), mb << 20);
        }
        assert!(std::mem::size_of::<LockFreeTable>() <= 64);
    }

    /// An entry whose every field is a function of the key and its depth,
    /// so a probe can tell whether it is one that was really stored.
    fn signed_entry(key: u64, depth: i32) -> TtEntry {
        let h = mix(key ^ depth as u64);
        entry(
            h as u32 | 1 << 31,
            (h >> 32) as i16 as i32,
            depth,
            [Bound::Exact, Bound::Lower, Bound::Upper][(h % 3) as usize],
        )
    }

    /// Depths the hammering threads store: a probe must return one of them.
    const STORED_DEPTHS: std::ops::Range<i32> = -10..90;

    /// A hit is sound when it is exactly an entry some thread stored with
    /// this key: every field agrees with `signed_entry`, for a depth that
    /// was really used. A slot torn between two writes, or the data of
    /// another key, fails this.
    #[track_caller]
    fn assert_stored(key: u64, found: TtEntry) {
        assert!(
            STORED_DEPTHS.contains(&found.depth) && found == signed_entry(key, found.depth),
            "torn or mixed entry for {key:#x}: {found:?}"
        );
    }

    /// `ops` random stores and probes over `keys`, with a new search now and
    /// then so ageing and refreshing race with the writers too. The hits.
    fn hammer<T: Table>(table: &T, keys: &[u64], seed: u64, ops: usize) -> usize {
        let mut rng = SplitMix64::new(seed);
        let mut hits = 0;
        for i in 0..ops {
            let key = keys[rng.next_u64() as usize % keys.len()];
            if i % 2 == 0 {
                let depth =
                    STORED_DEPTHS.start + (rng.next_u64() % STORED_DEPTHS.len() as u64) as i32;
                table.store(key, signed_entry(key, depth));
            } else if let Some(found) = table.probe(key) {
                assert_stored(key, found);
                hits += 1;
            }
            if i % (ops / 4) == 0 {
                table.new_search();
            }
        }
        hits
    }

    /// `threads` threads hammer `keys` at once; afterwards every key is
    /// probed once more. Returns the hits of the hammering.
    fn hammer_together<T: Table>(table: &T, keys: &[u64], threads: u64, ops: usize) -> usize {
        let hits = std::thread::scope(|s| {
            let workers: Vec<_> = (0..threads)
                .map(|t| s.spawn(move || hammer(table, keys, t, ops)))
                .collect();
            workers.into_iter().map(|w| w.join().unwrap()).sum()
        });
        for &key in keys {
            if let Some(found) = table.probe(key) {
                assert_stored(key, found);
            }
        }
        hits
    }

    fn crowded_entries_are_never_mixed<T: Table>() {
        let table = T::with_megabytes(1);
        // Sixteen positions crowded into two buckets, so writers collide on
        // slots all the time.
        let mut keys: HashSet<u64> = HashSet::new();
        let mut rng = SplitMix64::new(11);
        while keys.len() < 16 {
            keys.insert((rng.next_u64() % 2) << 63 | (rng.next_u64() & 0xFFFF_FFFF));
        }
        let keys: Vec<u64> = keys.into_iter().collect();
        let hits = hammer_together(&table, &keys, 4, 1_000_000);
        assert!(hits > 1000, "the probes found stored entries ({hits})");
    }

    #[test]
    fn concurrent_store_and_probe_never_mix_entries() {
        crowded_entries_are_never_mixed::<LockFreeTable>();
        #[cfg(feature = "dashmap-table")]
        crowded_entries_are_never_mixed::<DashMapTable>();
    }

    /// Many threads on random keys: 64 positions whose bucket halves are
    /// drawn from eight values, so their 32 slots are always full, stores
    /// keep replacing entries other threads are reading, and about half
    /// the probes hit (with more positions, hits and so tears are rare).
    #[test]
    fn many_threads_on_random_keys_get_back_exactly_what_was_stored() {
        let table = LockFreeTable::with_megabytes(1);
        let mut rng = SplitMix64::new(23);
        let buckets: Vec<u64> = (0..8).map(|_| rng.next_u64() & !0xFFFF_FFFF).collect();
        let mut random_key =
            || buckets[rng.next_u64() as usize % 8] | (rng.next_u64() & 0xFFFF_FFFF);
        let keys: HashSet<u64> = (0..64).map(|_| random_key()).collect();
        let strangers: Vec<u64> = (0..100_000)
            .map(|_| random_key())
            .filter(|k| !keys.contains(k))
            .collect();
        let keys: Vec<u64> = keys.into_iter().collect();
        let hits = hammer_together(&table, &keys, 8, 500_000);
        assert!(hits > 1000, "the probes found stored entries ({hits})");
        // Positions never stored, in the same full buckets, are never found.
        assert_eq!(
            strangers
                .iter()
                .filter(|&&k| table.probe(k).is_some())
                .count(),
            0
        );
    }
}
