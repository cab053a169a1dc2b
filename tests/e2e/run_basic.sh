#!/bin/sh
# jitterlab run, end to end, on CPU 1: the result document's fixed fields
# (docs/result-schema.md, schema 1), sample accounting (samples + missed == planned
# cycles), percentile ordering, the samples CSV, the cyclictest-format
# histogram file, -l, --report-every, --tolerance, --budget, --clock tsc,
# --version / help, the plain-text summary, a two-CPU run and a run without
# privileges. Every run that writes JSON also goes through the cross-output
# invariants (inv, helpers/invariants.py): the CSV, the histogram file and
# the printed table must agree with the document, figure by figure. --budget
# and --tolerance are checked from both sides. Only properties that hold on
# any machine are asserted, never "latency below X". About 16 s.
. "$(dirname "$0")/lib.sh"
: "${JL_TOP:=$(cd "$(dirname "$0")/../.." && pwd)}"


# --- the reference run: 2 s at 1 ms on CPU 1, every output ---------------
J=$T/run.json H=$T/hist.txt S=$T/samples.csv
"$JL" run -a 1 -i 1ms -D 2 -q --json "$J" --histogram-file "$H" --samples "$S" >"$T/out" 2>"$T/err"
rc=$?
rc_is "2 s run exits 0" 0 $rc
inv "2 s run" "$J" --samples "$S" --hist "$H" --exit-code $rc
check "-q prints nothing on stdout" test ! -s "$T/out"
check "result document is valid JSON" python3 -m json.tool "$J"

pyt "$J" planned=2000 <<'EOF'
t("tool is jitterlab", 'd["tool"] == "jitterlab"', 'd.get("tool")')
t("schema is 1", 'd["schema"] == 1 and type(d["schema"]) is int', 'd.get("schema")')
t("kind is run", 'd["kind"] == "run"', 'd.get("kind")')
t("version is a non-empty string", 'isinstance(d["version"], str) and d["version"] != ""')
t("argv is the command line", 'isinstance(d["argv"], list) and all(isinstance(a, str) for a in d["argv"]) and d["argv"][1:3] == ["run", "-a"] and "--json" in d["argv"]', 'd.get("argv")')
t("started_at is RFC 3339 UTC", 're.fullmatch(r"\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?(Z|\\+00:00)", d["started_at"])', 'd.get("started_at")')
t("duration_s is a number near 2", 'isinstance(d["duration_s"], (int, float)) and 1.9 <= d["duration_s"] < 10', 'd.get("duration_s")')
t("interrupted is false", 'd["interrupted"] is False', 'd.get("interrupted")')
sysk = ["hostname", "kernel", "preempt_model", "cmdline", "cpu_model", "cpus_online", "isolated", "nohz_full", "clocksource", "hypervisor"]
t("system has the fixed fields", 'not [k for k in sysk if k not in d["system"]]', '[k for k in sysk if k not in d["system"]]')
cfgk = ["interval_ns", "policy", "priority", "cpus", "clock", "tolerance_ns", "workload", "load", "pm_qos_us"]
t("config has the fixed fields", 'not [k for k in cfgk if k not in d["config"]]', '[k for k in cfgk if k not in d["config"]]')
t("config.interval_ns is 1000000", 'd["config"]["interval_ns"] == 1000000', 'd["config"].get("interval_ns")')
t("config.cpus is [1]", 'd["config"]["cpus"] == [1]', 'd["config"].get("cpus")')
t("one CPU entry, cpu 1", 'len(d["cpus"]) == 1 and d["cpus"][0]["cpu"] == 1', '[c.get("cpu") for c in d["cpus"]]')
latk = ["min", "mean", "stddev", "max", "p50", "p90", "p99", "p999", "p9999", "over_tolerance", "max_at_s"]
t("cpus[0] has samples, missed, latency_ns, histogram", 'all(k in d["cpus"][0] for k in ("samples", "missed", "latency_ns", "histogram"))', 'sorted(d["cpus"][0])')
t("cpus[0].latency_ns has the fixed fields", 'not [k for k in latk if k not in d["cpus"][0]["latency_ns"]]', '[k for k in latk if k not in d["cpus"][0]["latency_ns"]]')
t("cpus[0].histogram is {unit: ns, bins, overflow}", 'd["cpus"][0]["histogram"]["unit"] == "ns" and isinstance(d["cpus"][0]["histogram"]["bins"], list) and isinstance(d["cpus"][0]["histogram"]["overflow"], int)', 'd["cpus"][0]["histogram"].get("unit")')
t("all has samples, missed, latency_ns", 'all(k in d["all"] for k in ("samples", "missed", "latency_ns"))', 'sorted(d["all"])')
t("all.latency_ns has the fixed fields", 'not [k for k in latk if k not in d["all"]["latency_ns"]]', '[k for k in latk if k not in d["all"]["latency_ns"]]')
t("all: samples + missed == 2000 +- 1%", 'abs(d["all"]["samples"] + d["all"]["missed"] - v["planned"]) <= v["planned"] // 100', '(d["all"]["samples"], d["all"]["missed"])')
t("cpu 1: samples + missed == 2000 +- 1%", 'abs(d["cpus"][0]["samples"] + d["cpus"][0]["missed"] - v["planned"]) <= v["planned"] // 100', '(d["cpus"][0]["samples"], d["cpus"][0]["missed"])')
t("all.samples is the sum over CPUs", 'd["all"]["samples"] == sum(c["samples"] for c in d["cpus"]) and d["all"]["missed"] == sum(c["missed"] for c in d["cpus"])')
for label, where in (("cpu 1", 'd["cpus"][0]'), ("all", 'd["all"]')):
    L = where + '["latency_ns"]'
    t(label + ": min <= p50 <= p90 <= p99 <= p999 <= max",
      L + '["min"] <= ' + L + '["p50"] <= ' + L + '["p90"] <= ' + L + '["p99"] <= ' + L + '["p999"] <= ' + L + '["max"]',
      '[' + L + '[k] for k in ("min", "p50", "p90", "p99", "p999", "max")]')
    t(label + ": min <= mean <= max, stddev >= 0",
      L + '["min"] <= ' + L + '["mean"] <= ' + L + '["max"] and ' + L + '["stddev"] >= 0', L)
