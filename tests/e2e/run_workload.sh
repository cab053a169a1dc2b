#!/bin/sh
# jitterlab run --workload / --deadline / --counters / --seed, end to end, on
# CPU 1. Checked:
#   ptrchase: the same number of steps over 64 MiB takes more than twice as
#     long (exec_ns p50) as over 16 KiB (cache misses vs L1 hits);
#   spin:200us: exec_ns.min (the least disturbed cycle: noise only adds)
#     within 50%..150% of 200 us, up to 3 attempts; the tighter accuracy
#     figure belongs to bench/, not to a test;
#   --deadline: spin 300 us against a 100 us deadline misses every cycle;
#     spin 100 us against 900 us misses < 1% (up to 3 attempts), and
#     deadline_misses is exactly the number of CSV rows whose latency +
#     exec exceeds the deadline;
#   invariants of every run (inv, helpers/invariants.py): exec_ns and
#     response_ns statistics and histograms recomputed from the CSV's
#     latency_ns and exec_ns columns (response from their sum, not from the
#     CSV's own response column), missed periods from each cycle's end,
#     percentile order, all.* == the merge over CPUs;
#   software counters: a SCHED_FIFO 95 spinner on CPU 1 preempts a 600 us
#     workload, so context_switches.total > 0 (root only); without it, a
#     50 us workload sees fewer context switches than cycles (the sleep is
#     not counted);
#   --counters all without a PMU: exit 0, hardware.available false with a
#     reason, no llc_misses/ipc, one stderr line about the PMU (with a PMU:
#     llc_misses and ipc present);
#   the samples CSV columns (exec_ns, response_ns, llc_misses, ipc,
#     context_switches) and their agreement with the JSON;
#   config.workload / config.seed / config.deadline_ns / config.counters;
#   one meaning for deadline misses: without --workload or --deadline no
#     output (text, JSON, intervals CSV, InfluxDB, /metrics) has a count;
#     spin 300 us against a 100 us deadline: every output has the same one;
#   bad --workload / --deadline / --counters: exit 2, named on stderr, no file.
# Only properties that hold on any machine are asserted. About 15 s.
. "$(dirname "$0")/lib.sh"
: "${JL_TOP:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${JL_BUILD:=$(dirname "$JL")}"

# jl ARGS...: jitterlab run, bounded, stderr to $T/err
jl() { timeout -s KILL 30 "$JL" run "$@" 2>"$T/err"; }

