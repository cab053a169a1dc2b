#!/bin/sh
# Benchmark: what the exporters cost a run. `run --prometheus --influx FILE`
# against the same run without them (both with --report-every 1s, so that
# only the exporters differ), alternating paired rounds through
# bench/option-overhead.sh, while a scraper fetches /metrics every 0.2 s
# (25 times Prometheus' usual 5 s), so that every round pays for many
# scrapes. The exporter's thread and the InfluxDB writer run on the
# collector's housekeeping CPUs; what the measured CPU could pay for is the
# collector's per-sample counting (shared caches) and the scrapes' load.
#
#   bench/export-overhead.sh [CPU] [ROUNDS] [ROUND_SECONDS]
#
# Needs root (SCHED_FIFO) and curl; run on a quiet machine.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
port=${PORT:-19808}
tmp=$(mktemp -d)
( while :; do curl -s -o /dev/null "http://127.0.0.1:$port/metrics" || true; sleep 0.2; done ) &
scraper=$!
trap 'kill $scraper 2>/dev/null; rm -rf "$tmp"' EXIT
WITH="--report-every 1s --prometheus 127.0.0.1:$port --influx $tmp/points.lp" \
    WITHOUT="--report-every 1s" "$top/bench/option-overhead.sh" "$@"
echo "InfluxDB points written meanwhile: $(wc -l <"$tmp/points.lp" 2>/dev/null || echo 0)"
