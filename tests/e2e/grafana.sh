#!/bin/sh
# runs beside others
# contrib/ against the exporter it is written for. The Grafana dashboard
# parses, has its datasource, instance and cpu variables and a unit on every
# panel, and names only the promised metric families; every metric it (or a
# variable) uses is in a real scrape of `run --forever --prometheus
# --workload --explain` on CPU 1, but for the few listed below with the
# reason this machine lacks them; promtool accepts that scrape, the alert
# rules (and their unit tests: each alert fires on the series it is meant
# for and only there) and the example Prometheus configuration. A real
# Prometheus started here with that configuration and those rules evaluates
# every dashboard query and variable against the run (each answers, and
# with data), finds the rules healthy, and JitterlabDown goes pending once
# SIGINT has ended the run. About 20 s.
. "$(dirname "$0")/lib.sh"
G=$JL_TOP/contrib/grafana PR=$JL_TOP/contrib/prometheus

# Dashboard metrics this machine may lack, "NAME<TAB>why"; each one the scrape
# lacks is named in the output. The scrape must have every other one.
ALLOW=$T/allow.tsv
printf '%s\t%s\n' \
    jitterlab_cpu_idle_state_residency_ratio "no cpuidle driver on this VM (no /sys/devices/system/cpu/cpuN/cpuidle)" \
    jitterlab_cpu_steal_seconds_total "the hypervisor reports no steal (0 in /proc/stat since boot): unknown, so not published" \
    jitterlab_cpu_frequency_hertz "quiet telemetry reads the frequency from cpufreq or /proc/cpuinfo only, and not before kernel 5.18 (an IPI)" >"$ALLOW"
if ! is_root; then
    printf '%s\t%s\n' jitterlab_spikes_total "--explain without root has no tracepoints, so no spikes by cause" >>"$ALLOW"
fi

# --- the dashboard and the provisioning files -------------------------------
pyt "$G/jitterlab.json" names="$T/names.txt" exprs="$T/exprs.json" <<'PY'
# The families promised to the dashboard (docs/monitoring.md).
promised = {
    "jitterlab_wakeup_latency_seconds": "histogram", "jitterlab_response_time_seconds": "histogram",
    "jitterlab_wakeup_latency_max_seconds": "gauge", "jitterlab_wakeup_latency_max_total_seconds": "gauge",
    "jitterlab_missed_periods_total": "counter", "jitterlab_samples_total": "counter",
    "jitterlab_deadline_misses_total": "counter", "jitterlab_ring_drops_total": "counter",
    "jitterlab_cpu_frequency_hertz": "gauge", "jitterlab_cpu_busy_ratio": "gauge",
    "jitterlab_cpu_idle_state_residency_ratio": "gauge", "jitterlab_interrupts_total": "counter",
    "jitterlab_cpu_steal_seconds_total": "counter", "jitterlab_spikes_total": "counter",
    "jitterlab_info": "gauge", "jitterlab_start_time_seconds": "gauge",
}
t("the dashboard is a JSON object", 'isinstance(d, dict)')
if not isinstance(d, dict):
    open(v["names"], "w").close()
    json.dump([], open(v["exprs"], "w"))
    raise SystemExit(0)
# every PromQL string: the values of "expr", "query" and "definition", wherever they are
# (where: the titles or names of the objects around it, e.g. "Steal")
exprs, dsrefs = [], []
def walk(x, where):
    if isinstance(x, dict):
        if x.get("type") == "datasource" and "query" in x:
            return  # the datasource variable: its query is a plugin id, not PromQL
        if x is not d and (x.get("title") or x.get("name")):
            where = (where + " / " if where else "") + str(x.get("title") or x.get("name"))
        for k, y in x.items():
            if k in ("expr", "query", "definition") and isinstance(y, str) and y:
                exprs.append({"where": where, "key": k, "expr": y})
            if k == "datasource":
                dsrefs.append((where, y))
            walk(y, where)
    elif isinstance(x, list):
        for y in x:
            walk(y, where)
