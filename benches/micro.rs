//! Micro-benchmarks of the hot paths under the search, each on its own so
//! a speed change shows where it comes from: move generation, make/unmake,
//! perft (bulk-counted, as `bashni perft`), the evaluation (of one
//! position again and again, and of the positions of many games) and the
//! transposition tables (store and probe, one and two threads), and the
//! PDN reader on a paste as large as the play server takes.
//!
//! `cargo bench --bench micro` (figures in docs/benchmarks.md). Positions
//! of both variants: the start, a middle game with tall columns, a position
//! with kings and pending captures, and an ending.

use bashni_engine::eval::evaluate;
use bashni_engine::tt::{Bound, DashMapTable, LockFreeTable, Table, TtEntry};
use bashni_rules::{Position, RuleSet, SplitMix64, Variant, perft, random_game_positions};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;

/// (name, variant, position string, perft depth giving 10^3..10^5 leaves).
const POSITIONS: &[(&str, Variant, &str, u32)] = &[
    (
        "start",
        Variant::Bashni,
        "W:a1w,c1w,e1w,g1w,b2w,d2w,f2w,h2w,a3w,c3w,e3w,g3w,b6b,d6b,f6b,h6b,a7b,c7b,e7b,g7b,b8b,d8b,f8b,h8b 0 1",
        6,
    ),
    (
        "middle",
        Variant::Bashni,
        "W:b2w,d2w,a3w,e3w,g3www,b4wwwbbb,d4wb,f4wb,c5b,f6b,h6b,a7b,e7b,b8b,h8b 0 16",
        6,
    ),
    (
        "kings",
        Variant::Bashni,
        "W:a1W,e1wb,c3bbw,g3Bw,d4w,f4bW,b6Ww,h6bbbw,c7Bb,e7b,g7wWb 0 1",
        8,
    ),
    (
        "ending",
        Variant::Bashni,
        "B:c1Bbbbbwww,a3wbb,f4wwbb,a5bw,f6WWwwwbb 1 36",
        6,
    ),
    (
        "start",
        Variant::Lasca,
        "W:a1w,c1w,e1w,g1w,b2w,d2w,f2w,a3w,c3w,e3w,g3w,a5b,c5b,e5b,g5b,b6b,d6b,f6b,a7b,c7b,e7b,g7b 0 1",
        11,
    ),
    (
        "middle",
        Variant::Lasca,
        "B:a1w,e1Bbww,g1w,b2ww,a3wb,c3w,e3w,b4wb,d4wb,g5b,b6b,f6b,a7b,c7b,g7b 0 11",
        7,
    ),
    (
        "kings",
        Variant::Lasca,
        "W:a1W,c3wb,e3bbw,g3w,b4Bw,d4w,f4bW,c5Ww,g5b,d6bbw,e7B 0 1",
        9,
    ),
    (
        "ending",
        Variant::Lasca,
        "W:b4BbBbbBB,f4W,a5Wwwwww,c5WW,b6Wbb,e7WbB 10 75",
        6,
    ),
];

fn positions() -> impl Iterator<Item = (String, Position, u32)> {
    POSITIONS.iter().map(|&(name, variant, fen, depth)| {
        let pos = Position::from_fen(&RuleSet::new(variant), fen)
            .unwrap_or_else(|e| panic!("bench position {fen:?}: {e}"));
        (format!("{variant}/{name}"), pos, depth)
    })
}

/// All legal moves into a reused buffer, as the search does.
fn move_generation(c: &mut Criterion) {
    let mut group = c.benchmark_group("movegen");
    let mut moves = Vec::with_capacity(64);
    for (name, pos, _) in positions() {
        group.bench_function(name, |b| {
            b.iter(|| {
                black_box(&pos).generate_moves(&mut moves);
                moves.len()
            })
        });
    }
    group.finish();
}

/// Every legal move made and unmade once; the time per move.
fn make_unmake(c: &mut Criterion) {
    let mut group = c.benchmark_group("make_unmake");
    for (name, mut pos, _) in positions() {
        let moves = pos.legal_moves();
        group.throughput(Throughput::Elements(moves.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                for mv in &moves {
                    let undo = pos.make(black_box(mv));
                    pos.unmake(mv, undo);
                }
                pos.key()
            })
        });
    }
    group.finish();
}

/// Perft to a small depth; throughput in leaves.
fn perft_small(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    for (name, mut pos, depth) in positions() {
        let leaves = perft(&mut pos, depth);
        group.throughput(Throughput::Elements(leaves));
        group.bench_function(BenchmarkId::new(name, depth), |b| {
            b.iter(|| perft(black_box(&mut pos), depth))
        });
    }
    group.finish();
}