t("cpu 1: 0 <= max_at_s <= duration_s", '0 <= d["cpus"][0]["latency_ns"]["max_at_s"] <= d["duration_s"]', 'd["cpus"][0]["latency_ns"]["max_at_s"]')
t("cpu 1: no tolerance given, over_tolerance null", 'd["cpus"][0]["latency_ns"]["over_tolerance"] is None and d["config"]["tolerance_ns"] is None')
t("histogram bins are [lo, hi, count], ascending, lo <= hi",
  'all(len(b) == 3 and b[0] <= b[1] and b[2] > 0 for b in d["cpus"][0]["histogram"]["bins"]) and all(a[1] < b[0] for a, b in zip(d["cpus"][0]["histogram"]["bins"], d["cpus"][0]["histogram"]["bins"][1:]))')
t("histogram: bin counts + overflow == samples", 'sum(b[2] for b in d["cpus"][0]["histogram"]["bins"]) + d["cpus"][0]["histogram"]["overflow"] == d["cpus"][0]["samples"]',
  '(sum(b[2] for b in d["cpus"][0]["histogram"]["bins"]), d["cpus"][0]["histogram"]["overflow"], d["cpus"][0]["samples"])')
t("histogram: the max falls in the last bin", 'd["cpus"][0]["histogram"]["bins"][-1][0] <= d["cpus"][0]["latency_ns"]["max"] <= d["cpus"][0]["histogram"]["bins"][-1][1]', '(d["cpus"][0]["histogram"]["bins"][-1], d["cpus"][0]["latency_ns"]["max"])')
EOF

pyt "$J" csv="$S" hist="$H" <<'EOF'
c = d["cpus"][0]
t("no ring drops (ring_drops == 0)", 'c.get("ring_drops", 0) == 0 and d["all"].get("ring_drops", 0) == 0', 'c.get("ring_drops")')
hdr, rows = read_csv(v["csv"])
t("samples CSV header is cpu,t_ns,latency_ns", 'hdr == ["cpu", "t_ns", "latency_ns"]', 'hdr')
t("samples CSV has exactly `samples` rows", 'len(rows) == c["samples"]', '(len(rows), c["samples"])')
t("samples CSV rows are all CPU 1, in time order", 'all(r[0] == 1 for r in rows) and all(a[1] <= b[1] for a, b in zip(rows, rows[1:]))')
t("samples CSV max latency == latency_ns.max exactly", 'max(r[2] for r in rows) == c["latency_ns"]["max"]', '(max(r[2] for r in rows), c["latency_ns"]["max"])')
t("samples CSV min latency == latency_ns.min exactly", 'min(r[2] for r in rows) == c["latency_ns"]["min"]', '(min(r[2] for r in rows), c["latency_ns"]["min"])')
with open(v["hist"]) as f:
    h = f.read().splitlines()