walk(d, "")
used = {}
for e in exprs:
    for name in re.findall(r"\bjitterlab_[a-z0-9_]+", e["expr"]):
        used.setdefault(name, e["where"])
def family(name):
    for suffix in ("_bucket", "_sum", "_count"):
        if name.endswith(suffix) and promised.get(name[: -len(suffix)]) == "histogram":
            return name[: -len(suffix)]
    return name
fams = sorted({family(n) for n in used})
note("the dashboard uses %d metric families: jitterlab_ + %s" % (len(fams), " ".join(f[len("jitterlab_"):] for f in fams)))
unknown = {n: w for n, w in used.items() if family(n) not in promised}
t("every metric name in an expression is a promised family", 'not unknown', 'unknown')
hist_bare = {n: w for n, w in used.items() if promised.get(n) == "histogram"}
t("histograms are used through _bucket, _sum or _count", 'not hist_bare', 'hist_bare')
t("the dashboard uses every promised family", 'set(fams) == set(promised)', 'sorted(set(promised) - set(fams))')
open(v["names"], "w").write("".join(n + "\n" for n in fams))
json.dump(exprs, open(v["exprs"], "w"))

tv = {x["name"]: x for x in d["templating"]["list"]}
t("variables: datasource, instance, cpu", 'set(tv) == {"datasource", "instance", "cpu"}', 'sorted(tv)')
t("datasource: a variable of type datasource over Prometheus", 'tv["datasource"]["type"] == "datasource" and tv["datasource"]["query"] == "prometheus"', 'tv["datasource"]')
t("instance: label_values(jitterlab_info, instance)", 'tv["instance"]["type"] == "query" and tv["instance"]["definition"] == "label_values(jitterlab_info, instance)"', 'tv["instance"].get("definition")')
t("cpu: the CPUs of the chosen instance", 'tv["cpu"]["definition"] == \'label_values(jitterlab_samples_total{instance=~"$instance"}, cpu)\'', 'tv["cpu"].get("definition")')
t("cpu: several at once, and All", 'tv["cpu"]["multi"] is True and tv["cpu"]["includeAll"] is True', '(tv["cpu"].get("multi"), tv["cpu"].get("includeAll"))')
t("variable queries name their query text the same", 'all(x["query"]["query"] == x["definition"] for x in tv.values() if x["type"] == "query")', '[(x["query"], x["definition"]) for x in tv.values() if x["type"] == "query"]')
# every datasource reference is the variable (or Grafana's own annotations):
# no datasource uid of one particular Grafana, so the file imports anywhere
var = {"type": "prometheus", "uid": "${datasource}"}
fixed = [(w, r) for w, r in dsrefs if r != var and not (w == "Annotations & Alerts" and r.get("uid") == "-- Grafana --")]
check("every panel, query, variable and annotation reads the ${datasource} variable", not fixed, fixed[:4])
panels = [p for p in d["panels"] if p["type"] != "row"]
check("every panel and query has a datasource reference", all("datasource" in x for p in panels for x in [p] + p["targets"]), [p["title"] for p in panels if "datasource" not in p])
ids = [p["id"] for p in d["panels"]]
t("panel ids are unique", 'len(ids) == len(set(ids))', 'ids')
grid = [p["title"] for p in d["panels"] if p["gridPos"]["x"] + p["gridPos"]["w"] > 24]
t("panels fit the 24 columns", 'not grid', 'grid')
def unit(p):
    return p.get("options", {}).get("yAxis", {}).get("unit") if p["type"] == "heatmap" else p["fieldConfig"]["defaults"].get("unit")