# Invariants every workload run must satisfy; used as inv(LABEL) inside the
# check blocks below (exec'd from the file, see INV=...).
INV=$T/inv.py
cat >"$INV" <<'EOF'
statk = ["min", "mean", "stddev", "max", "p50", "p90", "p99", "p999", "p9999", "histogram"]
def inv(label):
    for where in ('d["cpus"][0]', 'd["all"]'):
        who = label + (": cpu 1" if "cpus" in where else ": all")
        t(who + " has exec_ns, response_ns, deadline_misses",
          'all(k in ' + where + ' for k in ("exec_ns", "response_ns", "deadline_misses")) and type(' + where + '["deadline_misses"]) is int',
          'sorted(' + where + ')')
        for s in ("exec_ns", "response_ns"):
            S = where + '["' + s + '"]'
            if "cpus" in where:
                t(who + ": " + s + " has the fixed fields", 'not [k for k in statk if k not in ' + S + ']', '[k for k in statk if k not in ' + S + ']')
            t(who + ": " + s + " min <= p50 <= p90 <= p99 <= p999 <= max, min <= mean <= max",
              S + '["min"] <= ' + S + '["p50"] <= ' + S + '["p90"] <= ' + S + '["p99"] <= ' + S + '["p999"] <= ' + S + '["max"] and '
              + S + '["min"] <= ' + S + '["mean"] <= ' + S + '["max"] and ' + S + '["stddev"] >= 0',
              '[' + S + '.get(k) for k in ("min", "p50", "p90", "p99", "p999", "max", "mean")]')
        L, E, R = where + '["latency_ns"]', where + '["exec_ns"]', where + '["response_ns"]'
        t(who + ": exec_ns.min >= 0", E + '["min"] >= 0', E + '["min"]')
        t(who + ": response_ns.min >= latency_ns.min", R + '["min"] >= ' + L + '["min"]', '(' + R + '["min"], ' + L + '["min"])')
        t(who + ": response_ns.max <= latency_ns.max + exec_ns.max + 1", R + '["max"] <= ' + L + '["max"] + ' + E + '["max"] + 1',
          '(' + R + '["max"], ' + L + '["max"], ' + E + '["max"])')
        t(who + ": 0 <= deadline_misses <= samples", '0 <= ' + where + '["deadline_misses"] <= ' + where + '["samples"]',
          '(' + where + '["deadline_misses"], ' + where + '["samples"])')
    c = 'd["cpus"][0]'
    for s in ("exec_ns", "response_ns"):
        H = c + '["' + s + '"]["histogram"]'
        t(label + ": cpu 1: " + s + " histogram is {unit, bins, overflow}", 'isinstance(' + H + '["unit"], str) and isinstance(' + H + '["bins"], list) and type(' + H + '["overflow"]) is int', H)
        t(label + ": cpu 1: " + s + " histogram bin counts + overflow == samples",
          'sum(b[2] for b in ' + H + '["bins"]) + ' + H + '["overflow"] == ' + c + '["samples"]',
          '(sum(b[2] for b in ' + H + '["bins"]), ' + H + '["overflow"], ' + c + '["samples"])')
    t(label + ": all.deadline_misses is the sum over CPUs", 'd["all"]["deadline_misses"] == sum(x["deadline_misses"] for x in d["cpus"])',
      '(d["all"]["deadline_misses"], [x["deadline_misses"] for x in d["cpus"]])')
    t(label + ": all.exec_ns min/max span the CPUs'", 'd["all"]["exec_ns"]["min"] == min(x["exec_ns"]["min"] for x in d["cpus"]) and d["all"]["exec_ns"]["max"] == max(x["exec_ns"]["max"] for x in d["cpus"])')
# read_csv_raw(path) -> (header, rows as lists of strings): fields may be empty or floats
def read_csv_raw(path):
    with open(path) as f:
        lines = f.read().splitlines()
    return (lines[0].split(",") if lines else []), [x.split(",") for x in lines[1:]]
EOF

# --- 9 and the defaults: no --workload -------------------------------------
jl -a 1 -i 1ms -l 100 -q --json "$T/none.json" --samples "$T/none.csv"
rc=$?
rc_is "no --workload: exits 0" 0 $rc
inv "no --workload" "$T/none.json" --samples "$T/none.csv" --exit-code $rc
pyt "$T/none.json" csv="$T/none.csv" <<'EOF'
t("no --workload: config.workload is null", 'd["config"]["workload"] is None', 'd["config"].get("workload")')
t("no --counters: config.counters is null", '"counters" in d["config"] and d["config"]["counters"] is None', 'd["config"].get("counters", "absent")')
t("no --counters: cpus[0] has no counters", 'd["cpus"][0].get("counters") is None', 'd["cpus"][0].get("counters")')
t("no --workload, no --deadline: no deadline (config.deadline_ns null)", 'd["config"]["deadline_ns"] is None', 'd["config"].get("deadline_ns", "absent")')
t("no deadline: deadline_misses null per CPU and in all", 'd["cpus"][0]["deadline_misses"] is None and d["all"]["deadline_misses"] is None', '(d["cpus"][0].get("deadline_misses"), d["all"].get("deadline_misses"))')
hdr, rows = read_csv(v["csv"])
t("no --workload/--counters: samples CSV header stays cpu,t_ns,latency_ns", 'hdr == ["cpu", "t_ns", "latency_ns"]', 'hdr')
EOF

