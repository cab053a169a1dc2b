#!/bin/sh
# runs beside others
# A run without an end, watched by the monitoring systems: a real Prometheus
# (Debian's, started here on loopback with its own config and storage)
# scrapes `run --forever --prometheus` every second; the exporter is abused;
# SIGUSR1 writes the result so far, SIGHUP reopens the samples log, SIGINT
# ends the run with every sample kept.
. "$(dirname "$0")/lib.sh"
SPIN=$JL_BUILD/tests/spinner
if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null || ! command -v curl >/dev/null; then
    ok "fleet # SKIP prometheus, promtool or curl missing (make deps installs them)"
    exit 0
fi
# prom QUERY: the first value of an instant query, or "none"
prom() {
    curl -s -G "http://127.0.0.1:$PPORT/api/v1/query" --data-urlencode "query=$1" |
        python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "none")' 2>/dev/null || echo none
}

# Bucket bounds around this machine's median, so that the median's bucket
# (p50/2 .. p50*2) cannot change with a few hundred samples more or less.
jl_cal() { "$JL" run -a 1 -i 1ms -D 1s -q --no-telemetry --json "$T/cal.json"; }
jl_cal
P50=$(jget "$T/cal.json" 'd["all"]["latency_ns"]["p50"]')
BUCKETS=$(python3 -c "p=max(int($P50),8); print(','.join('%dns' % int(p*2**k) for k in (-3,-2,-1,1,2,3,4,5,6,7,8)))")
echo "# calibration p50 $P50 ns; buckets $BUCKETS"

JPORT=$(freeport)
"$JL" run --forever -a 1 -i 1ms --prometheus "$JPORT" --prometheus-buckets "$BUCKETS" \
    --json "$T/fl.json" --samples "$T/fl.csv" >"$T/fl.out" 2>"$T/fl.err" &
JL_PID=$!; kill_on_exit "$JL_PID"
if wait_measuring "$T/fl.out" "$JL_PID"; then ok "run --forever --prometheus is measuring"; else
    not_ok "run --forever --prometheus is measuring" "$(tail -3 "$T/fl.err")"; exit 0; fi
wait_for 10 curl -sf "http://127.0.0.1:$JPORT/metrics" && ok "exporter answers on 127.0.0.1:$JPORT" || not_ok "exporter answers" "$(tail -3 "$T/fl.err")"

# --- default bind: loopback only ------------------------------------------
L=$(ss -ltnH "sport = :$JPORT" | awk '{print $4}')
echo "# listening: $L"
case $L in
127.0.0.1:$JPORT) ok "the exporter listens on 127.0.0.1 only by default" ;;
*) not_ok "the exporter listens on 127.0.0.1 only by default" "ss says: $L" ;;
esac

# --- a real Prometheus -----------------------------------------------------
PPORT=$(freeport)
cat >"$T/prometheus.yml" <<CFG
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: jitterlab
    static_configs:
      - targets: ['127.0.0.1:$JPORT']
CFG
prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/tsdb" \
    --web.listen-address="127.0.0.1:$PPORT" --log.level=warn >"$T/prom.log" 2>&1 &
PROM_PID=$!; kill_on_exit "$PROM_PID"
prom_up() { [ "$(prom 'up{job="jitterlab"}')" = 1 ]; }
if wait_for 30 prom_up; then ok "Prometheus scrapes the exporter (up == 1)"; else
    not_ok "Prometheus scrapes the exporter (up == 1)" "$(tail -3 "$T/prom.log")"; fi
s1=$(prom 'sum(jitterlab_samples_total)')
sleep 3
s2=$(prom 'sum(jitterlab_samples_total)')
echo "# jitterlab_samples_total: $s1, 3 s later $s2"
if python3 -c "import sys; a,b=sys.argv[1:]; sys.exit(0 if a!='none' and b!='none' and float(b) > float(a) else 1)" "$s1" "$s2"; then
    ok "jitterlab_samples_total grows between scrapes"; else not_ok "jitterlab_samples_total grows between scrapes" "$s1 -> $s2"; fi

# a known 2 ms delay, twice, seen by the max-since-the-last-scrape gauge
if ! is_root; then
    ok "max gauge sees an injected 2 ms delay # SKIP not root"
elif [ ! -x "$SPIN" ]; then
    not_ok "max gauge sees an injected 2 ms delay" "$SPIN missing: run make tests"
else
    timeout -s KILL 10 "$SPIN" 1 95 2000 1000000 2 >"$T/spin.out" 2>&1
    sleep 2.5
    m=$(prom 'max_over_time(jitterlab_wakeup_latency_max_seconds{cpu="1"}[30s])')
    echo "# injections: $(cat "$T/spin.out"); max_over_time(max gauge[30s]) = $m"
    if python3 -c "import sys; sys.exit(0 if sys.argv[1] != 'none' and float(sys.argv[1]) >= 0.0017 else 1)" "$m"; then
        ok "jitterlab_wakeup_latency_max_seconds saw the injected 2 ms delay"
    else not_ok "jitterlab_wakeup_latency_max_seconds saw the injected 2 ms delay" "got $m"; fi
fi