info = [p for p in panels if any(x["expr"].startswith("jitterlab_info") for x in p["targets"])]
nounit = [p["title"] for p in panels if p not in info and not unit(p)]
t("every panel but the jitterlab_info texts has a unit", 'not nounit', 'nounit')
units = {p["title"]: unit(p) for p in panels}
want = {"Largest latency per scrape": "s", "Latency percentiles": "s", "Wake-up latency distribution": "s", "CPU frequency": "hertz", "CPU busy": "percentunit", "Idle state residency": "percentunit", "Steal": "percentunit", "Missed periods and deadline misses": "ops", "Interrupts by source (top 10)": "ops", "Spikes by dominant cause": "ops"}
t("units: s, hertz, percentunit, ops where they belong", 'all(units.get(k) == u for k, u in want.items())', '{k: units.get(k) for k, u in want.items() if units.get(k) != u}')
hm = [p for p in panels if p["type"] == "heatmap"]
t("heatmap: increase of the latency buckets by le, format heatmap", 'len(hm) == 1 and hm[0]["targets"][0]["format"] == "heatmap" and re.fullmatch(r"sum by \\(le\\) \\(increase\\(jitterlab_wakeup_latency_seconds_bucket\\{[^}]*\\}\\[\\$__rate_interval\\]\\)\\)", hm[0]["targets"][0]["expr"]) and hm[0]["options"]["calculate"] is False', 'hm and hm[0]["targets"]')
mx = [p for p in panels if p["title"] == "Largest latency per scrape"]
t("the max panel: max_over_time of the max gauge, so no scrape is skipped", 'mx and mx[0]["targets"][0]["expr"].startswith("max_over_time(jitterlab_wakeup_latency_max_seconds{")', 'mx and mx[0]["targets"]')
t("the max panel explains why it shows every spike", 'mx and "every spike" in mx[0]["description"] and "reset" in mx[0]["description"]', '')
qs = sorted(re.findall(r"histogram_quantile\((0\.\d+), sum by \(cpu, le\) \(rate\(jitterlab_wakeup_latency_seconds_bucket", json.dumps([e["expr"] for e in exprs])))
t("p50, p99 and p99.9 from the rate of the buckets", 'qs == ["0.5", "0.99", "0.999"]', 'qs')
info_fields = sorted(p["options"]["reduceOptions"]["fields"] for p in info)
t("info panels: kernel, preempt, cpu_model, interval from jitterlab_info", 'all("/^%s$/" % f in info_fields for f in ("kernel", "preempt", "cpu_model", "interval_seconds"))', 'info_fields')
# the panels and annotations follow the variables: $instance everywhere,
# $cpu on every family with a cpu label
unfiltered = [(e["where"], n, sel) for e in exprs if e["key"] == "expr"
              for n, sel in re.findall(r"(jitterlab_[a-z0-9_]+)(\{[^}]*\})?", e["expr"])
              if 'instance=~"$instance"' not in sel
              or ('cpu=~"$cpu"' not in sel and n not in ("jitterlab_info", "jitterlab_start_time_seconds"))]
check("every selector filters on $instance, and on $cpu where there is a cpu label", not unfiltered, unfiltered[:4])
PY
check "datasource.yml: Prometheus at http://localhost:9090" grep -Eq '^ *url: http://localhost:9090$' "$G/datasource.yml"
check "datasource.yml: type prometheus" grep -Eq '^ *type: prometheus$' "$G/datasource.yml"
check "dashboards.yml: the package's folder /usr/share/jitterlab/grafana" grep -Eq '^ *path: /usr/share/jitterlab/grafana$' "$G/dashboards.yml"
check "dashboards.yml: a file provider" grep -Eq '^ *type: file$' "$G/dashboards.yml"

# --- promtool: the rules, their unit tests, the example configuration -------
if ! command -v promtool >/dev/null; then
    ok "promtool checks # SKIP promtool missing (make deps installs it)"