jl -a 1 -i 1ms -l 50 -q --workload ptrchase:1MiB:1000 --seed 7 --deadline 500 --json "$T/seed.json" --samples "$T/seed.csv"
rc=$?
rc_is "--workload ptrchase:1MiB:1000 --seed 7 --deadline 500: exits 0" 0 $rc
inv "ptrchase:1MiB --deadline 500" "$T/seed.json" --samples "$T/seed.csv" --exit-code $rc
pyt "$T/seed.json" <<'EOF'
w = d["config"]["workload"]
t("config.workload has kind, spec, size_bytes, steps, spin_ns, seed", 'isinstance(w, dict) and not [k for k in ("kind", "spec", "size_bytes", "steps", "spin_ns", "seed") if k not in w]', 'w')
t("config.workload.kind is ptrchase", 'w["kind"] == "ptrchase"', 'w.get("kind")')
t("config.workload.spec is a non-empty string", 'isinstance(w["spec"], str) and w["spec"] != ""', 'w.get("spec")')
t("config.workload.size_bytes is 1048576", 'w["size_bytes"] == 1048576 and type(w["size_bytes"]) is int', 'w.get("size_bytes")')
t("config.workload.steps is 1000", 'w["steps"] == 1000', 'w.get("steps")')
t("config.workload.seed is 7", 'w["seed"] == 7', 'w.get("seed")')
t("config.seed is 7", 'd["config"]["seed"] == 7', 'd["config"].get("seed")')
t("--deadline 500 (bare number: us): config.deadline_ns == 500000", 'd["config"]["deadline_ns"] == 500000', 'd["config"].get("deadline_ns")')
t("ptrchase 1MiB: all.samples == 50", 'd["all"]["samples"] == 50', 'd["all"]["samples"]')
EOF

# --- 1: ptrchase, L1-resident vs far beyond any cache ----------------------
jl -a 1 -i 2ms -l 300 -q --workload ptrchase:16KiB:20000 --json "$T/pcA.json" --samples "$T/pcA.csv"
rc=$?
rc_is "ptrchase:16KiB:20000 exits 0" 0 $rc
inv "ptrchase:16KiB" "$T/pcA.json" --samples "$T/pcA.csv" --exit-code $rc
jl -a 1 -i 2ms -l 300 -q --workload ptrchase:64MiB:20000 --json "$T/pcB.json" --samples "$T/pcB.csv"
rc=$?
rc_is "ptrchase:64MiB:20000 exits 0" 0 $rc
inv "ptrchase:64MiB" "$T/pcB.json" --samples "$T/pcB.csv" --exit-code $rc
pyt "$T/pcA.json" inv="$INV" <<'EOF'
exec(open(v["inv"]).read())
w = d["config"]["workload"]
t("ptrchase 16KiB: config.workload size_bytes 16384, steps 20000", 'w["kind"] == "ptrchase" and w["size_bytes"] == 16384 and w["steps"] == 20000', 'w')
t("ptrchase 16KiB: 300 samples", 'd["all"]["samples"] == 300', 'd["all"]["samples"]')
inv("ptrchase 16KiB")
EOF
pyt "$T/pcB.json" inv="$INV" other="$T/pcA.json" <<'EOF'
exec(open(v["inv"]).read())
a = json.load(open(v["other"]))
w = d["config"]["workload"]
t("ptrchase 64MiB: config.workload size_bytes 67108864, steps 20000", 'w["kind"] == "ptrchase" and w["size_bytes"] == 67108864 and w["steps"] == 20000', 'w')
t("ptrchase 64MiB: 300 samples", 'd["all"]["samples"] == 300', 'd["all"]["samples"]')
inv("ptrchase 64MiB")
pa, pb = a["cpus"][0]["exec_ns"]["p50"], d["cpus"][0]["exec_ns"]["p50"]
note("ptrchase exec_ns p50: 16KiB %s ns (%.2f ns/step), 64MiB %s ns (%.2f ns/step), ratio %.1f"
     % (pa, pa / 20000, pb, pb / 20000, pb / pa if pa else float("inf")))
t("ptrchase: 64MiB exec_ns p50 > 2 x 16KiB exec_ns p50", 'pb > 2 * pa', '(pb, pa)')
EOF

