#!/bin/sh
# What `run --tail` adds to the end of a run (docs/tail.md, "In a run"): real runs
# on one CPU with and without --tail, their wall time beside their measured
# duration (the end's overhead is the difference), then the analysis alone
# through the run's path on synthetic CPUs (build/bench/tail-run-bench:
# 1, 16 and 256 CPUs of 100000 samples and 60 windows). The goal: at 256
# CPUs the analysis adds less than 1 s to the end of a run.
# Usage: bench/tail-run.sh [BUILD] [CPU] [ROUNDS]
BUILD=${1:-build} CPU=${2:-1} ROUNDS=${3:-3}
JL=$BUILD/jitterlab
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
make -s "$BUILD/jitterlab" "$BUILD/bench/tail-run-bench" >/dev/null || exit 1
end_overhead() { # the wall time of a run beyond its duration_s, in ms
    t0=$(date +%s%N)
    "$JL" run -a "$CPU" -i 1ms -D 3 -q --json "$T/r.json" "$@" || return 1
    t1=$(date +%s%N)
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%.0f" % ((int(sys.argv[3]) - int(sys.argv[2])) / 1e6 - d["duration_s"] * 1e3))' "$T/r.json" "$t0" "$t1"
}
for r in $(seq "$ROUNDS"); do
    plain=$(end_overhead) tail=$(end_overhead --tail)
    echo "round $r: run -a $CPU -D 3: setup+end beyond the measurement $plain ms plain, $tail ms with --tail"
done
for n in 1 16 256; do
    "$BUILD/bench/tail-run-bench" "$n" 100000 60
done
