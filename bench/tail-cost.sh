#!/bin/sh
# What the tail analysis costs at the end of a run on a big machine, through
# the harness (bench/tail_bench.c): 256 synthetic per-CPU histograms (1e6 to
# 1e8 samples, a bulk of a few us and a generalized Pareto tail) and 60
# window maxima each, through tail_analyse_many with this machine's threads,
# then one by one; and the exact-samples path of `jitterlab tail --samples`
# on 1e6 and 1e7 samples. Prints the figures three times (the VM is shared:
# take the middle) and the projection for 16 threads.
#
#   bench/tail-cost.sh [BUILD]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
tb=$build/bench/tail-bench
[ -x "$tb" ] || { echo "tail-cost.sh: $tb missing (make tests)" >&2; exit 2; }
for i in 1 2 3; do
    "$tb" -n 256 || exit 1
done
"$tb" -n 4 -x 1e6 | sed -n 2p
"$tb" -n 4 -x 1e7 | sed -n 2p
