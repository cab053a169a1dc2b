#!/bin/sh
# runs beside others
# jitterlab report, end to end. Real results from short runs on CPU 1 (a
# plain one, one with a spin workload, as root one with --explain=1us, and
# as nobody one whose --explain falls back to the window method), an
# inspect document and, when `jitterlab compare` is there, its compare
# document; hand-made documents from helpers/report_docs.py (4 CPUs with
# 3600 windows each, hostile strings, every optional part missing, the
# window method, a compare document). Each page must be well-formed HTML
# whose inline SVGs parse as XML, hold every expected plot with lines in
# it, load nothing from outside the file, show the documents' own figures
# and escape every document string; --svg writes each plot as a file. Then
# headless Chromium renders the pages: the DOM holds the SVGs, no console
# error, a screenshot that is not blank, no element a hostile document
# tried to inject. Bad options and bad documents exit 2 with the option or
# file named, and write nothing. --group: synthetic runs whose first run
# differs from the others (helpers/mkrun.py) drawn as one result per step:
# the page's figures are every run's, and its p99 of the runs is the very
# figure of compare's verdict table. The tail analysis: a result carrying
# the `tail` of jitterlab tail has, in its CPU's section, the exceedance plot
# and the checks table; a tail document draws alone or with its result;
# hostile tail objects are refused. About 30 s.
. "$(dirname "$0")/lib.sh"
H=$JL_TOP/tests/e2e/helpers
LOCK=/tmp/jitterlab-cpu1.lock
measure() { flock "$LOCK" timeout -s KILL 60 "$@"; }

# --- real results ---------------------------------------------------------------
measure "$JL" run -a 1 -i 1ms -D 2s --report-every 500ms --json "$T/A.json" -q >"$T/a.out" 2>&1
rc_is "a plain run exits 0" 0 $?
measure "$JL" run -a 1 -i 1ms -D 2s --report-every 500ms --workload spin:100us \
    --json "$T/B.json" -q >"$T/b.out" 2>&1
rc_is "a run with a spin workload exits 0" 0 $?
results="$T/A.json $T/B.json"
labels="--label plain --label spin"
if is_root; then
    measure "$JL" run -a 1 -i 1ms -D 2s --report-every 500ms --explain=1us \
        --json "$T/C.json" -q >"$T/c.out" 2>&1
    rc_is "a run with --explain=1us exits 0" 0 $?
    results="$results $T/C.json"
    labels="$labels --label explain"
else
    ok "a run with --explain=1us # SKIP needs root"
fi
if is_root && command -v setpriv >/dev/null &&
    [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 2 ]; then
    chmod 711 "$T" && mkdir -m 777 "$T/nobody"
    measure setpriv --reuid=65534 --regid=65534 --clear-groups "$JL" run -a 1 -i 1ms -D 2s \
        --report-every 500ms --explain=100us --json "$T/nobody/N.json" -q >"$T/n.out" 2>&1
    rc_is "an unprivileged run with --explain exits 0" 0 $?
    results="$results $T/nobody/N.json"
    labels="$labels --label window"
else
    ok "an unprivileged --explain run # SKIP needs root, setpriv and perf_event_paranoid >= 2"
fi
"$JL" inspect -a 1 --json "$T/I.json" -q >"$T/i.out" 2>&1
rc_is "inspect --json exits 0" 0 $?
python3 "$H/report_docs.py" "$T" "$T/A.json"
check "the hand-made documents are written" test -s "$T/big.json" -a -s "$T/compare.json"
CMP=$T/compare.json
if "$JL" compare "$T/A.json" "$T/B.json" --json "$T/cmp.json" -q >"$T/cmp.out" 2>&1 &&
    [ -s "$T/cmp.json" ]; then
    CMP=$T/cmp.json
else
    echo "# jitterlab compare gave no document; the hand-made one stands in"
fi

# --- the main page: every real result, compare, inspect, --svg ---------------------
# shellcheck disable=SC2086 # $labels and $results are lists of words
"$JL" report $results $labels --compare "$CMP" --inspect "$T/I.json" --svg "$T/svg" \
    -o "$T/main.html" >"$T/main.out" 2>"$T/err"