else
    check "promtool check rules contrib/prometheus/jitterlab.rules.yml" promtool check rules "$PR/jitterlab.rules.yml"
    mkdir "$T/prom"
    cp "$PR/prometheus.yml" "$PR/jitterlab.rules.yml" "$T/prom/"
    check "promtool check config contrib/prometheus/prometheus.yml (with its rules)" promtool check config "$T/prom/prometheus.yml"
    check "the example scrapes job jitterlab at localhost:9808 every 5 s" sh -c \
        "grep -Eq '^ *- job_name: jitterlab$' '$PR/prometheus.yml' && grep -Eq '^ *- localhost:9808$' '$PR/prometheus.yml' && grep -Eq '^ *scrape_interval: 5s$' '$PR/prometheus.yml'"
    # Each alert on the series it is for, and only there: a 1.3 ms spike on
    # a (b stays at 20 us) for 5 minutes, then no more; one missed period on
    # a; deadline misses and ring drops on b only; a's target down from 55 s
    # (firing after the minute of for:); no target at all.
    cat >"$T/prom/tests.yml" <<'YML'
rule_files:
  - jitterlab.rules.yml
evaluation_interval: 5s
tests:
  - interval: 5s
    input_series:
      - series: 'jitterlab_wakeup_latency_max_seconds{job="jitterlab",instance="a:9808",cpu="1"}'
        values: '0.00002 0.00003 0.0013 0.00002x80'
      - series: 'jitterlab_wakeup_latency_max_seconds{job="jitterlab",instance="b:9808",cpu="1"}'
        values: '0.00002x82'
      - series: 'jitterlab_missed_periods_total{job="jitterlab",instance="a:9808",cpu="1"}'
        values: '0x5 1x80'
      - series: 'jitterlab_deadline_misses_total{job="jitterlab",instance="a:9808",cpu="1"}'
        values: '0x85'
      - series: 'jitterlab_deadline_misses_total{job="jitterlab",instance="b:9808",cpu="1"}'
        values: '0x5 3x80'
      - series: 'jitterlab_ring_drops_total{job="jitterlab",instance="a:9808",cpu="1"}'
        values: '0x85'
      - series: 'jitterlab_ring_drops_total{job="jitterlab",instance="b:9808",cpu="1"}'
        values: '0x5 100x80'
      - series: 'up{job="jitterlab",instance="a:9808"}'
        values: '1x10 0x80'
      - series: 'up{job="jitterlab",instance="b:9808"}'
        values: '1x90'
    alert_rule_test:
      - eval_time: 20s
        alertname: JitterlabMissedPeriods
        exp_alerts: []
      - eval_time: 1m
        alertname: JitterlabLatencyOverBudget
        exp_alerts:
          - exp_labels: {severity: critical, job: jitterlab, instance: "a:9808", cpu: "1"}
            exp_annotations:
              summary: "a:9808 CPU 1: 1.3ms wake-up latency, over the 250 us budget"
              description: "A periodic real-time thread on CPU 1 woke up 1.3ms after its planned time within the last 5 minutes. `jitterlab run --explain` names the cause of each late wake-up (jitterlab_spikes_total by cause)."
      - eval_time: 6m
        alertname: JitterlabLatencyOverBudget
        exp_alerts: []
      - eval_time: 1m
        alertname: JitterlabMissedPeriods
        exp_alerts:
          - exp_labels: {severity: critical, job: jitterlab, instance: "a:9808", cpu: "1"}
            exp_annotations:
              summary: "a:9808 CPU 1: missed periods (1 in 5 minutes)"
              description: "The measuring thread on CPU 1 overran its period: a stall longer than the cycle interval."
      - eval_time: 1m
        alertname: JitterlabDeadlineMisses
        exp_alerts:
          - exp_labels: {severity: critical, job: jitterlab, instance: "b:9808", cpu: "1"}
            exp_annotations:
              summary: "b:9808 CPU 1: deadline misses (3 in 5 minutes)"
              description: "Cycles on CPU 1 whose response time (wake-up latency plus execution time) exceeded the deadline."
      - eval_time: 1m
        alertname: JitterlabRingDrops
        exp_alerts:
          - exp_labels: {severity: warning, job: jitterlab, instance: "b:9808", cpu: "1"}
            exp_annotations:
              summary: "b:9808 CPU 1: samples dropped (100 in 5 minutes), the measurement is incomplete"
              description: "The collector on the housekeeping CPUs fell behind CPU 1's sample ring. The figures Prometheus sees miss those samples and may miss a spike among them: give the housekeeping CPUs room (fewer loads, or more CPUs left unmeasured)."
      - eval_time: 1m
        alertname: JitterlabDown
        exp_alerts: []
      - eval_time: 2m
        alertname: JitterlabDown
        exp_alerts:
          - exp_labels: {severity: critical, job: jitterlab, instance: "a:9808"}
            exp_annotations:
              summary: "jitterlab on a:9808 is not measuring"
              description: "Prometheus has not scraped a:9808 for a minute: the run ended or crashed, or its port cannot be reached. Nothing is measured or alerted on there."
  - interval: 5s
    input_series:
      - series: 'up{job="node",instance="n:9100"}'
        values: '1x30'
    alert_rule_test:
      - eval_time: 2m
        alertname: JitterlabDown
        exp_alerts:
          - exp_labels: {severity: critical, job: jitterlab}
            exp_annotations:
              summary: "no jitterlab target is scraped (job jitterlab)"
              description: "No target of job jitterlab has been scraped for a minute: the run ended or crashed, or its port cannot be reached. Nothing is measured or alerted on there."
