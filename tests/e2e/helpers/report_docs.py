#!/usr/bin/env python3
"""Hand-made documents for tests/e2e/report.sh, built from a real result.

    python3 report_docs.py OUTDIR BASE.json

writes into OUTDIR:
  big.json       4 CPUs (the base CPU's histogram on CPUs 0-3), 3600 report
                 windows and 3600 telemetry windows per CPU with two idle
                 states: the size a long run gives
  hostile.json   markup and entities in every string a report shows
                 (hostname, config, comm names, causes, idle states)
  minimal.json   the header, cpus[] and all only: every optional part missing
  window.json    the window method's spike_windows and spike_summary
  compare.json   a compare document (kind "compare") of the shape
                 `jitterlab compare --json` writes, for results A and B
  bad-*.json     documents the report must refuse (exit 2), one reason each
                 (bad-tail-*: hostile tail objects)
"""
import copy
import json
import math
import os
import sys

HOSTILE = "<script>alert('x')</script> & <b>bold</b> &amp; \"q\""


def merged(cpus):
    """The "all" entry of CPU entries that share one histogram shape."""
    bins = {}
    for c in cpus:
        for lo, hi, n in c["histogram"]["bins"]:
            bins[(lo, hi)] = bins.get((lo, hi), 0) + n
    a = copy.deepcopy(cpus[0])
    del a["cpu"]
    a["samples"] = sum(c["samples"] for c in cpus)
    a["missed"] = sum(c["missed"] for c in cpus)
    a["histogram"]["bins"] = [[lo, hi, n] for (lo, hi), n in sorted(bins.items())]
    a["histogram"]["overflow"] = sum(c["histogram"]["overflow"] for c in cpus)
    for key in ("exec_ns", "response_ns"):
        if key in a and a[key]:
            eb = {}
            for c in cpus:
                for lo, hi, n in c[key]["histogram"]["bins"]:
                    eb[(lo, hi)] = eb.get((lo, hi), 0) + n
            a[key]["histogram"]["bins"] = [[lo, hi, n] for (lo, hi), n in sorted(eb.items())]
    if a.get("deadline_misses") is not None:  # null: the run had no deadline
        a["deadline_misses"] = sum(c.get("deadline_misses") or 0 for c in cpus)
    return a


def big(base, windows=3600, ncpu=4):
    d = copy.deepcopy(base)
    cpus = []
    for k in range(ncpu):
        c = copy.deepcopy(base["cpus"][0])
        c["cpu"] = k
        cpus.append(c)
    d["cpus"] = cpus
    d["all"] = merged(cpus)
    d["config"]["cpus"] = list(range(ncpu))
    d["intervals"], d["telemetry"] = [], []
    for w in range(windows):
        for k in range(ncpu):
            spike = 2000000 if (w * 7 + k) % 997 == 0 else 0
            mx = 60000 + (w * 131 + k * 17) % 40000 + spike
            d["intervals"].append({"t_s": w + 1.0, "cpu": k, "samples": 1000, "missed": 0,
                                   "min_ns": 50000, "mean_ns": 61000 + w % 500, "max_ns": mx})
            c1 = 40 + 20 * math.sin(w / 50.0 + k)
            d["telemetry"].append({
                "t_s": w + 1.0002, "cpu": k, "samples": 1000, "missed": 0, "max_ns": mx,
                "p99_ns": 90000 + w % 3000, "mean_ns": 61000.5, "avg_mhz": 2000.0 + (w % 100),
                "busy_pct": 2.0 + (w % 10) / 10, "irqs": 1000 + (w % 50), "steal_pct": (w % 7) / 10,
                "idle": [{"state": "C1", "residency_pct": c1, "entries": 100},
                         {"state": "C6", "residency_pct": 95 - c1, "entries": 20}],
                "source": {}})
    d["intervals_dropped"] = 0
    d["telemetry_dropped"] = 0
    return d