rc_is "report of the real results exits 0" 0 $?
check "it says what it wrote" grep -q "^jitterlab: report: wrote $T/main.html ([0-9]* kB" "$T/main.out"
# shellcheck disable=SC2086
check "the frequency caption names the results' source" python3 -c '
import html, json, sys
srcs = {json.load(open(f)).get("telemetry_sources", {}).get("avg_mhz", {}).get("source") for f in sys.argv[2:]} - {None}
want = {"perf-msr": "Avg_MHz (APERF)", "msr": "Avg_MHz (APERF)", "cpufreq-requested": "Req_MHz (cpufreq-requested)", "cpuinfo": "CPU_MHz (cpuinfo)"}
page = html.unescape(open(sys.argv[1]).read())
first = next(iter(srcs)) if len(srcs) == 1 else None
print(srcs)
sys.exit(0 if first is None or (want[first] in page and (first in ("perf-msr", "msr") or "cycles run per microsecond" not in page)) else 1)' "$T/main.html" $results
pyt - page="$T/main.html" svg="$T/svg" results="$results" cmp="$CMP" ins="$T/I.json" \
    helpers="$H" <<'PY'
import sys, os, glob, xml.etree.ElementTree as ET
from html import escape as html_escape
sys.path.insert(0, v["helpers"])
import report_check as rc
p = rc.page(v["page"])
files = str(v["results"]).split()
docs = [json.load(open(f)) for f in files]
labels = ["plain", "spin", "explain", "window"][:len(files)]
t("well-formed: every element closed in order", 'not p.errors', 'p.errors[:5]')
t("every inline SVG parses as XML", 'p.svgs and not p.svg_errors', 'p.svg_errors[:3]')
t("only the tags a report uses", 'set(p.tags) <= rc.ALLOWED', 'sorted(set(p.tags) - rc.ALLOWED)')
t("nothing loads from outside the file", 'not rc.url_problems(p)', 'rc.url_problems(p)[:5]')
t("a title and a style sheet, no script", 'p.tags.count("style") == 1 and "script" not in p.tags', '')
# steal is plotted only where it is known: a hypervisor that reports none
# (0 since boot) leaves it null, unknown rather than 0
steal_known = any(w.get("steal_pct") is not None for x in docs for w in x.get("telemetry") or [])
want = ["histogram", "cdf", "timeseries", "telemetry-latency", "avg-mhz", "busy", "irq-rate",
        "exec-histogram", "response-histogram"] + (["steal"] if steal_known else [])
t("no steal plot where steal is unknown", 'steal_known or "steal" not in p.figures', 'sorted(p.figures)')
# ... and the page says why, once per result whose steal is unknown
why = [x["telemetry_sources"]["steal_pct"].get("why") for x in docs
       if x.get("telemetry") and (x.get("telemetry_sources") or {}).get("steal_pct", {}).get("source") is None]
html = open(v["page"], encoding="utf-8").read()
t("where steal is unknown the page says why", 'all(w and ("not drawn, unknown: " + html_escape(w)) in html for w in why)', 'why[:1]')
t("every plot of CPU 1 and of all CPUs", 'all(w in p.figures for w in want)',
  '(sorted(p.figures), want)')
t("distributions twice (CPU 1 and all), time series once (CPU 1)",
  'all(len(p.figures[w]) == 2 for w in ("histogram", "cdf", "exec-histogram", "response-histogram")) and len(p.figures["timeseries"]) == 1',
  '{k: len(x) for k, x in p.figures.items()}')
n = len(files)
hist = p.figures["histogram"][0]
t("the histogram: a line per result, each with points",
  'len(hist["paths"]) == n and all(rc.path_points(d) >= 4 for d in hist["paths"])',
  '[rc.path_points(d) for d in hist["paths"]]')
cdf = p.figures["cdf"][0]
t("the exceedance plot: a line per result", 'len(cdf["paths"]) == n and all(rc.path_points(d) >= 2 for d in cdf["paths"])', '')
ts = p.figures["timeseries"][0]
t("time series: max and mean per result", 'len(ts["paths"]) == 2 * n and all(rc.path_points(d) >= 2 for d in ts["paths"])', 'len(ts["paths"])')
t("every plot has a line", 'all(f["paths"] or f["circles"] for x in p.figures.values() for f in x)',
  '[k for k, x in p.figures.items() for f in x if not (f["paths"] or f["circles"])]')
t("every label in the page", 'all(l in p.alltext for l in labels)', 'labels')
# the percentile table is the documents' own figures
rows = rc.table_rows(p.raw, "cpu1", "percentiles")
def lat_row(d):
    c = [c for c in d["cpus"] if c["cpu"] == 1][0]
    l = c["latency_ns"]
    return [rc.format_ns(l[k]) for k in ("min", "p50", "p90", "p99", "p999", "p9999", "max")] + \
        [str(c["samples"]), str(c["missed"]), ("\u2013" if c.get("deadline_misses") is None else str(c["deadline_misses"]))]