# the median over the run, from the buckets, against jitterlab's own
kill -USR1 "$JL_PID"
sleep 0.5
q=$(prom 'histogram_quantile(0.5, sum by (le) (jitterlab_wakeup_latency_seconds_bucket))')
pyt "$T/fl.json" q="$q" buckets="$BUCKETS" <<'PY'
t("SIGUSR1 wrote the result so far: in_progress, not interrupted", 'd["in_progress"] is True and d["interrupted"] is False and d["config"]["forever"] is True', '(d.get("in_progress"), d.get("interrupted"))')
t("the result so far lacks exactly what the rings dropped, and is exact only without drops", 'all(c["samples_lacking"] == c["ring_drops"] for c in d["cpus"]) and d["all"]["samples_lacking"] == d["all"]["ring_drops"] and d["exact"] is (d["all"]["ring_drops"] == 0)', '(d.get("exact"), d["all"].get("samples_lacking"), d["all"]["ring_drops"])')
b = [int(x[:-2]) / 1e9 for x in v["buckets"].split(",")]
def idx(x): return sum(1 for le in b if x > le)
p50 = d["all"]["latency_ns"]["p50"] / 1e9
q = float(v["q"]) if v["q"] != "none" else float("nan")
note("histogram_quantile(0.5) = %.9f s; jitterlab p50 %.9f s" % (q, p50))
t("histogram_quantile(0.5) over the run lies in the bucket of jitterlab's own p50", 'idx(q) == idx(p50)', '(q, p50, b)')
PY

curl -s "http://127.0.0.1:$JPORT/metrics" >"$T/scrape.txt"
if promtool check metrics <"$T/scrape.txt" >"$T/promtool.out" 2>&1; then ok "promtool check metrics accepts a scrape"; else
    not_ok "promtool check metrics accepts a scrape" "$(head -5 "$T/promtool.out")"; fi
curl -s -H 'Accept: application/openmetrics-text; version=1.0.0' -D "$T/om.head" "http://127.0.0.1:$JPORT/metrics" >"$T/om.txt"
if grep -qi '^content-type: application/openmetrics-text' "$T/om.head" && [ "$(tail -1 "$T/om.txt")" = "# EOF" ]; then
    ok "OpenMetrics when the scraper asks for it (content type, # EOF)"; else
    not_ok "OpenMetrics when the scraper asks for it" "$(grep -i content-type "$T/om.head") / $(tail -1 "$T/om.txt")"; fi
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
c404=$(code "http://127.0.0.1:$JPORT/nope") c200=$(code "http://127.0.0.1:$JPORT/") c405=$(code -X POST "http://127.0.0.1:$JPORT/metrics")
[ "$c404$c200$c405" = 404200405 ] && ok "/nope 404, / 200, POST 405" || not_ok "/nope 404, / 200, POST 405" "$c404 $c200 $c405"

# --- the exporter under abuse ----------------------------------------------
python3 "$JL_TOP/tests/e2e/helpers/http_abuse.py" "$JPORT" 1000000 6 >"$T/abuse.out" 2>"$T/abuse.err" ||
    printf 'fail\tabuse helper completed\t%s\n' "$(tail -2 "$T/abuse.err" | tr '\n' ' ')" >>"$T/abuse.out"
tap_lines "$T/abuse.out"
kill -0 "$JL_PID" 2>/dev/null && ok "the run is still up after the abuse" || not_ok "the run is still up after the abuse"

# --- SIGHUP reopens the samples log (logrotate) ----------------------------
mv "$T/fl.csv" "$T/fl.1.csv"
kill -HUP "$JL_PID"
sleep 1.5
kill -0 "$JL_PID" 2>/dev/null && ok "SIGHUP does not end a --forever run" || not_ok "SIGHUP does not end a --forever run"
[ "$(head -1 "$T/fl.csv" 2>/dev/null)" = "cpu,t_ns,latency_ns" ] && ok "SIGHUP reopened --samples: a new file with its header" ||
    not_ok "SIGHUP reopened --samples" "$(ls -la "$T")"

# --- SIGINT ends it, every sample kept --------------------------------------
kill -INT "$JL_PID"
w=0; while kill -0 "$JL_PID" 2>/dev/null && [ $w -lt 100 ]; do sleep 0.1; w=$((w + 1)); done
wait "$JL_PID"; rc=$?; JL_PID=
rc_is "SIGINT ends the --forever run, exit 0" 0 $rc
pyt "$T/fl.json" a="$T/fl.1.csv" b="$T/fl.csv" <<'PY'
t("final result: not in progress, interrupted (ended by a signal)", 'd["in_progress"] is False and d["interrupted"] is True', '(d["in_progress"], d["interrupted"])')
t("the final result is exact and lacks no sample, whatever the rings dropped", 'd["exact"] is True and d["all"]["samples_lacking"] == 0 and all(c["samples_lacking"] == 0 for c in d["cpus"])', '(d.get("exact"), d["all"].get("samples_lacking"))')
rows = sum(len(open(v[k]).read().splitlines()) - 1 for k in ("a", "b"))
drops = d["all"]["ring_drops"]
note("rows before and after the reopen: %d; samples %d; ring drops %d" % (rows, d["all"]["samples"], drops))
t("the two sample logs hold every sample of the run", 'rows == d["all"]["samples"] - drops', '(rows, d["all"]["samples"], drops)')
PY
kill -TERM "$PROM_PID" 2>/dev/null; wait "$PROM_PID" 2>/dev/null; PROM_PID=