def hostile(base):
    d = copy.deepcopy(base)
    d["system"]["hostname"] = HOSTILE
    d["system"]["cpu_model"] = "\x01\x1b[31m<svg onload=alert(1)>"
    d["config"]["workload"] = {"kind": "spin", "spec": "<img src=x onerror=alert(2)>"}
    d["config"]["note"] = "</td></tr></table><iframe src=//evil.example>"
    cpu = d["cpus"][0]["cpu"]
    d["intervals"] = [{"t_s": 0.5 * (i + 1), "cpu": cpu, "max_ns": 100000 + i, "mean_ns": 60000}
                      for i in range(4)]
    d["telemetry"] = [{"t_s": 0.5 * (i + 1), "cpu": cpu, "max_ns": 100000, "p99_ns": 90000,
                       "mean_ns": 60000.0, "busy_pct": 1.0, "irqs": 600,
                       "idle": [{"state": "<b>C1</b>&", "residency_pct": 50.0}]} for i in range(4)]
    d["explain"] = {"method": "tracepoints", "threshold_ns": 1000, "events": 1, "events_lost": 0,
                    "spikes": 2, "spikes_kept": 2}
    d["spikes"] = [{"cpu": cpu, "t_s": 1.0, "latency_ns": 150000,
                    "causes": [{"kind": "thread", "name": HOSTILE, "pid": 42,
                                "policy": "<SCHED_FIFO>", "priority": 95, "ns": 100000},
                               {"kind": "irq", "name": "eth0 & <x>", "id": 30, "ns": 50000}],
                    "dominant": {"kind": "thread", "name": HOSTILE, "pid": 42}},
                   {"cpu": cpu, "t_s": 1.5, "latency_ns": 90000,
                    "causes": [{"kind": "unexplained", "name": "no events", "ns": 90000}],
                    "dominant": None}]
    d["spike_summary"] = {"method": "tracepoints", "by_cause": [
        {"kind": "thread", "name": HOSTILE, "pid": 42, "count": 1, "share": 0.5,
         "total_ns": 100000, "max_ns": 100000, "median_ns": 100000},
        {"kind": "unexplained", "name": "no events", "count": 1, "share": 0.5,
         "total_ns": 90000, "max_ns": 90000, "median_ns": 90000}]}
    return d


def minimal(base):
    keep = ("tool", "schema", "kind", "version", "cpus", "all")
    d = {k: copy.deepcopy(base[k]) for k in keep}
    for c in d["cpus"] + [d["all"]]:
        for k in ("exec_ns", "response_ns", "deadline_misses", "period_ns", "sched"):
            c.pop(k, None)
    return d


def window(base):
    d = copy.deepcopy(base)
    for k in ("spikes", "spike_windows", "explain", "spike_summary"):
        d.pop(k, None)
    cpu = d["cpus"][0]["cpu"]
    d["explain"] = {"method": "window", "reason": "not root: perf_event_open refused",
                    "threshold_ns": 100000, "events": 0, "events_lost": 0, "spikes": 40,
                    "windows_with_spikes": 2}
    d["spike_windows"] = [
        {"cpu": cpu, "t_s": 1.0, "spikes": 30, "max_ns": 900000,
         "causes": [{"kind": "ipi", "name": "call_function", "value": 25000.0, "baseline": 1.0,
                     "excess": 24999.0}],
         "dominant": {"kind": "ipi", "name": "call_function"}},
        {"cpu": cpu, "t_s": 2.0, "spikes": 10, "max_ns": 300000, "causes": [],
         "dominant": {"kind": "unexplained", "name": "nothing above the CPU's usual"}}]
    d["spike_summary"] = {"method": "window", "by_cause": [
        {"kind": "ipi", "name": "call_function", "windows": 1, "share": 0.5, "spikes": 30,
         "max_ns": 900000},
        {"kind": "unexplained", "name": "nothing above the CPU's usual", "windows": 1,
         "share": 0.5, "spikes": 10, "max_ns": 300000}]}
    return d