# --- 2: spin:200us takes about 200 us (up to 3 attempts) ----------------------
# Interference only lengthens a cycle, so the shortest one shows the
# calibration; a calibration off by half is a bug on any machine.
best=""
for try in 1 2 3; do
    jl -a 1 -i 1ms -l 500 -q --workload spin:200us --json "$T/spin.json" --samples "$T/spin.csv"
    rc=$?
    min=$(jget "$T/spin.json" 'd["cpus"][0]["exec_ns"]["min"]' 2>/dev/null)
    p50=$(jget "$T/spin.json" 'd["cpus"][0]["exec_ns"]["p50"]' 2>/dev/null)
    echo "# spin:200us attempt $try: exit $rc, exec_ns min $min, p50 $p50"
    if [ "$rc" -eq 0 ] && python3 -c 'import sys; sys.exit(not 100000 <= float(sys.argv[1]) <= 300000)' "$min" 2>/dev/null; then
        best=$try
        break
    fi
done
rc_is "spin:200us exits 0" 0 "$rc"
if [ -n "$best" ]; then ok "spin:200us: exec_ns.min within 50%..150% of 200000 ns (attempt $best)"; else not_ok "spin:200us: exec_ns.min within 50%..150% of 200000 ns" "3 attempts, last min $min, p50 $p50"; fi
inv "spin:200us" "$T/spin.json" --samples "$T/spin.csv" --exit-code "$rc"
pyt "$T/spin.json" inv="$INV" csv="$T/spin.csv" <<'EOF'
exec(open(v["inv"]).read())
w = d["config"]["workload"]
t("spin:200us: config.workload kind spin, spin_ns 200000", 'w["kind"] == "spin" and w["spin_ns"] == 200000', 'w')
inv("spin:200us")
hdr, rows = read_csv(v["csv"])
t("--workload without --counters: CSV header cpu,t_ns,latency_ns,exec_ns,response_ns", 'hdr == ["cpu", "t_ns", "latency_ns", "exec_ns", "response_ns"]', 'hdr')
t("spin:200us CSV: one row per sample", 'len(rows) == d["all"]["samples"]', '(len(rows), d["all"]["samples"])')
EOF

# --- 3: deadlines --------------------------------------------------------------
jl -a 1 -i 1ms -l 300 -q --workload spin:300us --deadline 100us --json "$T/dl1.json" --samples "$T/dl1.csv"
rc=$?
rc_is "spin:300us --deadline 100us exits 0" 0 $rc
inv "spin:300us --deadline 100us" "$T/dl1.json" --samples "$T/dl1.csv" --exit-code $rc
pyt "$T/dl1.json" inv="$INV" <<'EOF'
exec(open(v["inv"]).read())
t("--deadline 100us: config.deadline_ns == 100000", 'd["config"]["deadline_ns"] == 100000', 'd["config"].get("deadline_ns")')
t("spin:300us, deadline 100us: 300 samples", 'd["all"]["samples"] == 300', 'd["all"]["samples"]')
t("spin:300us, deadline 100us: deadline_misses == samples", 'd["cpus"][0]["deadline_misses"] == d["cpus"][0]["samples"]', '(d["cpus"][0]["deadline_misses"], d["cpus"][0]["samples"])')
inv("spin:300us deadline 100us")
EOF
# A miss needs a wake-up 800 us late, which a stalled VM produces now and
# then (14 in 1000 seen on a busy CI host).  No rate is asserted: the count
# must equal the CSV rows over the deadline, and on-time rows must exist.
for try in 1 2 3; do
    jl -a 1 -i 1ms -l 1000 -q --workload spin:100us --deadline 900us --json "$T/dl2.json" --samples "$T/dl2.csv"
    rc=$?
    misses=$(jget "$T/dl2.json" 'd["cpus"][0]["deadline_misses"]' 2>/dev/null)
    echo "# spin:100us --deadline 900us attempt $try: exit $rc, deadline_misses $misses"
    [ "$rc" -eq 0 ] && [ "${misses:-1000}" -lt 1000 ] && break
