#!/usr/bin/env python3
"""Writes a synthetic `jitterlab run` result document of a known distribution,
for the compare and report tests: log-normal latencies in the run's own
log-linear histogram (1 ns buckets below 128 ns, then 128 per power of two),
with the statistics and percentiles `run` would report for those values.

    mkrun.py OUT.json [--median NS] [--sigma S] [--n N] [--seed K] [--scale X]
                      [--tail SHARE:FACTOR] [--cpus 1,2] [--missed N] [--budget NS]
                      [--gpd SHARE:XI:SIGMA] [--trend X] [--interval NS]
                      [--windows N] [--window-kind intervals|telemetry]
                      [--samples-csv FILE]

The tail tests draw the tail on purpose: --tail SHARE:FACTOR is a rare second
mode (that share of the values FACTOR times larger), --gpd SHARE:XI:SIGMA puts
that share above the median plus a generalized Pareto excess (shape XI, scale
SIGMA ns), --trend X grows the values by X over the run (1 + X*k/n).
--windows N cuts each CPU's values, in the order drawn (one per cycle of
--interval), into N report windows written as intervals[] or telemetry[];
--samples-csv writes those values as the samples file of `run --samples`.
    mkrun.py --batch < LINES      (one document per line of the arguments above:
                                   one interpreter for many documents)
"""
import argparse
import json
import math
import random
import shlex
import sys


def bucket(v):
    if v < 128:
        return v, v
    e = v.bit_length() - 1
    shift = e - 7
    lo = (v >> shift) << shift
    return lo, lo + (1 << shift) - 1


def percentile(sorted_vals, buckets, pct):
    n = len(sorted_vals)
    x = pct * n / 100.0
    rank = max(1, min(n, math.ceil(x - x * 8 * 2.220446049250313e-16)))
    if rank == 1:
        return sorted_vals[0]
    if rank == n:
        return sorted_vals[-1]
    lo, hi = bucket(sorted_vals[rank - 1])
    mid = lo + (hi - lo) // 2
    return max(sorted_vals[0], min(sorted_vals[-1], mid))


def cpu_entry(vals, cpu, missed):
    vals = sorted(vals)
    n = len(vals)
    mean = sum(vals) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / (n - 1)) if n > 1 else 0
    counts = {}
    for v in vals:
        b = bucket(v)
        counts[b] = counts.get(b, 0) + 1
    lat = {"min": vals[0], "mean": round(mean), "stddev": round(sd), "max": vals[-1]}
    for key, pct in (("p50", 50), ("p90", 90), ("p99", 99), ("p999", 99.9), ("p9999", 99.99)):
        lat[key] = percentile(vals, counts, pct)
    e = {"samples": n, "missed": missed, "latency_ns": lat,
         "histogram": {"unit": "ns", "bins": [[lo, hi, c] for (lo, hi), c in sorted(counts.items())],
                       "overflow": 0},
         "deadline_misses": 0}
    if cpu is not None:
        e = dict({"cpu": cpu}, **e)
    return e


def gpd_excess(rnd, xi, sigma):
    u = 1.0 - rnd.random()
    if abs(xi) < 1e-12:
        return -sigma * math.log(u)
    return sigma * (u ** -xi - 1.0) / xi


def windows_of(cpu, vals, n, interval_ns, kind):
    out = []
    per = max(1, len(vals) // n)
    for w in range(n):
        chunk = vals[w * per:(w + 1) * per] if w < n - 1 else vals[w * per:]
        if not chunk:
            continue
        t_s = round(((w * per + len(chunk)) * interval_ns) / 1e9, 9)
        e = {"t_s": t_s, "cpu": cpu, "samples": len(chunk), "missed": 0,
             "max_ns": max(chunk), "mean_ns": round(sum(chunk) / len(chunk))}
        if kind == "intervals":
            e["min_ns"] = min(chunk)
            e["latency_ns"] = {"count": len(chunk), "min": min(chunk), "mean": e["mean_ns"],
                               "max": max(chunk), "stddev": 0}
        out.append(e)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--median", type=float, default=60000)
    ap.add_argument("--sigma", type=float, default=0.25)
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--tail", default="0:1")
    ap.add_argument("--cpus", default="1")
    ap.add_argument("--missed", type=int, default=0)
    ap.add_argument("--budget", type=int, default=0)
    ap.add_argument("--gpd", default="")
    ap.add_argument("--trend", type=float, default=0.0)
    ap.add_argument("--interval", type=int, default=1000000)
    ap.add_argument("--windows", type=int, default=0)
    ap.add_argument("--window-kind", default="intervals", choices=("intervals", "telemetry"))
    ap.add_argument("--samples-csv", default="")
    a = ap.parse_args(argv)
    rnd = random.Random(a.seed)
    share, factor = (float(x) for x in a.tail.split(":"))
    cpus = [int(c) for c in a.cpus.split(",")]
    gshare, gxi, gsigma = (float(x) for x in a.gpd.split(":")) if a.gpd else (0, 0, 0)
    per_cpu, everything, windows, rows = [], [], [], []
    for cpu in cpus:
        vals = []
        for k in range(a.n):
            v = a.median * math.exp(a.sigma * rnd.gauss(0, 1)) * a.scale
            if share > 0 and rnd.random() < share:
                v *= factor
            if gshare > 0 and rnd.random() < gshare:
                v = a.median * a.scale * 1.5 + gpd_excess(rnd, gxi, gsigma)
            v *= 1 + a.trend * k / a.n
            vals.append(max(1, int(v)))
        per_cpu.append(cpu_entry(vals, cpu, a.missed))
        everything += vals
        if a.windows:
            windows += windows_of(cpu, vals, a.windows, a.interval, a.window_kind)
        rows += [(cpu, k * a.interval + v, v) for k, v in enumerate(vals)]
    doc = {"tool": "jitterlab", "schema": 1, "kind": "run", "version": "synthetic",
           "argv": ["jitterlab", "run"], "started_at": "2026-12-01T00:00:00.000Z",
           "duration_s": a.n / 1000.0, "interrupted": False,
           "system": {"hostname": "synthetic"},
           "config": {"interval_ns": a.interval, "budget_ns": a.budget or None, "cpus": cpus},
           "cpus": per_cpu, "all": cpu_entry(everything, None, a.missed * len(cpus))}
    if a.windows:
        windows.sort(key=lambda w: w["t_s"])
        doc[a.window_kind] = windows
    with open(a.out, "w") as f:
        json.dump(doc, f)
    if a.samples_csv:
        with open(a.samples_csv, "w") as f:
            f.write("cpu,t_ns,latency_ns\n")
            for cpu, t, v in rows:
                f.write("%d,%d,%d\n" % (cpu, t, v))


if sys.argv[1:] == ["--batch"]:
    for line in sys.stdin:
        if line.strip():
            main(shlex.split(line))
else:
    main()