t("percentile table: a row per result", 'rows and len(rows) == n + 1', 'rows')
t("percentile table: the documents' figures", 'all(rows[i + 1][1:] == lat_row(d) for i, d in enumerate(docs))',
  '[(rows[i + 1][1:], lat_row(d)) for i, d in enumerate(docs)][:2]')
rows = rc.table_rows(p.raw, "all", "percentiles")
t("the all-CPUs table: the samples of all", 'rows and all(rows[i + 1][8] == str(d["all"]["samples"]) for i, d in enumerate(docs))', 'rows')
# --svg: one file per plot, the same plots
svgs = sorted(glob.glob(os.path.join(v["svg"], "*.svg")))
names = [os.path.basename(s) for s in svgs]
t("--svg writes a file per plot", 'len(svgs) == len(p.svgs)', '(len(svgs), len(p.svgs), names)')
t("--svg names say CPU and plot", '"cpu1-histogram.svg" in names and "all-cdf.svg" in names and "cpu1-timeseries.svg" in names', 'names')
roots = [ET.parse(s).getroot().tag for s in svgs]
t("each SVG file parses, in the SVG namespace", 'all(r == "{http://www.w3.org/2000/svg}svg" for r in roots)', 'set(roots)')
# verdicts of the compare document
c = json.load(open(v["cmp"]))
vt = [m["verdict"] for k in c["comparisons"] for cc in k["cpus"] for m in cc["metrics"]]
ctables = re.findall(r'<table class="compare">(.*?)</table>', p.raw, re.S)
t("verdicts: a table per comparison and CPU", 'len(ctables) == sum(len(k["cpus"]) for k in c["comparisons"])', 'len(ctables)')
t("verdicts: a row per metric", 'sum(x.count("<tr>") - 1 for x in ctables) == len(vt)', '(sum(x.count("<tr>") - 1 for x in ctables), len(vt))')
t("verdicts: worse in red, better in green", '(("worse" not in vt) or "class=\\"text worse\\">worse<" in p.raw) and (("better" not in vt) or "class=\\"text better\\">better<" in p.raw)', 'set(vt)')
t("the note on computing no statistics is not needed with --compare", '"computes no statistics" not in p.alltext', '')
# inspect findings
ins = json.load(open(v["ins"]))
t("inspect: every finding listed", 'p.raw.count("<tr><td class=\\"text %s\\">" % "critical") + p.raw.count("<tr><td class=\\"text warning\\">") + p.raw.count("<tr><td class=\\"text info\\">") + p.raw.count("<tr><td class=\\"text ok\\">") == len(ins["findings"])', 'len(ins["findings"])')
# spikes of the explain runs
for i, d in enumerate(docs):
    if "spikes" in d:
        sr = rc.table_rows(p.raw, "spikes%d" % i, "spikes")
        t("spikes of %s: the largest, up to 200" % labels[i], 'sr and len(sr) - 1 == min(200, len(d["spikes"]))', '(len(sr or []), len(d["spikes"]))')
        top = max(x["latency_ns"] for x in d["spikes"]) if d["spikes"] else None
        t("spikes of %s: largest first" % labels[i], 'not d["spikes"] or sr[1][2] == rc.format_ns(top)', '(sr[1] if sr and len(sr) > 1 else None, top)')
    if "spike_windows" in d:
        sr = rc.table_rows(p.raw, "spikes%d" % i, "spikes")
        t("window method of %s: a row per spike window" % labels[i], 'sr is not None and len(sr) - 1 == min(200, len(d["spike_windows"]))', '(len(sr or []), len(d["spike_windows"]))')
        t("window method of %s: says so" % labels[i], '"Telemetry windows with spikes" in p.raw and "window" in p.alltext', '')
# system and config side by side, differences highlighted
diff = re.findall(r'<tr class="diff"><td class="key">([^<]*)</td>', p.raw)
t("config rows that differ are highlighted (the workload)", 'any(k.startswith("config.workload") for k in diff)', 'diff[:10]')
t("rows that agree are not", '"system.hostname" not in diff', 'diff[:10]')
PY

# --- hostile strings ----------------------------------------------------------------
"$JL" report "$T/hostile.json" "$T/window.json" --label '<script>alert("label")</script> & x' \
    --label "w'<i>" --compare "$T/compare.json" --title '</title><script>t()</script>' \
    -o "$T/hostile.html" -q >"$T/h.out" 2>"$T/err"