done
rc_is "spin:100us --deadline 900us exits 0" 0 $rc
inv "spin:100us --deadline 900us" "$T/dl2.json" --samples "$T/dl2.csv" --exit-code $rc
pyt "$T/dl2.json" inv="$INV" csv="$T/dl2.csv" <<'EOF'
exec(open(v["inv"]).read())
c = d["cpus"][0]
t("--deadline 900us: config.deadline_ns == 900000", 'd["config"]["deadline_ns"] == 900000', 'd["config"].get("deadline_ns")')
note("spin:100us, deadline 900us: %d misses in %d samples; response p99 %s ns, max %s ns"
     % (c["deadline_misses"], c["samples"], c["response_ns"]["p99"], c["response_ns"]["max"]))
t("spin:100us, deadline 900us: on-time samples are not misses (deadline_misses < samples)", 'c["deadline_misses"] < c["samples"]', '(c["deadline_misses"], c["samples"])')
hdr, rows = read_csv(v["csv"])
over = sum(1 for r in rows if r[2] + r[3] > d["config"]["deadline_ns"])
note("of those, latency_ns > 800 us: %d; exec_ns > 800 us: %d; exec_ns > 200 us in all rows: %d"
     % (sum(1 for r in rows if r[4] > 900000 and r[2] > 800000), sum(1 for r in rows if r[4] > 900000 and r[3] > 800000), sum(1 for r in rows if r[3] > 200000)))
t("deadline_misses == CSV rows with latency_ns + exec_ns > deadline_ns", 'len(rows) == c["samples"] and over == c["deadline_misses"]', '(over, c["deadline_misses"], len(rows))')
inv("spin:100us deadline 900us")
EOF

# --- 5: software counters see preemption by a higher-priority spinner --------
SPIN=$JL_BUILD/tests/spinner
if ! is_root; then
    ok "context switches under a SCHED_FIFO 95 spinner # SKIP not root"
elif [ ! -x "$SPIN" ]; then
    not_ok "context switches: spinner helper is built" "$SPIN missing: run make tests"
else
    # spinner: 2 ms every 7.3 ms at FIFO 95 for 6 s (hard stop at 7 s);
    # jitterlab at FIFO 90 runs a 600 us workload every 1 ms for 4 s.
    timeout -s KILL 20 "$SPIN" 1 95 2000 7300 6 >"$T/spin.out" 2>"$T/spin.err" &
    spin_pid=$!
    jl -a 1 -i 1ms -D 4 -q --workload spin:600us --counters context-switches --json "$T/cs.json" --samples "$T/cs.csv"
    jl_rc=$?
    wait "$spin_pid"
    spin_rc=$?
    if [ "$spin_rc" -eq 77 ]; then
        ok "context switches under a SCHED_FIFO 95 spinner # SKIP SCHED_FIFO not permitted here"
    else
        if [ "$spin_rc" -eq 0 ]; then ok "spinner ran ($(cat "$T/spin.out") injections)"; else not_ok "spinner ran" "exit status $spin_rc" "$(tail -3 "$T/spin.err")"; fi
        rc_is "--counters context-switches beside the spinner exits 0" 0 "$jl_rc"
        inv "context switches beside the spinner" "$T/cs.json" --samples "$T/cs.csv" --exit-code "$jl_rc"
        pyt "$T/cs.json" <<'EOF'
c = d["cpus"][0]
k = c.get("counters") or {}
cs = k.get("context_switches") or {}
note("beside the spinner: samples %s, missed %s, context_switches %s, deadline_misses %s" % (c["samples"], c["missed"], cs, c.get("deadline_misses")))
t("--counters context-switches: config.counters names one counter", 'isinstance(d["config"]["counters"], list) and len(d["config"]["counters"]) == 1 and d["config"]["counters"][0].replace("_", "-") == "context-switches"', 'd["config"].get("counters")')
t("--counters context-switches: counters.hardware {available, reason}", 'type(k["hardware"]["available"]) is bool and "reason" in k["hardware"]', 'k.get("hardware")')
t("--counters context-switches: context_switches {total, max_per_cycle} are integers", 'type(cs["total"]) is int and type(cs["max_per_cycle"]) is int', 'cs')
t("--counters context-switches: only that software counter is reported", '"cpu_migrations" not in k and "page_faults" not in k', 'sorted(k)')
t("beside the spinner: context_switches.total > 0", 'cs["total"] > 0', 'cs')
t("beside the spinner: 1 <= max_per_cycle <= total", '1 <= cs["max_per_cycle"] <= cs["total"]', 'cs')
EOF
    fi
