#!/bin/sh
# Peak RSS and wall time of report and compare on large inputs: a day's
# run on 256 CPUs with the default outputs and every histogram bucket over
# ten octaves filled (tests/e2e/helpers/mkbig.py, about 37 MB), read alone
# and as N copies (report) or two (compare). With JL_OLD set, the same
# commands with that build too, for a before/after table.
#   bench/input-memory.sh [-n COPIES] [-c CPUS]
#   JL=build/jitterlab (default)  JL_OLD=path/to/other/jitterlab (optional)
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
JL=${JL:-$top/build/jitterlab}
copies=3 cpus=256
while getopts n:c: o; do
    case $o in
    n) copies=$OPTARG ;;
    c) cpus=$OPTARG ;;
    *) echo "usage: $0 [-n COPIES] [-c CPUS]" >&2; exit 2 ;;
    esac
done
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
python3 "$top/tests/e2e/helpers/mkbig.py" "$T/r1.json" --cpus "$cpus"
i=2
while [ $i -le "$copies" ]; do cp "$T/r1.json" "$T/r$i.json"; i=$((i + 1)); done
all=$(i=1; while [ $i -le "$copies" ]; do printf '%s ' "$T/r$i.json"; i=$((i + 1)); done)
echo "document: $cpus CPUs, 24 h, $(($(wc -c <"$T/r1.json") / 1024 / 1024)) MiB"
printf '%-8s %-28s %12s %8s\n' build command "peak RSS MB" "wall s"
measure() { # BUILD-NAME BINARY LABEL ARGS...
    name=$1 bin=$2 label=$3
    shift 3
    out=$(python3 "$top/tests/e2e/helpers/peak_rss.py" "$bin" "$@" 2>"$T/err" | tail -1) ||
        { echo "$name $label failed: $(cat "$T/err")" >&2; return 0; }
    printf '%-8s %-28s %12d %8s\n' "$name" "$label" $((${out% *} / 1024)) "${out#* }"
}
for b in new old; do
    bin=$JL
    if [ $b = old ]; then
        [ -n "${JL_OLD:-}" ] || break
        bin=$JL_OLD
    fi
    # shellcheck disable=SC2086
    measure $b "$bin" "report (1 result)" report "$T/r1.json" -q -o "$T/p.html"
    # shellcheck disable=SC2086
    measure $b "$bin" "report ($copies results)" report $all -q -o "$T/p.html"
    measure $b "$bin" "compare (2 results)" compare "$T/r1.json" "$T/r2.json" -q
done