rc_is "report of hostile documents exits 0" 0 $?
pyt - page="$T/hostile.html" helpers="$H" <<'PY'
import sys
sys.path.insert(0, v["helpers"])
import report_check as rc
p = rc.page(v["page"])
t("hostile: well-formed", 'not p.errors and not p.svg_errors', '(p.errors[:3], p.svg_errors[:3])')
t("hostile: no tag from a document", 'set(p.tags) <= rc.ALLOWED', 'sorted(set(p.tags) - rc.ALLOWED)')
t("hostile: no <script>, <img>, <iframe> or <svg onload>", 'not re.search(r"<(script|img|iframe|svg onload|b>bold|i>)", p.raw)', 're.findall(r"<(?:script|img|iframe|svg onload|b>bold|i>)[^>]{0,30}", p.raw)[:5]')
t("hostile: no event handler, no URL", 'not rc.url_problems(p)', 'rc.url_problems(p)[:5]')
hostile = "<script>alert('x')</script> & <b>bold</b> &amp; \"q\""
t("hostile: the hostname and comm shown as text", 'p.alltext.count(hostile) >= 3', 'p.alltext.count(hostile)')
t("hostile: the label shown as text", '"<script>alert(\\"label\\")</script> & x" in p.alltext', '')
t("hostile: the title shown as text", '"</title><script>t()</script>" in p.alltext', '')
t("hostile: compare labels shown as text", '"B <i>new</i>" in p.alltext', '')
t("hostile: control characters replaced", 'not re.search(r"[\\x00-\\x08\\x0b-\\x1f\\x7f]", p.raw) and "\\ufffd" in p.alltext', '')
t("hostile: idle state names escaped inside the SVG", '"<b>C1</b>&" in p.alltext', '')
t("hostile: the window method's spike windows", '"Telemetry windows with spikes" in p.raw and "call_function" in p.alltext', '')
PY

# --- every optional part missing, and a long run's size -----------------------------
"$JL" report "$T/minimal.json" -o "$T/min.html" -q >"$T/m.out" 2>"$T/err"
rc_is "report of a document with only cpus and all exits 0" 0 $?
start=$(date +%s)
"$JL" report "$T/big.json" -o "$T/big.html" --svg "$T/bigsvg/deeper" -q >"$T/b.out" 2>"$T/err"
rc_is "report of 4 CPUs x 3600 windows exits 0" 0 $?
took=$(($(date +%s) - start))
"$JL" report "$T/big.json" -a 1,3 -o "$T/sel.html" -q >"$T/s.out" 2>"$T/err"
rc_is "report --cpus 1,3 exits 0" 0 $?
check "--cpus 1,3: sections for CPUs 1 and 3 only" python3 -c '
import sys; raw = open(sys.argv[1]).read()
sys.exit(not ("id=\"cpu1\"" in raw and "id=\"cpu3\"" in raw and "id=\"cpu0\"" not in raw
              and "id=\"cpu2\"" not in raw and "id=\"all\"" in raw))' "$T/sel.html"