fi

# --- 6 and 7: --counters all (no PMU here) and the full samples CSV ------------
jl -a 1 -i 1ms -l 200 -q --workload spin:50us --counters all --json "$T/all.json" --samples "$T/all.csv"
rc=$?
rc_is "--counters all exits 0" 0 $rc
inv "--counters all" "$T/all.json" --samples "$T/all.csv" --exit-code $rc
pmu_lines=$(grep -ci pmu "$T/err")
pmu_avail=$(jget "$T/all.json" 'd["cpus"][0]["counters"]["hardware"]["available"]' 2>/dev/null)
echo "# --counters all: hardware.available = $pmu_avail; stderr: $(head -3 "$T/err" | tr '\n' '|')"
if [ "$pmu_avail" = False ]; then
    if [ "$pmu_lines" -eq 1 ]; then ok "no PMU: stderr mentions the PMU on exactly one line"; else not_ok "no PMU: stderr mentions the PMU on exactly one line" "$pmu_lines lines match /pmu/i" "$(head -5 "$T/err")"; fi
else
    ok "no PMU: stderr mentions the PMU once # SKIP hardware.available is $pmu_avail"
fi
pyt "$T/all.json" inv="$INV" csv="$T/all.csv" <<'EOF'
exec(open(v["inv"]).read())
c = d["cpus"][0]
k = c.get("counters") or {}
hw = k.get("hardware") or {}
names = ["cycles", "instructions", "llc-misses", "context-switches", "cpu-migrations", "page-faults"]
t("--counters all: config.counters lists the six counters", 'isinstance(d["config"]["counters"], list) and sorted(x.replace("_", "-") for x in d["config"]["counters"]) == sorted(names)', 'd["config"].get("counters")')
t("--counters all: counters.hardware.available is a boolean", 'type(hw["available"]) is bool', 'hw')
if hw.get("available") is False:
    t("no PMU: hardware.reason is a non-empty string", 'isinstance(hw["reason"], str) and hw["reason"].strip() != ""', 'hw')
    t("no PMU: no llc_misses or ipc in counters", '"llc_misses" not in k and "ipc" not in k', 'sorted(k)')
else:
    pk = ("min", "mean", "p99", "max")
    t("PMU: llc_misses and ipc are {min, mean, p99, max}", 'all(all(x in k[n] for x in pk) for n in ("llc_misses", "ipc"))', '(k.get("llc_misses"), k.get("ipc"))')
    t("PMU: llc_misses and ipc: min <= mean <= max, min <= p99 <= max", 'all(k[n]["min"] <= k[n]["mean"] <= k[n]["max"] and k[n]["min"] <= k[n]["p99"] <= k[n]["max"] for n in ("llc_misses", "ipc"))', '(k.get("llc_misses"), k.get("ipc"))')
for n in ("context_switches", "cpu_migrations", "page_faults"):
    t("--counters all: " + n + " {total, max_per_cycle}, 0 <= max_per_cycle <= total",
      'type(k["' + n + '"]["total"]) is int and 0 <= k["' + n + '"]["max_per_cycle"] <= k["' + n + '"]["total"]', 'k.get("' + n + '")')
note("--counters all, spin:50us, no interference: %s" % {n: k.get(n) for n in ("context_switches", "cpu_migrations", "page_faults")})
t("only the active part is counted: context_switches.total < samples / 2", 'k["context_switches"]["total"] < c["samples"] / 2', '(k["context_switches"], c["samples"])')
inv("spin:50us counters all")
hdr, rows = read_csv_raw(v["csv"])
want = ["cpu", "t_ns", "latency_ns", "exec_ns", "response_ns", "llc_misses", "ipc", "context_switches"]
t("--counters all: CSV header " + ",".join(want), 'hdr == want', 'hdr')
t("--counters all: CSV has 200 rows of 8 fields", 'len(rows) == 200 == c["samples"] and all(len(r) == 8 for r in rows)', '(len(rows), c["samples"], [r for r in rows if len(r) != 8][:2])')
ints = [[int(x) for x in r[:5]] for r in rows if len(r) == 8]
t("CSV: exec_ns > 0 in every row", 'ints and all(r[3] > 0 for r in ints)', '[r for r in ints if r[3] <= 0][:3]')
t("CSV: response_ns column == the JSON's response_ns min and max (kept by the engine)", 'ints and min(r[4] for r in ints) == c["response_ns"]["min"] and max(r[4] for r in ints) == c["response_ns"]["max"]',
  '(min(r[4] for r in ints), max(r[4] for r in ints), c["response_ns"]["min"], c["response_ns"]["max"])')
