#!/usr/bin/env python3
"""Writes a large `jitterlab run` result of the shape a long run on many
CPUs leaves with the default outputs, for the input-size tests and
bench/input-memory.sh: a real short result (the fuzz seed
report_read/run-telemetry.json) grown to CPUS cpus[] entries whose latency,
execution and response histograms fill every log-linear bucket over a span
(the worst a day of samples can spread out), HOURS hours of samples at the
result's interval, and the kept telemetry (at most --keep-windows entries,
3600 by default, all CPUs together). The layout is the writer's: indented,
every array of plain values on one line.

    mkbig.py OUT.json [--cpus 256] [--hours 24] [--keep-windows 3600]
                      [--octaves 10] [--seed 1]
"""
import argparse
import json
import os
import random

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
TEMPLATE = os.path.join(TOP, "tests", "fuzz", "corpus", "report_read", "run-telemetry.json")


def buckets(lo_ns, octaves):
    """Every bucket from the power of two at or below lo_ns, octaves up."""
    e = max(7, lo_ns.bit_length() - 1)
    out = []
    for k in range(e, e + octaves):
        w = 1 << (k - 7)
        out += [((1 << k) + i * w, (1 << k) + (i + 1) * w - 1) for i in range(128)]
    return out


def dist(lo_ns, octaves, samples, rng):
    """A histogram over every bucket of the span, counts adding up to
    samples, with the statistics the writer derives from it."""
    bs = buckets(lo_ns, octaves)
    weights = [rng.random() * 2 ** (-6 * i / len(bs)) for i in range(len(bs))]
    total = sum(weights)
    counts = [max(1, int(samples * w / total)) for w in weights]
    counts[0] += samples - sum(counts)
    mids = [lo + (hi - lo) // 2 for lo, hi in bs]
    mean = sum(m * c for m, c in zip(mids, counts)) / samples
    sd = (sum(c * (m - mean) ** 2 for m, c in zip(mids, counts)) / samples) ** 0.5
    stats = {"min": bs[0][0], "mean": round(mean), "stddev": round(sd), "max": bs[-1][1]}
    acc, k = 0, 0
    for key, p in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p999", 0.999), ("p9999", 0.9999)):
        while acc + counts[k] < p * samples:
            acc += counts[k]
            k += 1
        stats[key] = mids[k]
    hist = {"unit": "ns", "bins": [[lo, hi, c] for (lo, hi), c in zip(bs, counts)], "overflow": 0}
    return stats, hist


# the options: a day on 256 CPUs, the kept telemetry by default
DEFAULTS = {"cpus": 256, "hours": 24.0, "keep-windows": 3600, "octaves": 10, "seed": 1}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    for name, value in DEFAULTS.items():
        ap.add_argument("--" + name, type=type(value), default=value)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    doc = json.load(open(TEMPLATE))
    cfg = doc["config"]
    samples = int(a.hours * 3600e9 / cfg["interval_ns"])
    doc["duration_s"] = a.hours * 3600
    cfg["duration_ns"] = int(a.hours * 3600e9)
    cfg["cpus"] = list(range(a.cpus))
    cfg["keep_windows"] = a.keep_windows
    proto = doc["cpus"][0]
    cpus = []
    for cpu in range(a.cpus):
        e = json.loads(json.dumps(proto))
        e["cpu"] = cpu
        e["samples"] = samples
        e["missed"] = 0
        lat, e["histogram"] = dist(2000, a.octaves, samples, rng)
        lat["over_tolerance"] = 0
        lat["max_at_s"] = 1.0
        e["latency_ns"] = lat
        e["period_ns"]["count"] = samples - 1
        for key, lo in (("exec_ns", 200), ("response_ns", 2000)):
            st, h = dist(lo, a.octaves, samples, rng)
            e[key] = dict(st, histogram=h)
        cpus.append(e)
    doc["cpus"] = cpus
    lat, hist = dist(2000, a.octaves, samples * a.cpus, rng)
    lat["over_tolerance"] = 0
    lat["max_at_s"] = 1.0
    doc["all"].update(samples=samples * a.cpus, missed=0, latency_ns=lat, histogram=hist)
    for key, lo in (("exec_ns", 200), ("response_ns", 2000)):
        if key in doc["all"]:
            st, h = dist(lo, a.octaves, samples * a.cpus, rng)
            doc["all"][key] = dict(st, histogram=h)
    # the newest windows, all CPUs together; no CPU's samples checked against them
    tel = []
    per_cpu = max(1, a.keep_windows // a.cpus)
    proto_t = doc["telemetry"][0]
    for w in range(per_cpu):
        for cpu in range(a.cpus):
            t = dict(proto_t, cpu=cpu, t_s=a.hours * 3600 - per_cpu + w + 1.0)
            tel.append(t)
    doc["telemetry"] = tel[: a.keep_windows]
    doc["telemetry_dropped"] = int(a.hours * 3600) * a.cpus - len(doc["telemetry"])
    with open(a.out, "w") as f:
        dump(doc, f, "")
        f.write("\n")


def dump(v, f, ind):
    """The writer's layout: indented, arrays of plain values on one line."""
    if isinstance(v, dict):
        if not v:
            f.write("{}")
            return
        f.write("{\n")
        for i, (k, x) in enumerate(v.items()):
            f.write(ind + "  " + json.dumps(k) + ": ")
            dump(x, f, ind + "  ")
            f.write(",\n" if i + 1 < len(v) else "\n")
        f.write(ind + "}")
    elif isinstance(v, list) and any(isinstance(x, (dict, list)) for x in v):
        f.write("[\n")
        for i, x in enumerate(v):
            f.write(ind + "  ")
            dump(x, f, ind + "  ")
            f.write(",\n" if i + 1 < len(v) else "\n")
        f.write(ind + "]")
    else:
        f.write(json.dumps(v))

if __name__ == "__main__":
    main()