/// One position evaluated over and over: it stays in L1, as the position
/// a search has just made does.
fn evaluation(c: &mut Criterion) {
    let mut group = c.benchmark_group("eval");
    for (name, pos, _) in positions() {
        group.bench_function(name, |b| b.iter(|| evaluate(black_box(&pos))));
    }
    group.finish();
}

/// A deterministic key stream as spread as position keys.
fn keys(seed: u64, count: usize) -> Vec<u64> {
    let mut stream = SplitMix64::new(seed);
    (0..count).map(|_| stream.next_u64()).collect()
}

/// Keys each table operation runs over per thread and iteration.
const TABLE_KEYS: usize = 1 << 16;

/// A table of `mb` MiB filled as by an earlier search, so stores meet full
/// buckets as in a long game.
fn filled<T: Table>(mb: usize) -> T {
    let table = T::with_megabytes(mb);
    let entry = TtEntry {
        mv: 1,
        score: 0,
        depth: 1,
        bound: Bound::Exact,
    };
    for key in keys(mb as u64, (mb << 20) / 16) {
        table.store(key, entry);
    }
    table.new_search();
    table
}

/// Store then probe `TABLE_KEYS` keys on each of `threads` threads; the
/// time is per operation as each thread sees it.
fn store_and_probe<T: Table>(table: &T, threads: usize, iters: u64) -> Duration {
    let entry = TtEntry {
        mv: 7,
        score: 12,
        depth: 5,
        bound: Bound::Lower,
    };
    let streams: Vec<Vec<u64>> = (0..threads)
        .map(|t| keys(100 + t as u64, TABLE_KEYS))
        .collect();
    let start = std::time::Instant::now();
    for _ in 0..iters {
        std::thread::scope(|s| {
            for stream in &streams {
                s.spawn(move || {
                    for &k in stream {
                        table.store(k, entry);
                    }
                    stream
                        .iter()
                        .rev()
                        .filter(|&&k| black_box(table.probe(k)).is_some())
                        .count()
                });
            }
        });
    }
    start.elapsed()
}

fn tables(c: &mut Criterion) {
    let mut group = c.benchmark_group("tt");
    group.throughput(Throughput::Elements(2 * TABLE_KEYS as u64));
    for mb in [1, 256] {
        let lock_free = filled::<LockFreeTable>(mb);
        let map = filled::<DashMapTable>(mb);
        for threads in [1, 2] {
            let id = |name: &str| BenchmarkId::new(format!("{name}/{mb}MiB"), threads);
            group.bench_function(id("lock-free"), |b| {
                b.iter_custom(|iters| store_and_probe(&lock_free, threads, iters))
            });
            group.bench_function(id("dashmap"), |b| {
                b.iter_custom(|iters| store_and_probe(&map, threads, iters))
            });
        }
    }
    group.finish();
}

/// Every position before each move of 200 random games per variant, each
/// evaluated once a round: too many to stay in L2, and the mix a game has
/// (docs/tt-and-eval.md). The time per position is the figure.
fn evaluation_over_games(c: &mut Criterion) {
    let mut group = c.benchmark_group("eval_games");
    for variant in Variant::ALL {
        let games = random_game_positions(&RuleSet::new(variant), 200, 300, 1);
        group.throughput(Throughput::Elements(games.len() as u64));
        group.bench_function(variant.name(), |b| {
            b.iter(|| {
                games
                    .iter()
                    .map(|pos| evaluate(black_box(pos)))
                    .sum::<i32>()
            })
        });
    }
    group.finish();
}

/// The PDN reader on 32 KB pastes: 10,900 lines of one word (the shape a
/// hostile client sent; reading it was quadratic, 2.3 s on the server's
/// connection task) and a game's moves, ten to a line.
fn pdn_paste(c: &mut Criterion) {
    let short_lines = "x\n".repeat(10_900);
    let game: String = (1..=500)
        .map(|n| format!("{n}. c3-d4 f6-e5{}", if n % 5 == 0 { "\n" } else { " " }))
        .collect();
    let mut group = c.benchmark_group("pdn/pasted");
    for (name, text) in [("short-lines", &short_lines), ("game", &game)] {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| bashni_host::pdn::parse_pasted_pdn(black_box(text)))
        });
    }
    group.finish();
}

/// Short runs: these are nanosecond-scale and stable within two seconds,
/// and the whole suite should stay near two minutes on two cores.
fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
}

criterion_group! {
    name = micro;
    config = config();
    targets = move_generation, make_unmake, perft_small, evaluation, evaluation_over_games, tables, pdn_paste
}
criterion_main!(micro);