pyt - min="$T/min.html" big="$T/big.html" took=$took bigsvg="$T/bigsvg/deeper" helpers="$H" <<'PY'
import sys, os
sys.path.insert(0, v["helpers"])
import report_check as rc
m = rc.page(v["min"])
t("minimal: well-formed", 'not m.errors and not m.svg_errors', 'm.errors[:3]')
t("minimal: histogram and exceedance of the CPU and of all", 'len(m.figures.get("histogram", [])) == 2 and len(m.figures.get("cdf", [])) == 2', 'sorted(m.figures)')
t("minimal: says there is no time series", '"No time series" in m.alltext', '')
t("minimal: no spikes section, no system or config rows", '"id=\\"spikes0\\"" not in m.raw and "Every key (0)" in m.alltext', '')
b = rc.page(v["big"])
size = os.path.getsize(v["big"])
note("4 CPUs x 3600 windows: %d kB of HTML in %d s" % (size // 1024, v["took"]))
t("big: a few MB at most", 'size < 4 * 1024 * 1024', 'size')
t("big: well-formed", 'not b.errors and not b.svg_errors', 'b.errors[:3]')
t("big: a section per CPU", 'all(("id=\\"cpu%d\\"" % k) in b.raw for k in range(4))', '')
pts = [rc.path_points(d) for k in ("timeseries", "telemetry-latency", "busy", "idle") for f in b.figures.get(k, []) for d in f["paths"]]
t("big: time series thinned to at most 2000 points a line", 'pts and max(pts) <= 2001 and min(pts) >= 1000', '(min(pts), max(pts), len(pts))')
t("big: idle residency drawn per state", 'len(b.figures.get("idle", [])) == 4 and all(len(f["paths"]) == 2 for f in b.figures["idle"])', '')
# CPU 0 has 4 windows of 2 ms among 3600 of 60-100 us: each must stay a
# point above the 1 ms grid line after 2:1 thinning
fig = re.search(r'data-plot="timeseries">(.*?)</figure>', b.raw, re.S).group(1)
tick = float(re.search(r'y="([0-9.]+)" text-anchor="end">1 ms<', fig).group(1)) - 4
ys = [float(y) for y in re.findall(r"[ML][0-9.]+ ([0-9.]+)", b.figures["timeseries"][0]["paths"][0])]
t("big: every 2 ms spike survives the thinning", 'sum(y < tick for y in ys) == 4', '(tick, sorted(ys)[:6])')
t("big: quick (under 10 s)", 'v["took"] <= 10', 'v["took"]')
t("--svg creates missing directories", 'len(os.listdir(v["bigsvg"])) == len(b.svgs)', '')
PY

# --- bad options and bad documents: exit 2, the option or file named, no file --------
head -c 2000 "$T/A.json" >"$T/trunc.json"
: >"$T/empty.json"
: >"$T/afile"
BAD_SUBCOMMAND=report
bad "no results" "which results" -o @DIR@/r.html
bad "an unknown option" "unknown option '--bogus'" "$T/A.json" --bogus -o @DIR@/r.html
bad "labels that do not match the results" "^jitterlab: --label: 1 label for 2 results" \
    "$T/A.json" "$T/B.json" --label x -o @DIR@/r.html
bad "a bad CPU list" "^jitterlab: --cpus 1-:" "$T/A.json" -a 1- -o @DIR@/r.html
bad "eleven results" "11 results, at most 10" "$T/A.json" "$T/A.json" "$T/A.json" "$T/A.json" \
    "$T/A.json" "$T/A.json" "$T/A.json" "$T/A.json" "$T/A.json" "$T/A.json" "$T/A.json" -o @DIR@/r.html
bad "an output that is a directory" "^jitterlab: --output $T" "$T/A.json" -o "$T"
bad "--svg onto a file" "^jitterlab: --svg $T/afile: not a directory" "$T/A.json" --svg "$T/afile" -o @DIR@/r.html
bad "a truncated result" "^jitterlab: report $T/trunc.json: document: not JSON" "$T/trunc.json" \
    -o @DIR@/r.html --svg @DIR@/svg
bad "an empty file" "^jitterlab: report $T/empty.json: document: not JSON" "$T/empty.json" -o @DIR@/r.html
bad "a missing file" "^jitterlab: report $T/none.json: No such file or directory" "$T/none.json" -o @DIR@/r.html
bad "a directory as a result" "^jitterlab: report $T: not a regular file" "$T" -o @DIR@/r.html
mkfifo "$T/fifo.json"
bad "a FIFO as a result (no wait for a writer)" "^jitterlab: report $T/fifo.json: not a regular file" "$T/fifo.json" -o @DIR@/r.html
bad "an inspect document as a result" "report $T/I.json: kind: \"inspect\", not a run result \\(give it with --inspect\\)" \
    "$T/A.json" "$T/I.json" -o @DIR@/r.html --svg @DIR@/svg
bad "a compare document as a result" "kind: \"compare\", not a run result \\(give it with --compare\\)" \
    "$T/compare.json" -o @DIR@/r.html
bad "--compare given a result" "^jitterlab: --compare $T/A.json: kind: \"run\", not a compare document" \
    "$T/A.json" --compare "$T/A.json" -o @DIR@/r.html
bad "--inspect given a result" "^jitterlab: --inspect $T/A.json: kind: \"run\", not an inspect document" \
    "$T/A.json" --inspect "$T/A.json" -o @DIR@/r.html
bad "a verdict compare never writes" "^jitterlab: --compare $T/bad-verdict.json: comparisons\\[0\\]: verdict:" \
    "$T/A.json" --compare "$T/bad-verdict.json" -o @DIR@/r.html
bad "a busy share beyond 100 %" "report $T/bad-busy.json: telemetry\\[0\\]: busy_pct: 250 is out of range" \
    "$T/bad-busy.json" -o @DIR@/r.html
bad "a window of a CPU not measured" "report $T/bad-cpu.json: intervals\\[0\\]: cpu: CPU 4095 is not in cpus" \
    "$T/bad-cpu.json" -o @DIR@/r.html
bad "bins out of order" "report $T/bad-bins.json: cpus\\[0\\]: histogram.bins\\[1\\]: out of order" \
    "$T/bad-bins.json" -o @DIR@/r.html
bad "a spike at a time that is not a number" "report $T/bad-spike.json: spikes\\[0\\]: t_s: not a number" \
    "$T/bad-spike.json" -o @DIR@/r.html
bad "a wrong kind" "report $T/bad-kind.json: kind: \"inspect\"" "$T/bad-kind.json" -o @DIR@/r.html
echo old >"$T/keep.html"
"$JL" report "$T/A.json" "$T/trunc.json" -o "$T/keep.html" >"$T/k.out" 2>"$T/err"
rc_is "a bad second result exits 2" 2 $?
check "and leaves the old page as it was" test "$(cat "$T/keep.html")" = old

# --- the tail analysis ---------------------------------------------------------------
bad "a tail object with a huge number" "report $T/bad-tail-huge.json: tail.cpus\\[0\\]: exceedance_rate: 1e\\+308 is out of range" \
    "$T/bad-tail-huge.json" -o @DIR@/r.html
bad "a tail check passed as a string" "report $T/bad-tail-type.json: tail.cpus\\[0\\].checks\\[0\\]: passed: not true, false or null" \
    "$T/bad-tail-type.json" -o @DIR@/r.html
bad "a tail curve of a million points" "report $T/bad-tail-curve.json: tail.cpus\\[0\\]: curve:" \
    "$T/bad-tail-curve.json" -o @DIR@/r.html
"$JL" tail "$T/A.json" --json "$T/TA.json" -q >"$T/ta.out" 2>"$T/err"
rc_is "jitterlab tail of the plain run exits 0" 0 $?
python3 -c '
import json, sys
r = json.load(open(sys.argv[1])); t = json.load(open(sys.argv[2]))
r["tail"] = {k: t[k] for k in ("confidence", "probabilities", "budget_ns", "threshold_ns",
                               "interval_ns", "samples_file", "cpus", "all")}
json.dump(r, open(sys.argv[3], "w"))' "$T/A.json" "$T/TA.json" "$T/AT.json"
"$JL" report "$T/AT.json" -o "$T/tail.html" -q >"$T/t.out" 2>"$T/err"
rc_is "report of a result with a tail object exits 0" 0 $?
"$JL" report "$T/TA.json" "$T/A.json" -o "$T/taildoc.html" -q >"$T/t.out" 2>"$T/err"
rc_is "report of a tail document and the result it names exits 0" 0 $?
"$JL" report "$T/TA.json" -o "$T/tailonly.html" -q >"$T/t.out" 2>"$T/err"
rc_is "report of a tail document alone exits 0" 0 $?
pyt - page="$T/tail.html" doc="$T/taildoc.html" only="$T/tailonly.html" ta="$T/TA.json" helpers="$H" <<'PY'
import sys, json
sys.path.insert(0, v["helpers"])
import report_check as rc
ta = json.load(open(v["ta"]))
e = ta["cpus"][0]
p = rc.page(v["page"])
t("tail: the page parses", 'not p.errors and not p.svg_errors', '(p.errors[:3], p.svg_errors[:3])')
t("tail: an exceedance plot with lines in it", 'p.figures.get("tail0") and all(f["paths"] for f in p.figures["tail0"])', 'sorted(p.figures)')
rows = rc.table_rows(p.raw, "cpu1", "tail-checks")
t("tail: the checks table, a row per check", 'rows and len(rows) == len(e["checks"]) + 1 and rows[0][0] == "check"', 'rows')
want = ["passed" if c["passed"] else "not run" if c["passed"] is None else "failed" for c in e["checks"]]
t("tail: each check's result as the document says", '[r[5] for r in rows[1:]] == want', '(rows, want)')
t("tail: the verdict line", '("Estimate" in p.alltext) if e["verdict"] == "estimate" else ("Cannot estimate" in p.alltext)', '')
d = rc.page(v["doc"])
t("tail document with its result: a section with the plot", 'd.figures.get("taildoc0") and "Fitted on A" in d.alltext', 'sorted(d.figures)')
o = rc.page(v["only"])
t("tail document alone: the plot, and says there is no histogram", 'o.figures.get("taildoc0") and "holds no histogram" in o.alltext and not o.errors', '')
PY

# --- noise results ----------------------------------------------------------------
flock "$LOCK" sh -c "timeout -s KILL 20 '$JL' noise -a 1 -D 1 -q --no-trace --report-every 250ms --json '$T/N1.json' && timeout -s KILL 20 '$JL' noise -a 1 -D 1 -q --no-trace --report-every 250ms --json '$T/N2.json'" >"$T/nz.out" 2>"$T/err"
rc_is "two noise runs exit 0" 0 $?
"$JL" report "$T/N1.json" "$T/N2.json" --label quiet --label again -o "$T/noise.html" >"$T/nz.out" 2>"$T/err"
rc_is "a report of two noise results exits 0" 0 $?
pyt - page="$T/noise.html" n1="$T/N1.json" helpers="$H" <<'PY'
import sys, json
sys.path.insert(0, v["helpers"])
import report_check as rc
p = rc.page(v["page"])
t("the noise page parses", 'not p.errors and not p.svg_errors', '(p.errors[:3], p.svg_errors[:3])')
t("it names the noise sections", '"Noise, CPU 1" in p.alltext and "Noise, all CPUs" in p.alltext', '')
t("it loads nothing from outside", 'not rc.url_problems(p)', 'rc.url_problems(p)[:3]')
plots = re.findall(r'data-plot="([a-z-]+)"', p.raw)
t("the gap histogram, its tail and the noise share per window", 'set(["histogram", "cdf", "noise-share"]) <= set(plots)', 'plots')
t("the gap histogram is titled so", '"Gap histogram, CPU 1" in p.alltext', '')
rows = rc.table_rows(p.raw, "cpu1", "noise")
n1 = json.load(open(v["n1"]))["cpus"][0]
t("a row per result under the header", 'rows and len(rows) == 3 and rows[0][1] == "noise share"', 'rows')
t("the row shows the document's gap count", 'rows[1][4] == str(n1["gaps"])', '(rows[1], n1["gaps"])')
t("the noise share as the document says", 'rows[1][1] == "%.4f%%" % (100.0 * n1["noise_ns"] / n1["measured_ns"])', '(rows[1][1], n1["noise_pct"])')
PY
bad "a run and a noise result in one report" "^jitterlab: report $T/N1.json: a noise result, and $T/A.json is a run result: give run and noise results to separate reports" \
    "$T/A.json" "$T/N1.json" -o @DIR@/r.html
"$JL" report "$JL_TOP/tests/fuzz/corpus/report_read/noise-traced.json" -o "$T/traced.html" >"$T/nz.out" 2>"$T/err"
rc_is "a traced noise result makes a page" 0 $?
pyt - page="$T/traced.html" helpers="$H" <<'PY'
import sys
sys.path.insert(0, v["helpers"])
import report_check as rc
p = rc.page(v["page"])
t("its causes table names the thread and its pid", '"Noise causes" in p.alltext and "spinner" in p.alltext and "1286" in p.alltext', '')
PY

# --- headless Chromium ---------------------------------------------------------------
CHR=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
if [ -z "$CHR" ]; then
    ok "Chromium renders the page # SKIP no chromium"
else
    chrome() {
        timeout -s KILL 60 "$CHR" --headless --no-sandbox --disable-gpu --disable-quic \
            --no-first-run --disable-background-networking --disable-component-update \
            --disable-sync --user-data-dir="$(mktemp -d "$T/chrome.XXXXXX")" \
            --enable-logging=stderr --v=0 "$@"
    }
    chrome --dump-dom "file://$T/main.html" >"$T/dom.html" 2>"$T/dom.err"
    rc_is "chromium --dump-dom exits 0" 0 $?
    chrome --screenshot="$T/main.png" --window-size=1280,2000 "file://$T/main.html" \
        >"$T/shot.out" 2>"$T/shot.err"
    rc_is "chromium --screenshot exits 0" 0 $?
    chrome --dump-dom "file://$T/hostile.html" >"$T/hdom.html" 2>"$T/hdom.err"
    rc_is "chromium --dump-dom of the hostile page exits 0" 0 $?
    pyt - dom="$T/dom.html" hdom="$T/hdom.html" page="$T/main.html" png="$T/main.png" \
        errs="$T/dom.err $T/shot.err $T/hdom.err" helpers="$H" <<'PY'
import sys
sys.path.insert(0, v["helpers"])
import report_check as rc
dom = open(v["dom"]).read()
page = rc.page(v["page"])
t("the DOM holds every SVG", 'dom.count("<svg") == len(page.svgs) > 10', '(dom.count("<svg"), len(page.svgs))')
t("the DOM holds the lines", 'dom.count("<path") == page.tags.count("path")', '(dom.count("<path"), page.tags.count("path"))')
errs = "".join(open(f).read() for f in str(v["errs"]).split())
bad = [l for l in errs.splitlines() if "Uncaught" in l or "ERROR:CONSOLE" in l or "CONSOLE(" in l]
t("no console errors", 'not bad', 'bad[:3]')
w, h, colours = rc.png(v["png"])
note("screenshot: %dx%d, %d colours" % (w, h, colours))
t("a screenshot of 1280x2000", '(w, h) == (1280, 2000)', '(w, h)')
t("the screenshot is not blank (many colours)", 'colours > 32', 'colours')
hdom = open(v["hdom"]).read()
t("the hostile page's DOM has no injected element", 'not re.search(r"<(script|img|iframe)\\b", hdom) and "onload=" not in re.sub(r"&lt;.*?&gt;", "", hdom) and "<b>bold" not in hdom', 're.findall(r"<(?:script|img|iframe)[^>]{0,40}", hdom)[:3]')
t("the hostile page's DOM shows the strings as text", '"&lt;script&gt;alert(\'x\')&lt;/script&gt;" in hdom', '')
PY
fi

# --- --group: every run of a step, as compare's verdicts see them ------------------
G=$T/grp
mkdir -p "$G"
python3 "$H/mkrun.py" --batch <<EOF
$G/a-1.json --median 20000 --seed 1 --n 5000
$G/a-2.json --median 60000 --seed 2 --n 5000
$G/a-3.json --median 60000 --seed 3 --n 5000
$G/b-1.json --median 90000 --seed 4 --n 5000
$G/b-2.json --median 30000 --seed 5 --n 5000
$G/b-3.json --median 30000 --seed 6 --n 5000
EOF
(cd "$G" && "$JL" compare --group a-1.json,a-2.json,a-3.json --group b-1.json,b-2.json,b-3.json \
    --label a --label b --json cmp.json >/dev/null 2>"$T/err")
rc_is "compare of two groups of 3 synthetic runs exits 0" 0 $?
(cd "$G" && "$JL" report -q --label a --group a-1.json,a-2.json,a-3.json --label b \
    --group b-1.json,b-2.json,b-3.json --compare cmp.json -o page.html 2>"$T/err")
rc_is "report --group of the same runs exits 0" 0 $?
pyt "$G/cmp.json" dir="$G" h="$H" <<'PY'
import sys
sys.path.insert(0, v["h"])
import report_check as rc
raw = open(v["dir"] + "/page.html").read()
runs = {s: [json.load(open("%s/%s-%d.json" % (v["dir"], s, k))) for k in (1, 2, 3)] for s in "ab"}
cmp_p99 = {}
for c in d["comparisons"][0]["cpus"]:
    m = [m for m in c["metrics"] if m["metric"] == "p99"][0]
    cmp_p99[c["cpu"]] = {"a": rc.format_ns(m["baseline"]), "b": rc.format_ns(m["value"])}
for sec, cpu in (("cpu1", 1), ("all", "all")):
    rows = rc.table_rows(raw, sec, "percentiles") or [[]]
    t(sec + ": a column for the runs' p99", 'rows[0][-1].startswith("p99 of the runs")', 'rows[0]')
    got = {r[0]: r for r in rows[1:]}
    for s in "ab":
        r = got.get(s, [""] * 12)
        t(sec + " " + s + ": the runs' p99 is compare's figure (" + cmp_p99[cpu][s] + ")", 'r[-1].startswith(cmp_p99[cpu][s] + " (3 runs: ")', 'r[-1]')
        lo = min(x["all"]["latency_ns"]["p99"] for x in runs[s]); hi = max(x["all"]["latency_ns"]["p99"] for x in runs[s])
        t(sec + " " + s + ": with the lowest and highest run", 'r[-1].endswith(rc.format_ns(lo) + " \u2013 " + rc.format_ns(hi) + ")")', 'r[-1]')
        t(sec + " " + s + ": the samples of all 3 runs", 'r[8] == str(sum(x["all"]["samples"] for x in runs[s]))', 'r[8]')
        t(sec + " " + s + ": not the first run's p99 alone", 'r[4] != rc.format_ns(runs[s][0]["all"]["latency_ns"]["p99"])', 'r[4]')
verdicts = rc.table_rows(raw, "verdicts", "compare") or []
t("the verdict table shows the same p99 figures", 'any(cmp_p99["all"]["a"] in " ".join(r) and cmp_p99["all"]["b"] in " ".join(r) for r in verdicts)', 'verdicts[:4]')
t("the page says what a group's figures are", '"A result of several runs" in raw and "geometric mean" in raw')
PY