YML
    if (cd "$T/prom" && promtool test rules tests.yml) >"$T/prom/test.out" 2>&1; then
        ok "promtool test rules: each alert fires where it should and only there"
    else
        not_ok "promtool test rules: each alert fires where it should and only there" "$(grep -v '^ *$' "$T/prom/test.out" | head -12 | tr '\n' ' ')"
    fi
fi

# --- a real scrape ------------------------------------------------------------
if ! command -v curl >/dev/null || ! command -v promtool >/dev/null; then
    ok "a real scrape # SKIP curl or promtool missing (make deps installs them)"
    exit 0
fi
if ! "$JL" run --help 2>&1 | grep -q -e '--prometheus'; then
    not_ok "run --help offers --prometheus" "this jitterlab has no exporter (run --forever --prometheus): the dashboard cannot be checked against a scrape"
    exit 0
fi
ok "run --help offers --prometheus"
defsig=""
env --default-signal=INT true 2>/dev/null && defsig="env --default-signal=INT"
JPORT=$(freeport)
$defsig "$JL" run --forever -a 1 -i 1ms --prometheus "127.0.0.1:$JPORT" --workload spin:20us --explain -q \
    >"$T/run.out" 2>"$T/run.err" &
JL_PID=$!; kill_on_exit "$JL_PID"
# up to 30 s: under ASan --explain takes about 15 s to start
if wait_for 30 curl -sf "http://127.0.0.1:$JPORT/metrics"; then ok "the exporter answers on 127.0.0.1:$JPORT"; else
    not_ok "the exporter answers on 127.0.0.1:$JPORT" "$(tail -3 "$T/run.err")"; exit 0; fi
sleep 2.5 # a telemetry window (1 s) has closed
curl -s "http://127.0.0.1:$JPORT/metrics" >"$T/scrape1.txt"
sleep 1
curl -s "http://127.0.0.1:$JPORT/metrics" >"$T/scrape2.txt"
if promtool check metrics <"$T/scrape2.txt" >"$T/check-metrics.out" 2>&1; then ok "promtool check metrics accepts the scrape"; else
    not_ok "promtool check metrics accepts the scrape" "$(head -5 "$T/check-metrics.out" | tr '\n' ' ')"; fi
pyt - names="$T/names.txt" allow="$ALLOW" s1="$T/scrape1.txt" s2="$T/scrape2.txt" <<'PY'
def scrape(path):
    fams, samples, vals = {}, set(), {}
    for line in open(path).read().splitlines():
        m = re.match(r"# TYPE (\S+) (\S+)$", line)
        if m:
            fams[m.group(1)] = m.group(2)
        elif line and not line.startswith("#"):
            m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)", line)
            if m:
                samples.add(m.group(1))
                vals[m.group(1) + (m.group(2) or "")] = float(m.group(3))
    return fams, samples, vals
