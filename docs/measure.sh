#!/usr/bin/env bash
# Prints the speed and memory figures recorded in docs/benchmarks.md.
# Run it on a quiet machine: every figure is wall-clock time.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q
B=target/release/bashni

echo "== machine"
echo "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"

echo "== perft, bulk counted: Bashni start depth 11 (1 and 2 threads), Lasca start depth 17"
$B perft 11 | tail -1
$B perft 11 --threads 2 | tail -1
$B perft --variant lasca 17 | tail -1

echo "== search: bench (14 positions, depth 13, Hash 64), 1 and 2 threads"
for t in 1 2; do
  echo "threads $t: $($B bench --threads "$t" | tail -2 | tr '\n' ' ')"
done

echo "== time to depth 15 on the bench positions, 1 and 2 threads (mean of 5 interleaved runs)"
for i in 1 2 3 4 5; do
  for t in 1 2; do echo "$t $($B bench --depth 15 --threads "$t" | tail -2 | head -1)"; done
done | awk '{s[$1]+=$6; n[$1]++} END {for (t in s) printf "threads %s: %.0f ms\n", t, s[t]/n[t]}'

echo "== transposition table: the same bench searches over each table"
for h in 16 256; do
  echo "Hash $h lock-free: $($B bench --hash "$h" | tail -1)"
  echo "Hash $h dashmap:   $($B bench --hash "$h" --tt dashmap | tail -1)"
done

echo "== transposition table: store and probe, lock-free vs DashMap (criterion)"
cargo bench -q --bench micro -- tt/ 2>/dev/null | grep -E "^tt/|thrpt" || true

echo "== match runner: 40 games at depth 7, concurrency 1 and 2 (wall time)"
for c in 1 2; do
  /usr/bin/time -f "concurrency $c: %e s" $B match --engine cmd=$B,name=A --engine cmd=$B,name=B \
    --games 40 --depth 7 --openings bench-positions/openings-bashni.txt --concurrency "$c" > /dev/null
done

echo "== peak resident memory of the engine (Hash set, table cleared, a search)"
for h in 64 1024; do
  /usr/bin/time -f "Hash $h MiB: peak RSS %M KiB" sh -c \
    "printf 'setoption name Hash value $h\nsetoption name Clear Hash\nposition startpos\ngo depth 12\n' | $B > /dev/null"
done