t("histogram file starts with '# Histogram'", 'h[0] == "# Histogram"', 'h[:1]')
t("histogram file has 1000 rows '%06d %06d' numbered 0..999",
  'all(re.fullmatch(r"\\d{6} \\d{6}", x) and int(x[:6]) == i for i, x in enumerate(h[1:1001])) and not re.fullmatch(r"\\d+ .*", h[1001])',
  '[x for x in h[1:1002] if not re.fullmatch(r"\\d{6} \\d{6}", x)][:3]')
want = ["# Total:", "# Min Latencies:", "# Avg Latencies:", "# Max Latencies:", "# Histogram Overflows:", "# Histogram Overflow at cycle number:"]
t("histogram file trailer lines, in cyclictest order", '[x for w, x in zip(want, h[1001:1007]) if x.startswith(w)] == h[1001:1007] and len(h) >= 1007', 'h[1001:1008]')
def field(prefix):
    return int([x for x in h if x.startswith(prefix)][0].split(":")[1].split()[0])
t("histogram file: Total + Overflows == samples", 'field("# Total:") + field("# Histogram Overflows:") == c["samples"]', '(field("# Total:"), field("# Histogram Overflows:"), c["samples"])')
t("histogram file: Total == sum of the rows", 'field("# Total:") == sum(int(x.split()[1]) for x in h[1:1001])')
t("histogram file: Max Latencies == floor(max / 1 us)", 'field("# Max Latencies:") == c["latency_ns"]["max"] // 1000', '(field("# Max Latencies:"), c["latency_ns"]["max"])')
EOF

# --- -l: a fixed number of samples ---------------------------------------
"$JL" run -a 1 -l 500 -q --json "$T/l.json" --samples "$T/l.csv" 2>"$T/err"
rc=$?
rc_is "-l 500 exits 0" 0 $rc
inv "-l 500" "$T/l.json" --samples "$T/l.csv" --exit-code $rc
pyt "$T/l.json" <<'EOF'
t("-l 500 ends after exactly 500 samples", 'd["all"]["samples"] == 500 and d["cpus"][0]["samples"] == 500', '(d["all"]["samples"], d["cpus"][0]["samples"])')
EOF

# --- --report-every, by samples and by time ------------------------------
"$JL" run -a 1 -l 2000 --report-every 500samples -q --json "$T/re.json" --samples "$T/re.csv" 2>"$T/err"
rc=$?
rc_is "--report-every 500samples exits 0" 0 $rc
inv "--report-every 500samples" "$T/re.json" --samples "$T/re.csv" --exit-code $rc
pyt "$T/re.json" <<'EOF'
iv = [i for i in d.get("intervals") or [] if i["cpu"] == 1]
t("--report-every 500samples, -l 2000: 4 intervals", 'len(iv) == 4', '[(i["t_s"], i["samples"]) for i in iv]')
t("--report-every 500samples: each interval holds 500 samples", 'iv and all(i["samples"] == 500 for i in iv)', '[i["samples"] for i in iv]')
t("--report-every 500samples: intervals in time order, min <= mean <= max", 'all(a["t_s"] < b["t_s"] for a, b in zip(iv, iv[1:])) and all(i["min_ns"] <= i["mean_ns"] <= i["max_ns"] for i in iv)', 'iv')
EOF
"$JL" run -a 1 -D 2 --report-every 1s -q --json "$T/rt.json" --samples "$T/rt.csv" 2>"$T/err"
rc=$?
rc_is "--report-every 1s exits 0" 0 $rc
inv "--report-every 1s" "$T/rt.json" --samples "$T/rt.csv" --exit-code $rc
pyt "$T/rt.json" <<'EOF'
iv = [i for i in d.get("intervals") or [] if i["cpu"] == 1]
t("--report-every 1s, -D 2: 2 intervals for CPU 1", 'len(iv) == 2 and len(d["intervals"]) == 2', '[(i["cpu"], i["t_s"], i["samples"]) for i in d.get("intervals") or []]')
t("--report-every 1s: interval samples add up to the CPU's samples", 'sum(i["samples"] for i in iv) == d["cpus"][0]["samples"]', '([i["samples"] for i in iv], d["cpus"][0]["samples"])')
EOF

# --- --tolerance and --budget, from both sides ------------------------------
# The CSV recomputation (inv) pins over_tolerance exactly; the two ends pin
# the unit: below every value counts every sample, above every value none.
# "5" is a bare number, so microseconds.
for tolcase in "1ns 1" "5 5000" "10s 10000000000"; do
    set -- $tolcase
    "$JL" run -a 1 -D 1 --tolerance "$1" -q --json "$T/tol.json" --samples "$T/tol.csv" 2>"$T/err"
    rc=$?
    rc_is "--tolerance $1 exits 0" 0 $rc
    inv "--tolerance $1" "$T/tol.json" --samples "$T/tol.csv" --tolerance-ns "$2" --exit-code $rc
    case $1 in
    1ns) pyt "$T/tol.json" <<'EOF'