f1, n1, v1 = scrape(v["s1"])
f2, n2, v2 = scrape(v["s2"])
fams = dict(f1, **f2)
found = n1 | n2 | set(fams)
names = open(v["names"]).read().split()
allow = dict(l.split("\t", 1) for l in open(v["allow"]).read().splitlines())
t("the dashboard's names were read", 'len(names) >= 10', 'names')
missing = [n for n in names if n not in found and n not in allow]
t("every metric the dashboard uses is in the scrape (or allowed, with the reason)", 'not missing', 'missing')
for n in names:
    if n not in found and n in allow:
        note("allowed absent: %s: %s" % (n, allow[n]))
for n in sorted(set(allow) & found):
    note("allow-listed but present: %s" % n)
hist = [n for n in names if fams.get(n) == "histogram"]
nob = [n for n in hist if not {n + "_bucket", n + "_sum", n + "_count"} <= found]
t("each histogram has _bucket, _sum and _count samples", 'hist and not nob', '(hist, nob)')
t("the response-time histogram is there with --workload", 'fams.get("jitterlab_response_time_seconds") == "histogram"', 'sorted(fams)')
s1 = v1.get('jitterlab_samples_total{cpu="1"}'); s2 = v2.get('jitterlab_samples_total{cpu="1"}')
t("jitterlab_samples_total{cpu=\"1\"} grows between the two scrapes", 's1 is not None and s2 is not None and s2 > s1', '(s1, s2)')
unused = sorted(set(fams) - set(names))
if unused:
    note("families served but not on the dashboard: " + " ".join(unused))
PY

# --- a real Prometheus: every dashboard query, the rules, JitterlabDown ------
if ! command -v prometheus >/dev/null; then
    ok "dashboard queries on a real Prometheus # SKIP prometheus missing (make deps installs it)"
else
    PPORT=$(freeport)
    mkdir -p "$T/live"
    cp "$PR/jitterlab.rules.yml" "$T/live/"
    sed -e "s/localhost:9808/127.0.0.1:$JPORT/" -e 's/scrape_interval: 5s/scrape_interval: 1s/' \
        -e 's/evaluation_interval: 5s/evaluation_interval: 1s/' "$PR/prometheus.yml" >"$T/live/prometheus.yml"
    check "the example configuration, pointed at this run" grep -q "127.0.0.1:$JPORT" "$T/live/prometheus.yml"
    prometheus --config.file="$T/live/prometheus.yml" --storage.tsdb.path="$T/live/tsdb" \
        --web.listen-address="127.0.0.1:$PPORT" --log.level=warn >"$T/prom.log" 2>&1 &
    PROM_PID=$!; kill_on_exit "$PROM_PID"
    up1() { curl -s "http://127.0.0.1:$PPORT/api/v1/query?query=up" | grep -q '"value":\[[0-9.]*,"1"\]'; }
    if wait_for 30 up1; then ok "Prometheus scrapes the run with the example configuration"; else
        not_ok "Prometheus scrapes the run with the example configuration" "$(tail -3 "$T/prom.log")"; fi
    sleep 6 # enough scrapes for a 5 s rate
    pyt - exprs="$T/exprs.json" allow="$ALLOW" s2="$T/scrape2.txt" base="http://127.0.0.1:$PPORT" inst="127.0.0.1:$JPORT" <<'PY'
import urllib.parse, urllib.request
def get(path, **q):
    url = v["base"] + path + "?" + urllib.parse.urlencode(q, doseq=True)
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.load(r)
# Grafana's variables as this run gives them, Grafana's intervals for a 1 s scrape
subs = [("$__rate_interval", "5s"), ("$__range", "30s"), ("$__interval", "2s"), ("$instance", str(v["inst"])), ("$cpu", ".*")]
def fill(e):
    for k, x in subs:
        e = e.replace(k, x)
    return e