csw = [r[7] for r in rows if len(r) == 8]
t("CSV: context_switches is an integer in every row", 'csw and all(re.fullmatch(r"\\d+", x) for x in csw)', '[x for x in csw if not re.fullmatch(r"\\d+", x)][:3]')
t("CSV: context_switches adds up to counters.context_switches.total, max == max_per_cycle",
  'sum(map(int, csw)) == k["context_switches"]["total"] and max(map(int, csw)) == k["context_switches"]["max_per_cycle"]',
  '(sum(map(int, csw)), max(map(int, csw)), k.get("context_switches"))')
if hw.get("available") is False:
    t("no PMU: CSV llc_misses and ipc fields are empty", 'all(r[5] == "" and r[6] == "" for r in rows if len(r) == 8)', '[r for r in rows if len(r) == 8 and (r[5] or r[6])][:3]')
else:
    t("PMU: CSV llc_misses integers and ipc numbers", 'all(re.fullmatch(r"\\d+", r[5]) and float(r[6]) >= 0 for r in rows if len(r) == 8)')
EOF

# --- 8: bad input ----------------------------------------------------------
bad "--workload bogus" '--workload' -a 1 -l 10 -q --json @OUT@ --workload bogus
bad "--workload spin (no duration)" '--workload' -a 1 -l 10 -q --json @OUT@ --workload spin
bad "--workload ptrchase:abc" '--workload' -a 1 -l 10 -q --json @OUT@ --workload ptrchase:abc
bad "--deadline 0" '--deadline' -a 1 -l 10 -q --json @OUT@ --deadline 0
bad "--counters bogus" '--counters' -a 1 -l 10 -q --json @OUT@ --counters bogus

# --- the per-second lines of a pipe carry the control task's figures -------------
jl -a 1 -i 1ms -D 1.1 --workload spin:100us --json "$T/live.json" >"$T/live.out"
rc_is "a 1.1 s workload run in a pipe exits 0" 0 $?
pyt "$T/live.json" out="$T/live.out" <<'PY'
lines = [l for l in open(v["out"]) if l.startswith("t=")]
t("pipe: one line per second with the control task's figures", 'len(lines) == 1 and all(k in lines[0] for k in ("exec_mean=", "exec_p99=", "exec_max=", "dl_miss="))', 'lines')
f = dict(kv.split("=", 1) for kv in lines[0].split()[1:])
t("pipe: every figure is labelled with its unit", 'all(f[k].endswith("us") for k in ("min", "mean", "p99", "max", "exec_mean", "exec_p99", "exec_max"))', 'f')
t("pipe: exec_mean <= exec_p99 <= exec_max (the running figures)", 'float(f["exec_mean"][:-2]) <= float(f["exec_max"][:-2]) and float(f["exec_p99"][:-2]) <= float(f["exec_max"][:-2]) + 0.001', 'f')
t("pipe: dl_miss <= samples", 'int(f["dl_miss"]) <= int(f["samples"])', 'f')
PY

