#!/bin/bash
# Regenerate the self-play data and the shipped networks
# (crates/engine/src/nnue/nets/<variant>.nnue) on a 2-core machine, no GPU.
# docs/tuning.md ("The recipe") says what each step is and what it costs.
#
#   docs/train-network.sh            # from anywhere; works in the repository
#   DATA=/elsewhere docs/train-network.sh
#
# Three generations: the linear evaluation plays the first games and a
# network learns them; that network plays the second games and a second
# network learns them; the second network plays the third games, and the
# shipped network learns all three, its target mostly the search scores
# (lambda 0.25) and its step size annealed. Each generation's network is
# the next one's player (`selfplay --eval-file`).
#
# The data (about 400 MB) goes to $DATA (default target/nnue-data, which git
# ignores) and is not committed. Each variant's games run on one core, both
# variants at once: with one thread a run writes its games in index order,
# so the files, and from them the networks, come out the same every time.
# Training runs on one thread for the same reason (a float sum split over
# threads adds in another order). A run interrupted during self-play is
# resumed by running the script again; data of a run with fewer games
# (same seed and options) is extended, not replayed (docs/tuning.md).
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DATA:-target/nnue-data}
BIN=target/release/bashni
NETS=crates/engine/src/nnue/nets
GAMES=12000
NODES=2000

cargo build --release
mkdir -p "$DATA" "$NETS"

# selfplay GENERATION SEED [EVAL_FILE_PREFIX]: both variants' games, one
# core each, by the linear evaluation (named, since the engine's default
# is the shipped network) or by $PREFIX-<variant>.nnue.
selfplay() {
    local generation=$1 seed=$2 player=${3:-}
    for v in bashni lasca; do
        local eval_file=linear
        if [ -n "$player" ]; then eval_file="$player-$v.nnue"; fi
        nice -n 19 "$BIN" selfplay --variant "$v" --games "$GAMES" --nodes "$NODES" \
            --threads 1 --seed "$seed" --openings "bench-positions/openings-$v-4000.txt" \
            --eval-file "$eval_file" --out "$DATA/sp$generation-$v.txt" --quiet &
    done
    wait
}

# train VARIANT EPOCHS OUT DATA_AND_OPTIONS...: one network on one
# thread. The players of generations 2 and 3 keep the settings they were
# made with (lambda 0.5, constant step size), so their games stay as they
# are; the shipped networks get the better ones (docs/tuning.md).
train() {
    local v=$1 epochs=$2 out=$3
    shift 3
    RAYON_NUM_THREADS=1 nice -n 19 "$BIN" train "$@" --variant "$v" \
        --epochs "$epochs" --seed 1 --quiet --out "$out"
}
PLAYER=(--lambda 0.5)
SHIPPED=(--lambda 0.25 --final-learning-rate 0.00005)

# Epochs: for the players, where the held-out loss of each data set
# stops falling; the shipped networks' annealed runs end at the step
# size's floor (docs/tuning.md).
selfplay 1 11
train bashni 2 "$DATA/net1-bashni.nnue" "$DATA/sp1-bashni.txt" "${PLAYER[@]}" &
train lasca 4 "$DATA/net1-lasca.nnue" "$DATA/sp1-lasca.txt" "${PLAYER[@]}" &
wait

selfplay 2 12 "$DATA/net1"
train bashni 2 "$DATA/net2-bashni.nnue" "$DATA/sp2-bashni.txt" "${PLAYER[@]}" &
train lasca 2 "$DATA/net2-lasca.nnue" "$DATA/sp2-lasca.txt" "${PLAYER[@]}" &
wait

selfplay 3 13 "$DATA/net2"
train bashni 3 "$NETS/bashni.nnue" "$DATA"/sp{1,2,3}-bashni.txt "${SHIPPED[@]}" &
train lasca 4 "$NETS/lasca.nnue" "$DATA"/sp{1,2,3}-lasca.txt "${SHIPPED[@]}" &
wait
echo "networks written; rebuild (cargo build --release) to embed them"