present = set(re.findall(r"^(?:# TYPE )?([a-z_:][a-z0-9_:]*)", open(v["s2"]).read(), re.M))
absent = [l.split("\t")[0] for l in open(v["allow"]).read().splitlines() if l.split("\t")[0] not in present]
for tg in get("/api/v1/targets")["data"]["activeTargets"]:
    note("target %s: %s, the last scrape took %.4f s%s" % (tg["scrapeUrl"], tg["health"], tg["lastScrapeDuration"], (", error: " + tg["lastError"]) if tg["lastError"] else ""))
failed = get("/api/v1/query", query="count_over_time(up[1m]) - sum_over_time(up[1m])")["data"]["result"]
check("every scrape of the run succeeded (a failed one leaves the gauges stale)", failed and failed[0]["value"][1] == "0", failed)
for e in json.load(open(v["exprs"])):
    q = fill(e["expr"])
    lv = re.fullmatch(r"label_values\((.*), *([a-z_]+)\)", q)
    try:
        if lv:
            r = get("/api/v1/label/%s/values" % lv.group(2), **{"match[]": lv.group(1)})
            data = r["data"]
        else:
            r = get("/api/v1/query", query=q)
            data = r["data"]["result"]
        status = r["status"]
    except Exception as x:  # noqa: BLE001 - the check reports it
        status, data = "error: %s" % x, []
    may_be_empty = e["where"] == "Run restarted" or any(a in q for a in absent)
    check("%s: %s answers%s" % (e["where"], e["key"], "" if may_be_empty else ", with data"),
          status == "success" and (may_be_empty or len(data) > 0), (q, status, data[:2]))
    if lv and lv.group(2) == "instance":
        check("the instance variable offers this run", v["inst"] in data, data)
    if lv and lv.group(2) == "cpu":
        check("the cpu variable offers CPU 1 only", data == ["1"], data)
groups = get("/api/v1/rules")["data"]["groups"]
rules = [r for g in groups for r in g["rules"]]
check("Prometheus loaded the five alert rules", sorted(r["name"] for r in rules) == ["JitterlabDeadlineMisses", "JitterlabDown", "JitterlabLatencyOverBudget", "JitterlabMissedPeriods", "JitterlabRingDrops"], [r["name"] for r in rules])
bad = [(r["name"], r.get("health"), r.get("lastError")) for r in rules if r.get("health") != "ok"]
check("every rule evaluates without error", not bad, bad)
down = [r for r in rules if r["name"] == "JitterlabDown"]
check("JitterlabDown is inactive while the run is scraped", down and down[0]["state"] == "inactive", down)
PY
fi

# --- SIGINT ends the run ------------------------------------------------------
if kill -0 "$JL_PID" 2>/dev/null; then ok "run --forever is still measuring after the checks"; else
    not_ok "run --forever is still measuring after the checks" "it ended on its own: $(tail -3 "$T/run.err")"; fi
kill -INT "$JL_PID" 2>/dev/null
( sleep 15; kill -KILL "$JL_PID" 2>/dev/null ) &
wd=$!
wait "$JL_PID"
rc=$?
JL_PID=
kill "$wd" 2>/dev/null
rc_is "SIGINT ends run --forever --prometheus with exit 0" 0 "$rc"
if [ -n "$PROM_PID" ]; then
    pending() {
        curl -s "http://127.0.0.1:$PPORT/api/v1/alerts" | python3 -c 'import json, sys
a = json.load(sys.stdin)["data"]["alerts"]
sys.exit(0 if any(x["labels"]["alertname"] == "JitterlabDown" and x["state"] == "pending" for x in a) else 1)'
    }
    if wait_for 10 pending; then ok "JitterlabDown goes pending once the run has ended"; else
        not_ok "JitterlabDown goes pending once the run has ended" "$(curl -s "http://127.0.0.1:$PPORT/api/v1/alerts" | head -c 300)"; fi
fi