# --- deadline misses: one meaning in every output -------------------------------
# dl NAME ARGS...: a 1.2 s run with every output that carries the figure, the
# exporter scraped while it goes on (a page's counters are published
# together, so a page agrees with itself).
dl() {
    name=$1; shift
    port=$(freeport)
    timeout -s KILL 30 "$JL" run -a 1 -i 1ms -D 1.2 --report-every 500ms --json "$T/$name.json" \
        --intervals "$T/$name.iv.csv" --influx "$T/$name.lp" --prometheus "127.0.0.1:$port" "$@" \
        >"$T/$name.out" 2>"$T/err" &
    pid=$!
    kill_on_exit $pid
    : >"$T/$name.page"
    # the page once the run has measured: a few scrapes, 0.1 s apart
    if wait_for 10 curl -sf "http://127.0.0.1:$port/metrics" -o "$T/$name.page"; then
        for _ in 1 2 3 4 5 6 7 8 9 10; do
            grep -q '^jitterlab_samples_total{cpu="1"} [1-9]' "$T/$name.page" && break
            sleep 0.1
            curl -sf "http://127.0.0.1:$port/metrics" -o "$T/$name.page"
        done
    fi
    wait $pid
}
dl nodl
rc_is "no --workload, every output: exits 0" 0 $?
dl spin --workload spin:300us --deadline 100us
rc_is "spin:300us --deadline 100us, every output: exits 0" 0 $?
check "the exporter answered both runs" [ -s "$T/nodl.page" -a -s "$T/spin.page" ]
inv "no deadline, every output" "$T/nodl.json" --text "$T/nodl.out"
inv "spin:300us deadline 100us, every output" "$T/spin.json" --text "$T/spin.out"
pyt "$T/spin.json" no="$T/nodl" yes="$T/spin" <<'PY'
import re
def outputs(base):
    page = open(base + ".page").read()
    lp = open(base + ".lp").read().splitlines()
    text = open(base + ".out").read()
    with open(base + ".iv.csv") as f:
        rows = [l.rstrip("\n").split(",") for l in f]
    return page, lp, text, rows
n = json.load(open(v["no"] + ".json"))
page, lp, text, rows = outputs(v["no"])
t("no deadline: JSON config, CPU, all and windows have no count", 'n["config"]["deadline_ns"] is None and n["cpus"][0]["deadline_misses"] is None and n["all"]["deadline_misses"] is None and all(w["deadline_misses"] is None for w in n["intervals"])', 'n["all"].get("deadline_misses")')
t("no deadline: /metrics has no jitterlab_deadline_misses family", '"jitterlab_deadline_misses" not in page and "jitterlab_samples_total{" in page', '[l for l in page.splitlines() if "deadline" in l]')
t("no deadline: no InfluxDB point has deadline_misses", 'lp and not [l for l in lp if "deadline_misses" in l]', 'lp[:2]')
t("no deadline: the terminal shows no dl-miss and no deadline", '"dl-miss" not in text and "dl_miss" not in text and "deadline" not in text', 'text')
t("no deadline: the intervals file has no deadline column", '"deadline_misses" not in rows[0]', 'rows[0]')
page, lp, text, rows = outputs(v["yes"])
c = d["cpus"][0]
t("spin 300 us, deadline 100 us: every cycle misses (JSON)", 'c["deadline_misses"] == c["samples"] > 0 and d["all"]["deadline_misses"] == c["samples"]', '(c["deadline_misses"], c["samples"])')
t("deadline: the windows add up to the run's count (JSON)", 'sum(w["deadline_misses"] for w in d["intervals"]) == c["deadline_misses"]', '[w["deadline_misses"] for w in d["intervals"]]')
k = rows[0].index("deadline_misses")
t("deadline: the intervals file adds up to the same count", 'sum(int(r[k]) for r in rows[1:]) == c["deadline_misses"]', '[r[k] for r in rows[1:]]')
infl = [int(m.group(1)) for l in lp for m in [re.search(r"deadline_misses=(\d+)i", l)] if m]
t("deadline: InfluxDB points add up to the same count", 'sum(infl) == c["deadline_misses"]', 'infl')
pm = dict(re.findall(r'^(jitterlab_(?:deadline_misses|samples)_total)\{cpu="1"\} (\S+)$', page, re.M))
t("deadline: /metrics counts a miss for every cycle scraped, as the run did", 'float(pm["jitterlab_deadline_misses_total"]) == float(pm["jitterlab_samples_total"]) > 0', 'pm')
t("deadline: the terminal names the deadline", '", deadline 100 us" in text', '[l for l in text.splitlines() if "deadline" in l]')
PY