c = d["cpus"][0]
t("--tolerance 1ns (below every latency): over_tolerance == samples", 'c["latency_ns"]["over_tolerance"] == c["samples"] > 0', '(c["latency_ns"]["over_tolerance"], c["samples"])')
EOF
        ;;
    10s) pyt "$T/tol.json" <<'EOF'
c = d["cpus"][0]
t("--tolerance 10s (above every value): over_tolerance == 0", 'c["latency_ns"]["over_tolerance"] == 0 and c["samples"] > 0', '(c["latency_ns"]["over_tolerance"], c["samples"])')
EOF
        ;;
    esac
done
# A budget below every latency must fail the run (3), one far above every
# latency must pass it (0), and 10ms must decide by the measured max; bare
# numbers are microseconds. inv recomputes the expected status from the
# document's max and budget_ns.
for budcase in "1ns 1 3" "10s 10000000000 0" "10ms 10000000 -" "500 500000 -"; do
    set -- $budcase
    "$JL" run -a 1 -D 1 --budget "$1" -q --json "$T/bud.json" --samples "$T/bud.csv" 2>"$T/err"
    rc=$?
    [ "$3" != - ] && rc_is "--budget $1 exits $3" "$3" $rc
    [ "$rc" -eq 3 ] && check "--budget $1: stderr says the budget was exceeded" grep -q 'budget exceeded' "$T/err"
    [ "$rc" -eq 0 ] && check "--budget $1: stderr is silent about the budget" sh -c '! grep -q budget "$1"' sh "$T/err"
    inv "--budget $1" "$T/bud.json" --samples "$T/bud.csv" --budget-ns "$2" --exit-code $rc
    pyt "$T/bud.json" budget="$1" <<'EOF'
t("--budget " + str(v["budget"]) + ": the complete JSON is written", 'd["kind"] == "run" and d["interrupted"] is False and d["all"]["samples"] > 0')
EOF
done

# --- two CPUs: "all" is the merge of CPUs 0 and 1 ----------------------------
# SCHED_FIFO stays off CPU 0 (housekeeping), so this run is SCHED_OTHER.
"$JL" run --policy other -a 0-1 -i 1ms -D 1 --tolerance 200us --report-every 250ms \
    --json "$T/two.json" --samples "$T/two.csv" --histogram-file "$T/two.hist" --histogram-max 300us \
    </dev/null >"$T/two.out" 2>"$T/err"
rc=$?
rc_is "--policy other -a 0-1 exits 0" 0 $rc
pyt "$T/two.json" <<'EOF'
t("two CPUs: cpus[] holds CPUs 0 and 1", '[c["cpu"] for c in d["cpus"]] == [0, 1] and all(c["samples"] > 0 for c in d["cpus"])', '[(c["cpu"], c["samples"]) for c in d["cpus"]]')
EOF
inv "two CPUs" "$T/two.json" --samples "$T/two.csv" --hist "$T/two.hist" --text "$T/two.out" --tolerance-ns 200000 --exit-code $rc

# --- histogram file as cyclictest -h writes it: PM QoS line, overflow list cut at the rows
"$JL" run -a 1 -i 1ms -D 0.5 -q --pm-qos 0us --histogram-max 2us \
    --json "$T/pmh.json" --samples "$T/pmh.csv" --histogram-file "$T/pmh.hist" >"$T/out" 2>"$T/err"
rc=$?
rc_is "--pm-qos 0us --histogram-max 2us exits 0" 0 $rc
inv "PM QoS and 2 rows" "$T/pmh.json" --samples "$T/pmh.csv" --hist "$T/pmh.hist" --exit-code $rc

# --- --clock tsc (needs what `jitterlab tsc` calls safe on CPU 1) ---------
"$JL" tsc -a 1 -D 0.2 -q --json "$T/tsc-check.json" 2>/dev/null
tsc_verdict=$(jget "$T/tsc-check.json" 'd["verdict"]["clock_tsc"]' 2>/dev/null)
if [ "$tsc_verdict" = unsafe ]; then
    "$JL" run -a 1 -D 1 --clock tsc -q --json "$T/tsc.json" 2>"$T/err"
    rc_is "--clock tsc where jitterlab tsc says unsafe: exits 2" 2 $?
    check "--clock tsc where unsafe: refused, with the reason" grep -q -- '--clock tsc: refused: ' "$T/err"
    check "--clock tsc where unsafe: no output file" test ! -e "$T/tsc.json"
