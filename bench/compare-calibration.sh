#!/bin/sh
# How often `jitterlab compare --fail-if-worse 0` raises a false alarm when
# both arms come from one distribution, and how often it sees a real change
# (power), for 1, 32 and 256 CPUs. Documents are synthetic run results
# (tests/e2e/helpers/mkrun.py: log-normal latencies in the run's own
# histogram, seeded). Prints, per CPU count:
#   false alarms  trials in which the gate exited 3 with both arms the same
#   p99 +10%      trials in which a 10% slower arm made p99 worse
#   missed x2     trials in which twice the missed periods made missed worse
# The target is a false-alarm rate at most alpha (0.05) at every CPU count.
#   bench/compare-calibration.sh [-t TRIALS] [-n SAMPLES] [-c "1 32 256"]
#   JL=build/jitterlab (default)
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
JL=${JL:-$top/build/jitterlab}
trials=40 samples=20000 counts="1 32 256"
while getopts t:n:c: o; do
    case $o in
    t) trials=$OPTARG ;;
    n) samples=$OPTARG ;;
    c) counts=$OPTARG ;;
    *) echo "usage: $0 [-t TRIALS] [-n SAMPLES] [-c COUNTS]" >&2; exit 2 ;;
    esac
done
MK="python3 $top/tests/e2e/helpers/mkrun.py"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
verdict() { # FILE METRIC: the all entry's verdict of METRIC
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); e=d["comparisons"][0]["cpus"][-1]; print([m for m in e["metrics"] if m["metric"]==sys.argv[2]][0]["verdict"])' "$1" "$2"
}
printf '%6s %8s %9s %16s %10s %10s\n' cpus samples trials "false alarms" "p99 +10%" "missed x2"
for n in $counts; do
    cpus=$(seq -s, 0 $((n - 1)))
    per=$((samples / n)); [ "$per" -lt 2000 ] && per=2000
    fa=0 p99=0 mx=0
    t=1
    while [ "$t" -le "$trials" ]; do
        s=$((t * 10))
        $MK "$T/a.json" --seed "$s" --n "$per" --cpus "$cpus" --missed 20
        $MK "$T/b.json" --seed $((s + 1)) --n "$per" --cpus "$cpus" --missed 20
        $MK "$T/slow.json" --seed $((s + 2)) --n "$per" --cpus "$cpus" --scale 1.1 --missed 20
        $MK "$T/miss.json" --seed $((s + 3)) --n "$per" --cpus "$cpus" --missed 40
        rc=0; "$JL" compare "$T/a.json" "$T/b.json" --fail-if-worse 0 -q 2>/dev/null || rc=$?
        [ "$rc" -eq 3 ] && fa=$((fa + 1))
        "$JL" compare "$T/a.json" "$T/slow.json" "$T/miss.json" -q --json "$T/c.json" || true
        python3 - "$T/c.json" >"$T/v" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def v(label, metric):
    c = [x for x in d["comparisons"] if x["label"] == label][0]
    return [m for m in c["cpus"][-1]["metrics"] if m["metric"] == metric][0]["verdict"]
print(int(v("slow", "p99") == "worse"), int(v("miss", "missed") == "worse"))
PY
        read -r a b <"$T/v"
        p99=$((p99 + a)); mx=$((mx + b))
        t=$((t + 1))
    done
    printf '%6d %8d %9d %10d (%.3f) %10.3f %10.3f\n' "$n" "$per" "$trials" "$fa" \
        "$(echo "$fa / $trials" | bc -l)" "$(echo "$p99 / $trials" | bc -l)" "$(echo "$mx / $trials" | bc -l)"
done
