#!/bin/bash
# Regenerate the self-play data and the shipped networks
# (crates/engine/src/nnue/nets/<variant>.nnue) on a 2-core machine, no GPU.
# docs/tuning.md ("The recipe") says what each step is and what it costs.
#
#   docs/train-network.sh            # from anywhere; works in the repository
#   DATA=/elsewhere docs/train-network.sh
#
# Generations: the linear evaluation plays the first games and a network
# learns them; that network plays the next games and a second network
# learns them; and so on, each generation's network the next one's player
# (`selfplay --eval-file`). The shipped network learns the games of the
# last generations, its target mostly the search scores (lambda 0.25) and
# its step size annealed. Bashni has three generations at 2,000 nodes a
# move, its players trained the old way (lambda 0.5, constant step).
# Lasca has four: its players are trained like the shipped networks, and
# its fourth generation is played at 8,000 nodes a move by a network of
# the first three.
#
# The data (about 330 MB) goes to $DATA (default target/nnue-data-2, which
# git ignores) and is not committed. Each variant's generations run on one
# core, both variants at once: with one thread a run writes its games in
# index order, so the files, and from them the networks, come out the same
# every time. Training runs on one thread for the same reason (a float sum
# split over threads adds in another order). A run interrupted during
# self-play is resumed by running the script again; data of a run with
# fewer games (same seed and options) is extended, not replayed
# (docs/tuning.md). Self-play skips the games a file already holds, so
# data of an older recipe must not be in $DATA: the default directory is
# new with each change of the recipe (target/nnue-data was the last one's).
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DATA:-target/nnue-data-2}
BIN=target/release/bashni
NETS=crates/engine/src/nnue/nets
GAMES=12000

cargo build --release
mkdir -p "$DATA" "$NETS"

# play VARIANT GENERATION SEED NODES PLAYER: one generation's games on one
# core, by the linear evaluation (named, since the engine's default is the
# shipped network) or by the network file PLAYER.
play() {
    local v=$1 generation=$2 seed=$3 nodes=$4 player=$5
    nice -n 19 "$BIN" selfplay --variant "$v" --games "$GAMES" --nodes "$nodes" \
        --threads 1 --seed "$seed" --openings "bench-positions/openings-$v-4000.txt" \
        --eval-file "$player" --out "$DATA/sp$generation-$v.txt" --quiet
}

# train VARIANT EPOCHS OUT DATA_AND_OPTIONS...: one network on one thread.
train() {
    local v=$1 epochs=$2 out=$3
    shift 3
    RAYON_NUM_THREADS=1 nice -n 19 "$BIN" train "$@" --variant "$v" \
        --epochs "$epochs" --seed 1 --quiet --out "$out"
}
OLD_PLAYER=(--lambda 0.5)
SCORES=(--lambda 0.25 --final-learning-rate 0.00005)

# Epochs: for the old-style players, where the held-out loss of each data
# set stops falling; the annealed runs end at the step size's floor
# (docs/tuning.md).
bashni() {
    play bashni 1 11 2000 linear
    train bashni 2 "$DATA/net1-bashni.nnue" "$DATA/sp1-bashni.txt" "${OLD_PLAYER[@]}"
    play bashni 2 12 2000 "$DATA/net1-bashni.nnue"
    train bashni 2 "$DATA/net2-bashni.nnue" "$DATA/sp2-bashni.txt" "${OLD_PLAYER[@]}"
    play bashni 3 13 2000 "$DATA/net2-bashni.nnue"
    train bashni 3 "$NETS/bashni.nnue" "$DATA"/sp{1,2,3}-bashni.txt "${SCORES[@]}"
}

lasca() {
    play lasca 1 11 2000 linear
    train lasca 4 "$DATA/net1-lasca.nnue" "$DATA/sp1-lasca.txt" "${SCORES[@]}"
    play lasca 2 12 2000 "$DATA/net1-lasca.nnue"
    train lasca 4 "$DATA/net2-lasca.nnue" "$DATA/sp2-lasca.txt" "${SCORES[@]}"
    play lasca 3 13 2000 "$DATA/net2-lasca.nnue"
    train lasca 4 "$DATA/net3-lasca.nnue" "$DATA"/sp{1,2,3}-lasca.txt "${SCORES[@]}"
    play lasca 4 14 8000 "$DATA/net3-lasca.nnue"
    train lasca 4 "$NETS/lasca.nnue" "$DATA"/sp{2,3,4}-lasca.txt "${SCORES[@]}"
}

# Both at once; `wait PID` so that a failure in either stops the script.
bashni &
bashni_pid=$!
lasca &
lasca_pid=$!
wait "$bashni_pid"
wait "$lasca_pid"
echo "networks written; rebuild (cargo build --release) to embed them"
