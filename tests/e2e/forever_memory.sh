#!/bin/sh
# run --forever in constant memory: a 25 s run at -i 100us with the exporter
# scraped, InfluxDB points to a file, telemetry and report windows has the
# same peak RSS at 10 s and at 25 s (everything is allocated before the
# first cycle; the kept windows are a fixed ring).
. "$(dirname "$0")/lib.sh"
JL_PID=
# ASan keeps freed memory in a quarantine (256 MB by default) before it
# reuses it, so every scrape's passing allocation would look like growth:
# under ASan the quarantine is turned off for this run.
if grep -q __asan_init "$JL" 2>/dev/null; then
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0:thread_local_quarantine_size_kb=0"
    export ASAN_OPTIONS
    echo "# ASan build: $ASAN_OPTIONS"
fi
PORT=$(freeport)
"$JL" run --forever -a 1 -i 100us --report-every 1s --keep-windows 5 --prometheus "$PORT" \
    --influx "$T/m.lp" --json "$T/m.json" >"$T/m.out" 2>"$T/m.err" &
JL_PID=$!; kill_on_exit "$JL_PID"
w=0 # the first report window's point
while [ ! -s "$T/m.lp" ] && kill -0 "$JL_PID" 2>/dev/null && [ $w -lt 600 ]; do sleep 0.1; w=$((w + 1)); done
if [ ! -s "$T/m.lp" ]; then
    not_ok "run --forever -i 100us is measuring" "$(tail -3 "$T/m.err")"; exit 0
fi
ok "run --forever -i 100us is measuring"
hwm() { awk '/^VmHWM/ {print $2}' "/proc/$JL_PID/status"; }
scrape_for() { # SECONDS: a scrape every 0.5 s meanwhile
    end=$(($(date +%s) + $1))
    while [ "$(date +%s)" -lt "$end" ]; do curl -s -o /dev/null "http://127.0.0.1:$PORT/metrics"; sleep 0.5; done
}
scrape_for 5
kill -USR1 "$JL_PID" # a result written meanwhile (its document is a passing allocation)
scrape_for 5
h10=$(hwm)
scrape_for 15
h60=$(hwm)
echo "# VmHWM at 10 s: $h10 kB, at 25 s: $h60 kB"
kill -INT "$JL_PID"; wait "$JL_PID"; rc=$?; JL_PID=
rc_is "the --forever run ends with SIGINT, exit 0" 0 $rc
# a page or two of slack for the allocator's bookkeeping
if [ -n "$h10" ] && [ -n "$h60" ] && [ "$h60" -le $((h10 + 16)) ]; then
    ok "peak RSS at 25 s is that at 10 s ($h10 kB -> $h60 kB)"
else
    not_ok "peak RSS at 25 s is that at 10 s" "$h10 kB -> $h60 kB"
fi
pyt "$T/m.json" lp="$T/m.lp" <<'PY'
t("25 s at 100 us: the result keeps only --keep-windows windows", 'len(d["intervals"]) == 5 and d["intervals_dropped"] >= 15', '(len(d["intervals"]), d["intervals_dropped"])')
pts = [l for l in open(v["lp"]) if " samples=" in l]
t("the InfluxDB file has a point for every window (kept or not)", 'len(pts) == len(d["intervals"]) + d["intervals_dropped"]', '(len(pts), len(d["intervals"]), d["intervals_dropped"])')
c = d["cpus"][0]
t("samples + missed = the periods of the run (>= 240000)", 'c["samples"] + c["missed"] >= 240000', '(c["samples"], c["missed"])')
PY
