#!/bin/sh
# The collector at a modest rate, through the throughput harness
# (bench/collector_bench.c, the real collector and run's sinks on rings of
# an engine whose threads never start): 64 rings at 200 k samples/s for 2 s
# with every output on (the samples CSV, report windows and the intervals
# file, the Prometheus exporter scraped while it goes on, telemetry windows
# on a 256-CPU fixture tree) lose nothing; each CPU's running histogram
# equals the producers' own, bucket by bucket; the CSV holds every sample
# once. The high-rate runs are bench/collector.sh. About 8 s.
. "$(dirname "$0")/lib.sh"
CB=$JL_BUILD/bench/collector-bench
[ -x "$CB" ] || { not_ok "collector-bench is built" "$CB missing"; echo "1..$n"; exit 0; }

TREE=$T/big
python3 "$JL_TOP/tests/fixtures/gen-big-smp.py" "$TREE" >/dev/null 2>&1
port=$(freeport)
"$CB" -n 64 -r 200000 -D 2 -- --sysroot "$TREE" --samples "$T/s.csv" --intervals "$T/iv.csv" \
    --report-every 500ms --prometheus "127.0.0.1:$port" >"$T/out" 2>"$T/err" &
pid=$!
kill_on_exit $pid
scraped=0
if wait_for 5 curl -sf "http://127.0.0.1:$port/metrics" -o "$T/m1"; then
    sleep 0.5
    curl -sf "http://127.0.0.1:$port/metrics" -o "$T/m2" && scraped=1
fi
wait $pid
rc_is "64 rings, 200 k/s, 2 s, every output: exits 0 (verified)" 0 $?
line=$(cat "$T/out")
get() { echo "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
check "verify=ok: every ring's histogram equals its producer's" [ "$(get verify)" = ok ]
check "0 drops" [ "$(get drops)" = 0 ]
check "400000 samples offered and drained" [ "$(get offered)" = 400000 -a "$(get drained)" = 400000 ]
check "the samples CSV has a header and one row per sample" [ "$(wc -l <"$T/s.csv")" = 400001 ]
check "every (cpu, t_ns) row once" [ "$(tail -n +2 "$T/s.csv" | cut -d, -f1,2 | sort -u | wc -l)" = 400000 ]
check "64 CPUs in the CSV, 6250 rows each" [ "$(tail -n +2 "$T/s.csv" | cut -d, -f1 | sort | uniq -c | awk '$1 == 6250' | wc -l)" = 64 ]
check "intervals file: windows of 64 CPUs" [ "$(tail -n +2 "$T/iv.csv" | cut -d, -f1 | sort -u | wc -l)" = 64 ]
check "intervals add up to every sample" [ "$(tail -n +2 "$T/iv.csv" | awk -F, '{s += $3} END {print s}')" = 400000 ]
check "the exporter was scraped twice while the collector ran" [ "$scraped" = 1 ]
if [ "$scraped" = 1 ]; then
    total() { awk '/^jitterlab_samples_total\{/ {s += $2} END {print s + 0}' "$1"; }
    check "the page's samples_total grows between scrapes" [ "$(total "$T/m2")" -gt "$(total "$T/m1")" ]
    check "64 CPUs on the page" [ "$(grep -c '^jitterlab_samples_total{' "$T/m2")" = 64 ]
fi

# The summary of 256 CPUs, from the collector's running results over the
# 256-CPU tree's telemetry: collapsed to all + the worst 8 in every table,
# every line within 100 columns; --per-cpu gives every CPU's row.
"$CB" -s -n 256 -r 256000 -D 1 -- --sysroot "$TREE" >"$T/sum" 2>&1
rc_is "256 rings: the summary run exits 0" 0 $?
wide=$(sed '$d' "$T/sum" | python3 -c 'import sys; print(max(len(l.rstrip("\n")) for l in sys.stdin))')
check "256-CPU summary: no line wider than 100 columns (widest $wide)" [ "$wide" -le 100 ]
check "256-CPU summary: the all row and the worst 8 by max" grep -q "^worst 8 of 256 CPUs by max" "$T/sum"
check "256-CPU summary: 248 more CPUs named" grep -q "^248 more CPUs: --per-cpu prints all" "$T/sum"
trows=$(sed -n '/^Telemetry over/,/^rings=/p' "$T/sum" | grep -cE '^ +[0-9]+ ')
check "256-CPU summary: telemetry rows of those 8 CPUs only ($trows)" [ "$trows" = 8 ]
"$CB" -s -n 256 -r 256000 -D 1 -- --sysroot "$TREE" --per-cpu >"$T/sum2" 2>&1
rows=$(sed -n '/^Latency/,/^$/p' "$T/sum2" | grep -cE '^ +[0-9]+ ')
check "--per-cpu: 256 latency rows ($rows)" [ "$rows" = 256 ]

# A collector stalled longer than its rings hold (64 rings at 1 M/s hold
# about 260 ms each; a 700 ms stall half-way) loses samples: they are
# counted per ring, the harness says so, and what arrived is still exact.
"$CB" -n 64 -r 1000000 -D 2 -S 700 -- --no-telemetry >"$T/out" 2>&1
rc_is "a stalled collector: exit 1 (not verified)" 1 $?
line=$(head -1 "$T/out")
check "verify=dropped (what arrived matches its producers)" [ "$(get verify)" = dropped ]
check "drops counted, drained + drops = offered" [ "$(get drops)" -gt 0 -a $(($(get drained) + $(get drops))) = "$(get offered)" ]
"$CB" -n 0 >/dev/null 2>&1
rc_is "-n 0 exits 2" 2 $?
echo "1..$n"
