#!/bin/bash
# Regenerate the self-play data and the shipped networks
# (crates/engine/src/nnue/nets/<variant>.nnue) on a 2-core machine, no GPU.
# docs/tuning.md ("The recipe") says what each step is and what it costs.
#
#   docs/train-network.sh            # from anywhere; works in the repository
#   DATA=/elsewhere docs/train-network.sh
#
# The data (about 130 MB) goes to $DATA (default target/nnue-data, which git
# ignores) and is not committed. Each variant's games run on one core, both
# variants at once: with one thread a run writes its games in index order,
# so the files, and from them the networks, come out the same every time.
# Training runs on one thread for the same reason (a float sum split over
# threads adds in another order). A run interrupted during self-play is
# resumed by running the script again.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DATA:-target/nnue-data}
BIN=target/release/bashni
GAMES=12000
NODES=2000
SEED=11

cargo build --release
mkdir -p "$DATA" crates/engine/src/nnue/nets

for v in bashni lasca; do
    nice -n 19 "$BIN" selfplay --variant "$v" --games "$GAMES" --nodes "$NODES" \
        --threads 1 --seed "$SEED" --openings "bench-positions/openings-$v-4000.txt" \
        --out "$DATA/sp-$v.txt" --quiet &
done
wait

# Epochs: where the held-out loss of this data stops falling (Bashni's
# rises after 2, Lasca's after 4; docs/tuning.md).
RAYON_NUM_THREADS=1 nice -n 19 "$BIN" train "$DATA/sp-bashni.txt" --variant bashni \
    --epochs 2 --lambda 0.5 --seed 1 --quiet --out crates/engine/src/nnue/nets/bashni.nnue &
RAYON_NUM_THREADS=1 nice -n 19 "$BIN" train "$DATA/sp-lasca.txt" --variant lasca \
    --epochs 4 --lambda 0.5 --seed 1 --quiet --out crates/engine/src/nnue/nets/lasca.nnue &
wait
echo "networks written; rebuild (cargo build --release) to embed them"