elif [ "$tsc_verdict" = safe ]; then
    "$JL" run -a 1 -D 1 --clock tsc -q --json "$T/tsc.json" --samples "$T/tsc.csv" 2>"$T/err"
    rc=$?
    rc_is "--clock tsc exits 0" 0 $rc
    inv "--clock tsc" "$T/tsc.json" --samples "$T/tsc.csv" --exit-code $rc
    pyt "$T/tsc.json" planned=1000 <<'EOF'
t("--clock tsc: config.clock is tsc", 'd["config"]["clock"] == "tsc"', 'd["config"].get("clock")')
t("--clock tsc: samples + missed == 1000 +- 1%", 'abs(d["all"]["samples"] + d["all"]["missed"] - v["planned"]) <= v["planned"] // 100', '(d["all"]["samples"], d["all"]["missed"])')
L = 'd["all"]["latency_ns"]'
t("--clock tsc: min <= p50 <= p99 <= max", L + '["min"] <= ' + L + '["p50"] <= ' + L + '["p99"] <= ' + L + '["max"]', L)
EOF
else
    ok "--clock tsc # SKIP jitterlab tsc gave no verdict"
fi

# --- --version, help ------------------------------------------------------
"$JL" --version >"$T/out" 2>"$T/err"
rc_is "--version exits 0" 0 $?
ver=$(jget "$J" 'd["version"]' 2>/dev/null)
check "--version prints jitterlab and the document's version" sh -c 'grep -q "^jitterlab" "$1" && [ -n "$2" ] && grep -qF -- "$2" "$1"' sh "$T/out" "$ver"
"$JL" help run >"$T/out" 2>"$T/err"
rc_is "help run exits 0" 0 $?
check "help run documents --interval" grep -q -- --interval "$T/out"

# --- the text summary without a terminal ----------------------------------
"$JL" run -a 1 -D 1 --histogram-file "$T/text.hist" --json "$T/text.json" --samples "$T/text.csv" </dev/null >"$T/out" 2>"$T/err"
rc=$?
rc_is "run without a terminal and without -q exits 0" 0 $rc
check "the summary table has a p99.9 column" grep -q 'p99\.9' "$T/out"
inv "printed summary" "$T/text.json" --samples "$T/text.csv" --hist "$T/text.hist" --text "$T/out" --exit-code $rc

# --- without privileges: SCHED_OTHER, one loud warning ---------------------
case $JL in /*) jl=$JL ;; *) jl=$PWD/$JL ;; esac # the run below starts elsewhere
if ! is_root; then
    ok "unprivileged run # SKIP not root (setpriv needs root)"
elif ! command -v setpriv >/dev/null 2>&1; then
    ok "unprivileged run # SKIP no setpriv"
elif ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$jl"; then
    ok "unprivileged run # SKIP $jl is not executable by uid 65534"
else
    chmod 711 "$T" # let uid 65534 reach (not list) its own directory inside
    U=$T/nobody
    mkdir "$U" && chmod 777 "$U"
    (cd "$U" && setpriv --reuid=65534 --regid=65534 --clear-groups \
        "$jl" run -a 1 -D 1 --json "$U/n.json" --samples "$U/n.csv") >"$T/out" 2>"$T/err"
    rc=$?
    rc_is "unprivileged run exits 0" 0 $rc
    # the header names the policy the threads got, not the one asked for
    check "unprivileged run: the header says SCHED_OTHER and what was refused" \
        grep -q '^jitterlab run: CPU 1, interval 1 ms, SCHED_OTHER (SCHED_FIFO 90 refused: not permitted), ' "$T/out"
    inv "unprivileged run" "$U/n.json" --samples "$U/n.csv" --exit-code $rc
    lines=$(grep -c 'not real-time' "$T/err")
    if [ "$lines" -eq 1 ]; then ok "unprivileged run warns exactly once: not real-time"; else not_ok "unprivileged run warns exactly once: not real-time" "$lines matching lines" "$(head -5 "$T/err")"; fi
    pyt "$U/n.json" <<'EOF'
t("unprivileged run: config.realtime is false", 'd["config"]["realtime"] is False', 'd["config"].get("realtime")')
t("unprivileged run: samples + missed == 1000 +- 1%", 'abs(d["all"]["samples"] + d["all"]["missed"] - 1000) <= 10', '(d["all"]["samples"], d["all"]["missed"])')
EOF
fi