def metric(name, unit, b, v, verdict, test="bootstrap", ci=True):
    ratio = v / b if b else None
    return {"metric": name, "unit": unit, "baseline": b, "value": v, "ratio": ratio,
            "ci": [ratio * 0.9, ratio * 1.1] if ci and ratio else None,
            "p_value": 0.001 if verdict in ("worse", "better") else 0.4,
            "test": test, "verdict": verdict}


def compare(cpu):
    metrics = [metric("samples", "count", 2000.0, 2000.0, "n/a", "none", False),
               metric("p50", "ns", 66000.0, 60000.0, "better"),
               metric("p99", "ns", 100000.0, 150000.0, "worse"),
               metric("max", "ns", 2000000.0, 2100000.0, "no-difference", "exceedance", False),
               metric("exceed_p999", "rate", 0.001, 0.004, "worse", "binomial", False)]
    return {"tool": "jitterlab", "schema": 1, "kind": "compare", "version": "0.1.0",
            "argv": ["jitterlab", "compare", "A.json", "B.json"],
            "started_at": "2026-01-01T00:00:00.000Z", "alpha": 0.05, "baseline": "A",
            "inputs": [{"label": "A", "files": ["A.json"], "runs": 1},
                       {"label": "B <i>new</i>", "files": ["B.json"], "runs": 1}],
            "comparisons": [{"label": "B <i>new</i>", "verdict": "worse",
                             "cpus": [{"cpu": cpu, "metrics": metrics, "rank_test":
                                       {"p_greater": 0.56, "p_value": 0.001}},
                                      {"cpu": "all", "metrics": metrics, "rank_test": None}]}]}


def bad_docs(base, cmp):
    cpu = base["cpus"][0]["cpu"]
    out = {}
    d = copy.deepcopy(base)
    d["kind"] = "inspect"
    out["bad-kind"] = d
    d = copy.deepcopy(base)
    d["telemetry"] = [{"t_s": 1.0, "cpu": cpu, "busy_pct": 250}]
    out["bad-busy"] = d
    d = copy.deepcopy(base)
    d["intervals"] = [{"t_s": 1.0, "cpu": 4095, "max_ns": 5}]
    out["bad-cpu"] = d
    d = copy.deepcopy(base)
    d["cpus"][0]["histogram"]["bins"] = list(reversed(d["cpus"][0]["histogram"]["bins"]))
    out["bad-bins"] = d
    d = copy.deepcopy(base)
    d["spikes"] = [{"cpu": cpu, "t_s": "soon", "latency_ns": 5}]
    out["bad-spike"] = d
    c = copy.deepcopy(cmp)
    c["comparisons"][0]["verdict"] = "<script>"
    out["bad-verdict"] = c
    # hostile tail objects (run --tail): a huge number, a wrong type, a
    # million curve points
    entry = {"cpu": cpu, "verdict": "estimate", "checks": [], "curve": []}
    d = copy.deepcopy(base)
    d["tail"] = {"cpus": [dict(entry, exceedance_rate=1e308)], "all": None}
    out["bad-tail-huge"] = d
    d = copy.deepcopy(base)
    d["tail"] = {"cpus": [dict(entry, checks=[{"name": "ljung-box", "passed": "yes"}])]}
    out["bad-tail-type"] = d
    d = copy.deepcopy(base)
    d["tail"] = {"cpus": [dict(entry, curve=[{"probability": 0.5, "latency_ns": 1}] * 1000000)]}
    out["bad-tail-curve"] = d
    return out


def main():
    outdir, base_path = sys.argv[1], sys.argv[2]
    with open(base_path) as f:
        base = json.load(f)
    cmp = compare(base["cpus"][0]["cpu"])
    docs = {"big": big(base), "hostile": hostile(base), "minimal": minimal(base),
            "window": window(base), "compare": cmp}
    docs.update(bad_docs(base, cmp))
    for name, doc in docs.items():
        with open(os.path.join(outdir, name + ".json"), "w") as f:
            json.dump(doc, f)


if __name__ == "__main__":
    main()
