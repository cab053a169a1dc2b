#!/usr/bin/env python3
"""Cross-output invariants of one `jitterlab run`.

    invariants.py RESULT.json [--samples CSV] [--hist HISTFILE] [--text STDOUT]
                  [--budget-ns N] [--tolerance-ns N] [--exit-code N] [--label L]

Every figure the run reports is recomputed from an independent source and
compared: the per-sample CSV (written by the collector from the ring) against
the summary the real-time thread kept itself (JSON), the JSON against the
cyclictest-format histogram file and the printed summary table, each CPU
against the merged `all`, and the exit status against the budget. Engine
semantics mirrored here (src/engine/engine.c):

  * t_ns is the actual wake time relative to planned wake-up 0, latency_ns
    = wake - planned, so t_ns - latency_ns = k * interval (k = cycle index).
  * after a cycle that ended at c = t_ns + exec_ns, every planned time before
    c is missed: the next cycle is the first k with k * interval >= c, capped
    at the end of the run. Without exec_ns in the CSV only the part that is
    certain (planned times before the wake itself) is checked.
  * JSON missed = CSV gaps + the periods missed after the last sample.
  * period = t_ns - previous sample's t_ns, for consecutive cycles only (the
    first sample and a sample after missed periods have none); period_ns's
    count, min and max equal the CSV's; a sample is over tolerance when its
    latency or |period - interval| exceeds the tolerance.
  * percentiles: nearest rank on the log-linear histogram, bucket midpoint
    clamped to [min, max] (src/stats/histogram.c).
  * histogram file rows: latency // 1000 (0 for latency <= 0); rows beyond
    the last are overflows, listed by cycle index.

The JSON may hold more fields than these; only the ones used are read.
Output: one line per check, "ok<TAB>NAME" or "fail<TAB>NAME<TAB>WHAT WAS
COMPARED", as tests/e2e/lib.sh's tap_lines reads them.
"""
import argparse
import json
import math
import re
import sys

SUB_BITS = 7
SUB_COUNT = 1 << SUB_BITS
MAX_NS = 60_000_000_000
DBL_EPS = sys.float_info.epsilon

label = ""
failures = 0


def one_line(s):
    return " ".join(str(s).split())[:600]


def check(name, passed, why=""):
    global failures
    name = (label + ": " if label else "") + name
    if passed:
        print("ok\t" + one_line(name))
    else:
        failures += 1
        print("fail\t" + one_line(name) + "\t" + one_line(why))
    sys.stdout.flush()


def equal(name, got, want, what=""):
    check(name, got == want, "%s: got %r, want %r" % (what or "compared", got, want))


def note(text):
    print("note\t" + one_line(text))


# --- the log-linear histogram, as src/stats/histogram.[ch] define it --------
def bucket_index(v):
    if v < 0:
        return 0
    if v < SUB_COUNT:
        return v
    exp = v.bit_length() - 1
    shift = exp - SUB_BITS
    return (exp - SUB_BITS + 1) * SUB_COUNT + ((v >> shift) & (SUB_COUNT - 1))


def bucket_bounds(idx):
    if idx < SUB_COUNT:
        return idx, idx
    shift = idx // SUB_COUNT - 1
    lo = (SUB_COUNT + idx % SUB_COUNT) << shift
    return lo, lo + (1 << shift) - 1


def nearest_rank(pct, count):
    x = pct * count / 100.0
    r = math.ceil(x - x * 8 * DBL_EPS)
    return max(1, min(count, r))


def hist_of(values):
    """{bucket index: count} and the overflow count of a list of ns values."""
    bins, overflow = {}, 0
    for v in values:
        if v > MAX_NS:
            overflow += 1
        else:
            i = bucket_index(v)
            bins[i] = bins.get(i, 0) + 1
    return bins, overflow


def percentile_from_bins(bins, overflow, vmin, vmax, pct):
    """bins: list of [lo, hi, count] ascending, as the JSON holds them."""
    count = sum(b[2] for b in bins) + overflow
    if count == 0:
        return None
    rank = nearest_rank(pct, count)
    if rank == 1:
        return vmin
    if rank == count:
        return vmax
    seen = 0
    for lo, hi, n in bins:
        seen += n
        if seen >= rank:
            mid = lo + (hi - lo) // 2
            return min(max(mid, vmin), vmax)
    return vmax


PCTS = (("p50", 50), ("p90", 90), ("p99", 99), ("p999", 99.9), ("p9999", 99.99))


def check_stats(name, stats, hist, values):
    """stats: a latency_ns-like object; hist: {bins, overflow} or None;
    values: the exact values from the CSV or None."""
    if stats is None:
        return
    if hist is not None:
        bins = hist["bins"]
        ok_bins = all(bucket_bounds(bucket_index(b[0])) == (b[0], b[1]) and b[2] > 0 for b in bins)
        check(name + ": histogram bins are the log-linear buckets", ok_bins,
              "bins not matching a bucket: %r" % [b for b in bins if bucket_bounds(bucket_index(b[0])) != (b[0], b[1])][:3])
        if stats.get("min") is not None:
            for key, pct in PCTS:
                if key in stats:
                    want = percentile_from_bins(bins, hist["overflow"], stats["min"], stats["max"], pct)
                    equal(name + ": " + key + " is the nearest rank of its histogram", stats[key], want,
                          "%s from JSON vs recomputed from the JSON bins" % key)
    if values is None:
        return
    if not values:
        check(name + ": no samples, statistics null", stats.get("min") is None, "min %r" % stats.get("min"))
        return
    n = len(values)
    mean = sum(values) / n
    equal(name + ": min == CSV min", stats["min"], min(values), "min")
    equal(name + ": max == CSV max", stats["max"], max(values), "max")
    check(name + ": mean == CSV mean (+-1 ns)", abs(stats["mean"] - mean) <= 1,
          "JSON mean %r, CSV mean %.3f" % (stats["mean"], mean))
    if "stddev" in stats and n > 1:
        sd = math.sqrt(sum((x - mean) ** 2 for x in values) / n)
        check(name + ": stddev == CSV stddev (+-1 ns, 1e-6)", abs(stats["stddev"] - sd) <= 1 + sd * 1e-6,
              "JSON stddev %r, CSV %.3f" % (stats["stddev"], sd))
    srt = sorted(values)
    for key, pct in PCTS:
        if key not in stats:
            continue
        true = srt[nearest_rank(pct, n) - 1]
        lo, hi = bucket_bounds(bucket_index(true)) if 0 <= true <= MAX_NS else (true, true)
        check(name + ": " + key + " within the bucket of the CSV's nearest-rank value",
              lo - (hi - lo) <= stats[key] <= hi + (hi - lo) and abs(stats[key] - true) <= max(hi - lo, true // 100),
              "JSON %s %r, CSV nearest rank %r (bucket %d..%d)" % (key, stats[key], true, lo, hi))
    if hist is not None:
        bins, overflow = hist_of(values)
        want = [[*bucket_bounds(i), bins[i]] for i in sorted(bins)]
        got = [list(b) for b in hist["bins"]]
        diff = [(a, b) for a, b in zip(got, want) if a != b][:3]
        check(name + ": histogram bins == the CSV's values bucketed", got == want,
              "%d JSON bins vs %d from the CSV; first differences (JSON, CSV): %r" % (len(got), len(want), diff))
        equal(name + ": histogram overflow == CSV values beyond 60 s", hist["overflow"], overflow, "overflow")


def ceil_div(a, b):
    return -((-a) // b)


def expected_next_k(k, cycle_end, interval, n_planned):
    """The next cycle the engine sleeps to after cycle k ended at cycle_end;
    n_planned caps it (None: no duration)."""
    nxt = k + 1
    if nxt * interval < cycle_end and (n_planned is None or nxt < n_planned):
        late = (cycle_end - nxt * interval - 1) // interval + 1
        if n_planned is not None:
            late = min(late, n_planned - nxt)
        nxt += late
    return nxt


def read_samples(path):
    with open(path) as f:
        lines = f.read().splitlines()
    hdr = lines[0].split(",") if lines else []
    rows = []
    for line in lines[1:]:
        rows.append(line.split(","))
    return hdr, rows


def parse_summary_tables(text):
    """{title: {label: [fields...]}} for the tables printed by text_summary."""
    tables, title, cols = {}, None, None
    for line in text.splitlines():
        m = re.match(r"^(Latency|Execution time|Response time) \(µs\)", line)
        if m:
            title, cols = m.group(1), None
            tables[title] = {}
            continue
        if title is None:
            continue
        if not line.strip():
            if cols is not None:
                title = None
            continue
        f = line.split()
        if f[0] == "CPU":
            cols = f
            continue
        if cols is not None:
            tables[title][f[0]] = dict(zip(cols, f))
    return tables


def us_to_ns(s):
    return int(round(float(s) * 1000))


def main():
    global label
    ap = argparse.ArgumentParser()
    ap.add_argument("json")
    ap.add_argument("--samples")
    ap.add_argument("--hist")
    ap.add_argument("--text")
    ap.add_argument("--budget-ns", type=int)
    ap.add_argument("--tolerance-ns", type=int)
    ap.add_argument("--exit-code", type=int)
    ap.add_argument("--label", default="")
    a = ap.parse_args()
    label = a.label
    try:
        with open(a.json) as f:
            d = json.load(f)
    except Exception as e:  # noqa: BLE001 - one failing check says why
        check("result document parses", False, "%s: %s" % (a.json, e))
        return 1

    cfg = d["config"]
    interval = cfg["interval_ns"]
    duration = cfg.get("duration_ns")
    loops = cfg.get("loops")
    tol = cfg.get("tolerance_ns")
    deadline = cfg.get("deadline_ns")  # None: the run had no deadline
    interrupted = d.get("interrupted") is True
    cpus = d["cpus"]
    alld = d["all"]
    n_planned = ceil_div(duration, interval) if duration else None

    # --- options echoed in the document -----------------------------------
    if a.budget_ns is not None:
        equal("config.budget_ns is the --budget given", cfg.get("budget_ns"), a.budget_ns, "budget_ns")
    if a.tolerance_ns is not None:
        equal("config.tolerance_ns is the --tolerance given", tol, a.tolerance_ns, "tolerance_ns")
    equal("config.cpus are the cpus[] entries", cfg["cpus"], [c["cpu"] for c in cpus], "cpus")

    # --- each CPU: counts that the engine keeps exactly ------------------------
    for c in cpus:
        who = "cpu %d" % c["cpu"]
        h = c["histogram"]
        equal(who + ": histogram counts + overflow == samples",
              sum(b[2] for b in h["bins"]) + h["overflow"], c["samples"], "bins + overflow")
        if n_planned is not None and not interrupted and (not loops or c["samples"] < loops):
            equal(who + ": samples + missed == planned cycles (duration / interval)",
                  c["samples"] + c["missed"], n_planned, "samples %d + missed %d" % (c["samples"], c["missed"]))
        elif n_planned is not None:
            check(who + ": samples + missed <= planned cycles", c["samples"] + c["missed"] <= n_planned,
                  "samples %d + missed %d > %d" % (c["samples"], c["missed"], n_planned))
        if loops and not interrupted:
            check(who + ": samples <= loops", c["samples"] <= loops, "%d > %d" % (c["samples"], loops))
        check_stats(who + ": latency_ns", c["latency_ns"], h, None)
        for key in ("exec_ns", "response_ns"):
            if isinstance(c.get(key), dict) and "histogram" in c[key]:
                check_stats(who + ": " + key, c[key], c[key]["histogram"], None)
        lat = c["latency_ns"]
        if c["samples"]:
            check(who + ": latency_ns.min >= 0", lat["min"] >= 0, "min %r" % lat["min"])
        pf = c.get("page_faults", "absent")
        check(who + ": page_faults is a count (null only when the loop never ran)",
              (isinstance(pf, int) and not isinstance(pf, bool) and pf >= 0) or (pf is None and not c["samples"]),
              repr(pf))
        if tol is None:
            check(who + ": no tolerance, over_tolerance null", lat.get("over_tolerance") is None,
                  repr(lat.get("over_tolerance")))

    # --- all == the merge of the CPUs --------------------------------------------
    def summed(key, where=lambda c: c):
        return sum(where(c)[key] for c in cpus)

    equal("all.samples == sum over CPUs", alld["samples"], summed("samples"), "samples")
    equal("all.missed == sum over CPUs", alld["missed"], summed("missed"), "missed")
    if deadline is None:
        check("no deadline: no deadline_misses count anywhere",
              all(x.get("deadline_misses") is None for x in cpus + [alld] + (d.get("intervals") or [])),
              "deadline_misses %r" % [x.get("deadline_misses") for x in cpus + [alld]])
    elif "deadline_misses" in alld:
        equal("all.deadline_misses == sum over CPUs", alld["deadline_misses"], summed("deadline_misses"),
              "deadline_misses")
    if tol is not None:
        equal("all.over_tolerance == sum over CPUs", alld["latency_ns"]["over_tolerance"],
              sum(c["latency_ns"]["over_tolerance"] for c in cpus), "over_tolerance")
    for key in ("latency_ns", "exec_ns", "response_ns"):
        if not isinstance(alld.get(key), dict):
            continue
        hist_all = alld["histogram"] if key == "latency_ns" else alld[key].get("histogram")
        hists = [c["histogram"] if key == "latency_ns" else c[key].get("histogram") for c in cpus]
        withs = [c for c in cpus if c["samples"]]
        if withs:
            equal("all." + key + ".min == min over CPUs", alld[key]["min"], min(c[key]["min"] for c in withs), "min")
            equal("all." + key + ".max == max over CPUs", alld[key]["max"], max(c[key]["max"] for c in withs), "max")
            wmean = sum(c[key]["mean"] * c["samples"] for c in withs) / sum(c["samples"] for c in withs)
            check("all." + key + ".mean == samples-weighted mean of CPUs (+-1 ns)",
                  abs(alld[key]["mean"] - wmean) <= 1, "all %r, weighted %.3f" % (alld[key]["mean"], wmean))
        if hist_all is not None and all(x is not None for x in hists):
            merged = {}
            for hh in hists:
                for lo, hi, n in hh["bins"]:
                    merged[(lo, hi)] = merged.get((lo, hi), 0) + n
            want = [[lo, hi, merged[(lo, hi)]] for lo, hi in sorted(merged)]
            equal("all." + key + " histogram == CPUs' bins summed", [list(b) for b in hist_all["bins"]], want, "bins")
            equal("all." + key + " overflow == sum over CPUs", hist_all["overflow"],
                  sum(hh["overflow"] for hh in hists), "overflow")
            check_stats("all: " + key, alld[key], hist_all, None)

    faults = [c.get("page_faults") for c in cpus]
    equal("all: page_faults is the sum over CPUs (null if one is unknown)", alld.get("page_faults", "absent"),
          None if None in faults else sum(faults), "page_faults")

    # --- exit status and budget ------------------------------------------------
    if a.exit_code is not None:
        budget = cfg.get("budget_ns")
        over = budget is not None and alld["samples"] > 0 and alld["latency_ns"]["max"] > budget
        equal("exit status %s (max %s ns, budget %s ns)" % (3 if over else 0, alld["latency_ns"]["max"], budget),
              a.exit_code, 3 if over else 0, "exit status")

    # --- the samples CSV -----------------------------------------------------------
    per_cpu = {}
    has_exec = False
    if a.samples:
        hdr, raw = read_samples(a.samples)
        check("samples CSV header starts cpu,t_ns,latency_ns", hdr[:3] == ["cpu", "t_ns", "latency_ns"], repr(hdr))
        has_exec = "exec_ns" in hdr
        ix = {k: i for i, k in enumerate(hdr)}
        for r in raw:
            row = {"cpu": int(r[0]), "t": int(r[1]), "lat": int(r[2])}
            if has_exec:
                row["exec"] = int(r[ix["exec_ns"]])
            per_cpu.setdefault(row["cpu"], []).append(row)
        equal("samples CSV holds only measured CPUs", sorted(per_cpu), sorted(c["cpu"] for c in cpus if c["samples"]),
              "CPUs in the CSV")
        for c in cpus:
            who = "cpu %d" % c["cpu"]
            rows = per_cpu.get(c["cpu"], [])
            if c.get("ring_drops", 0):
                note("%s: %d ring drops, CSV checks skipped" % (who, c["ring_drops"]))
                continue
            equal(who + ": CSV rows == samples", len(rows), c["samples"], "rows")
            if not rows:
                continue
            lats = [r["lat"] for r in rows]
            bad = [r for r in rows if (r["t"] - r["lat"]) % interval]
            check(who + ": every t_ns - latency_ns is a multiple of the interval", not bad,
                  "%d rows off the schedule, e.g. %r" % (len(bad), bad[:3]))
            check(who + ": no latency below zero", min(lats) >= 0, "min %d" % min(lats))
            ks = [(r["t"] - r["lat"]) // interval for r in rows]
            equal(who + ": the first sample is planned cycle 0", ks[0], 0, "first cycle index")
            check(who + ": planned cycles strictly increase", all(b > a_ for a_, b in zip(ks, ks[1:])),
                  "first out of order at %r" % (next(((i, a_, b) for i, (a_, b) in enumerate(zip(ks, ks[1:])) if b <= a_), None),))
            gaps = [b - a_ - 1 for a_, b in zip(ks, ks[1:])]
            csv_missed = sum(gaps)
            if n_planned is not None:
                tail_room = n_planned - 1 - ks[-1]
            elif interrupted:
                tail_room = None
            else:
                tail_room = 0
            check(who + ": CSV gaps <= missed <= CSV gaps + periods left after the last sample",
                  csv_missed <= c["missed"] and (tail_room is None or c["missed"] <= csv_missed + tail_room),
                  "CSV gaps %d, JSON missed %d, room after the last sample %r" % (csv_missed, c["missed"], tail_room))
            # periods that had certainly passed when the thread woke
            certain = [max(0, ceil_div(r["t"], interval) - k - 1) for r, k in zip(rows, ks)]
            short = [(i, g, m) for i, (g, m) in enumerate(zip(gaps, certain)) if g < m]
            check(who + ": every planned time passed before a wake-up is skipped as missed", not short,
                  "(sample, gap, passed before its wake) %r" % short[:3])
            if has_exec:
                want_k = [expected_next_k(k, r["t"] + r["exec"], interval, n_planned) for r, k in zip(rows, ks)]
                # With counters the cycle ends after the second counter read,
                # which follows the execution window: only a lower bound.
                counted = bool(d["config"].get("counters"))
                wrong = [(i, ks[i + 1], want_k[i]) for i in range(len(ks) - 1)
                         if ks[i + 1] < want_k[i] or (not counted and ks[i + 1] != want_k[i])]
                check(who + ": missed periods are exactly the planned times before each cycle's end"
                      + (" (at least, with counters)" if counted else ""), not wrong,
                      "%d gaps wrong, (sample, next cycle, expected) %r" % (len(wrong), wrong[:3]))
                if not counted and not interrupted and not (loops and c["samples"] >= loops):
                    tail = want_k[-1] - ks[-1] - 1
                    if n_planned is not None:
                        tail = min(tail, n_planned - 1 - ks[-1])
                    equal(who + ": missed == CSV gaps + the periods passed at the last cycle's end",
                          c["missed"], csv_missed + max(0, tail), "missed (CSV gaps %d, tail %d)" % (csv_missed, tail))
            check_stats(who + ": latency_ns (CSV)", c["latency_ns"], c["histogram"], lats)
            if has_exec:
                execs = [r["exec"] for r in rows]
                resp = [r["lat"] + r["exec"] for r in rows]
                check_stats(who + ": exec_ns (CSV)", c["exec_ns"], c["exec_ns"].get("histogram"), execs)
                check_stats(who + ": response_ns (CSV)", c["response_ns"], c["response_ns"].get("histogram"), resp)
                if deadline is not None:
                    equal(who + ": deadline_misses == CSV rows with latency + exec > deadline",
                          c["deadline_misses"], sum(1 for x in resp if x > deadline),
                          "deadline misses (deadline %d ns)" % deadline)
                check(who + ": exec_ns >= 0", min(execs) >= 0, "min exec %d" % min(execs))
            periods = [r["t"] - rows[i - 1]["t"] for i, r in enumerate(rows)
                       if i and (r["t"] - r["lat"]) - (rows[i - 1]["t"] - rows[i - 1]["lat"]) == interval]
            pj = c.get("period_ns")
            if pj is not None and "count" in pj and not c.get("ring_drops", 0):
                equal(who + ": period_ns count, min, max == the CSV's consecutive cycles",
                      (pj["count"], pj["min"], pj["max"]),
                      (len(periods), min(periods) if periods else None, max(periods) if periods else None))
            if tol is not None:
                over = 0
                for i, r in enumerate(rows):
                    # consecutive cycles only: after missed periods there is no period
                    consecutive = i and (r["t"] - r["lat"]) - (rows[i - 1]["t"] - rows[i - 1]["lat"]) == interval
                    err = (r["t"] - rows[i - 1]["t"] - interval) if consecutive else 0
                    if r["lat"] > tol or abs(err) > tol:
                        over += 1
                equal(who + ": over_tolerance == CSV rows with latency or |period error| > %d ns" % tol,
                      c["latency_ns"]["over_tolerance"], over, "over_tolerance")
            if "max_at_s" in c["latency_ns"]:
                at = [r["t"] for r in rows if r["lat"] == c["latency_ns"]["max"]]
                check(who + ": max_at_s is the wake time of a sample with the max latency",
                      any(abs(x / 1e9 - c["latency_ns"]["max_at_s"]) < 1e-6 for x in at),
                      "max_at_s %r, wake times of the max %r" % (c["latency_ns"]["max_at_s"], at[:3]))
        if alld.get("ring_drops", 0) == 0 and per_cpu:
            every = [r["lat"] for rows in per_cpu.values() for r in rows]
            check_stats("all: latency_ns (CSV)", alld["latency_ns"], alld["histogram"], every)
        check_intervals(d, per_cpu, interval, tol, deadline)

    # --- the cyclictest-format histogram file -------------------------------------
    if a.hist:
        check_histfile(a.hist, cpus, per_cpu, interval, d.get("config", {}).get("pm_qos_us"))

    # --- the printed summary --------------------------------------------------------
    if a.text:
        with open(a.text, encoding="utf-8", errors="replace") as f:
            tables = parse_summary_tables(f.read())
        check("summary: a Latency table is printed", "Latency" in tables, "tables %r" % list(tables))
        blocks = [("Latency", "latency_ns")]
        if "Execution time" in tables or "Response time" in tables:
            blocks += [("Execution time", "exec_ns"), ("Response time", "response_ns")]
        for title, key in blocks:
            table = tables.get(title, {})
            rows = [(str(c["cpu"]), c) for c in cpus] + ([("all", alld)] if len(cpus) > 1 else [])
            for lab, src in rows:
                got = table.get(lab)
                who = "summary %s, %s" % (title, lab)
                if got is None:
                    check(who + ": row printed", False, "rows %r" % list(table))
                    continue
                equal(who + ": samples", int(got["samples"]), src["samples"], "samples")
                if title == "Latency":
                    equal(who + ": missed", int(got["missed"]), src["missed"], "missed")
                else:  # a missed period is the wake-up's: printed once, in the latency table
                    check(who + ": no missed column", "missed" not in got, "columns %r" % list(got))
                s = src[key]
                if not src["samples"]:
                    continue
                for col, k in (("min", "min"), ("p50", "p50"), ("p90", "p90"), ("p99", "p99"),
                               ("p99.9", "p999"), ("max", "max")):
                    equal(who + ": " + col + " == JSON " + k, us_to_ns(got[col]), s[k],
                          "printed %s µs vs JSON %s ns" % (got[col], s[k]))
                check(who + ": mean == JSON mean (+-1 ns)", abs(us_to_ns(got["mean"]) - s["mean"]) <= 1,
                      "printed %s µs vs JSON %s ns" % (got["mean"], s["mean"]))
                if title == "Latency" and tol is not None:
                    equal(who + ": over-tol", int(got["over-tol"]), s["over_tolerance"], "over-tol")
                if title == "Response time" and src.get("deadline_misses") is not None:
                    equal(who + ": dl-miss", int(got["dl-miss"]), src["deadline_misses"], "dl-miss")
                if title == "Response time" and src.get("deadline_misses") is None:
                    check(who + ": no dl-miss column without a deadline", "dl-miss" not in got,
                          "dl-miss %r" % got.get("dl-miss"))
    return 1 if failures else 0


def check_intervals(d, per_cpu, interval, tol, deadline):
    ivs = d.get("intervals")
    if ivs is None:
        return
    cfg = d["config"]
    every_n = cfg.get("report_every_samples")
    every_ns = cfg.get("report_every_ns")
    dropped = d.get("intervals_dropped", 0)
    total_windows = 0
    counted_all = True
    for c in d["cpus"]:
        rows = per_cpu.get(c["cpu"], [])
        if c.get("ring_drops", 0) or not rows:
            counted_all = False
            continue
        who = "cpu %d intervals" % c["cpu"]
        mine = [i for i in ivs if i["cpu"] == c["cpu"]]
        ks = [(r["t"] - r["lat"]) // interval for r in rows]
        missed_before = [0] + [b - a - 1 for a, b in zip(ks, ks[1:])]
        groups = []
        for i, r in enumerate(rows):
            key = (i // every_n) if every_n else (r["t"] // every_ns)
            if not groups or groups[-1][0] != key:
                groups.append((key, []))
            groups[-1][1].append(i)
        want = []
        for _, idx in groups:
            lat = [rows[i]["lat"] for i in idx]
            over = None
            if tol is not None:
                over = 0
                for i in idx:
                    # a sample after missed periods has no period
                    err = (rows[i]["t"] - rows[i - 1]["t"] - interval) if i and not missed_before[i] else 0
                    over += rows[i]["lat"] > tol or abs(err) > tol
            dl = None
            if "exec" in rows[0] and deadline is not None:
                dl = sum(1 for i in idx if rows[i]["lat"] + rows[i]["exec"] > deadline)
            want.append({"samples": len(idx), "missed": sum(missed_before[i] for i in idx), "min_ns": min(lat),
                         "max_ns": max(lat), "mean": sum(lat) / len(lat), "over": over, "dl": dl})
        tail = c["missed"] - sum(missed_before)
        if tail:
            if every_n and len(groups[-1][1]) == every_n:
                want.append({"samples": 0, "missed": tail, "min_ns": None, "max_ns": None, "mean": None,
                             "over": 0 if tol is not None else None, "dl": 0 if "exec" in rows[0] and deadline is not None else None})
            else:
                want[-1]["missed"] += tail
        total_windows += len(want)
        if dropped:
            # --keep-windows: the result keeps the newest windows, so each
            # CPU's kept windows are the last of its own.
            want = want[len(want) - len(mine):] if len(mine) <= len(want) else want
        else:
            equal(who + ": one window per group of samples", len(mine), len(want),
                  "windows (JSON samples %r, CSV %r)" % ([i["samples"] for i in mine][:8], [w["samples"] for w in want][:8]))
        bad = []
        for j, (g, w) in enumerate(zip(mine, want)):
            for k in ("samples", "missed", "min_ns", "max_ns"):
                if g[k] != w[k]:
                    bad.append((j, k, g[k], w[k]))
            if w["mean"] is not None and abs(g["mean_ns"] - w["mean"]) > 1:
                bad.append((j, "mean_ns", g["mean_ns"], w["mean"]))
            if w["over"] is not None and g.get("over_tolerance") != w["over"]:
                bad.append((j, "over_tolerance", g.get("over_tolerance"), w["over"]))
            if w["dl"] is not None and "deadline_misses" in g and g["deadline_misses"] != w["dl"]:
                bad.append((j, "deadline_misses", g["deadline_misses"], w["dl"]))
        check(who + ": samples, missed, min, mean, max (and over-tolerance) == the CSV's windows", not bad,
              "(window, field, JSON, CSV) %r" % bad[:4])
        check(who + ": windows in time order", all(x["t_s"] <= y["t_s"] for x, y in zip(mine, mine[1:])),
              repr([x["t_s"] for x in mine][:8]))
    if counted_all:
        equal("intervals kept + intervals_dropped == the CSV's windows", len(ivs) + dropped, total_windows,
              "kept %d, dropped %d" % (len(ivs), dropped))


def check_histfile(path, cpus, per_cpu, interval, pm_qos_us):
    with open(path) as f:
        lines = f.read().splitlines()
    # cyclictest -h prints its PM QoS line before '# Histogram', only once it holds one
    head = (["# /dev/cpu_dma_latency set to %dus" % pm_qos_us] if pm_qos_us is not None else []) + ["# Histogram"]
    check("histogram file starts with %r" % head, lines[:len(head)] == head, repr(lines[:len(head)]))
    lines = lines[len(head) - 1:]
    body = [x for x in lines[1:] if not x.startswith("#")]
    ncpu = len(cpus)
    table = []
    for i, x in enumerate(body):
        f = x.split()
        table.append([int(v) for v in f[1:]])
        if int(f[0]) != i or len(f) != 1 + ncpu:
            check("histogram file row %d is '%%06d' + one column per CPU" % i, False, repr(x))
            return
    nrows = len(table)

    def trailer(prefix):
        got = [x for x in lines if x.startswith(prefix)]
        return [int(v) for v in got[0][len(prefix):].split()] if got else None

    for j, c in enumerate(cpus):
        who = "histogram file, cpu %d (column %d)" % (c["cpu"], j + 1)
        col = [r[j] for r in table]
        lat = c["latency_ns"]
        equal(who + ": Total == sum of the rows", (trailer("# Total:") or [None] * ncpu)[j], sum(col), "Total")
        equal(who + ": Total + Overflows == samples",
              sum(col) + (trailer("# Histogram Overflows:") or [0] * ncpu)[j], c["samples"], "Total + Overflows")
        if c["samples"]:
            equal(who + ": Min Latencies == floor(min / 1 µs)", trailer("# Min Latencies:")[j],
                  max(lat["min"], 0) // 1000, "Min")
            equal(who + ": Max Latencies == floor(max / 1 µs)", trailer("# Max Latencies:")[j],
                  max(lat["max"], 0) // 1000, "Max")
            equal(who + ": Avg Latencies == floor(mean / 1 µs)", trailer("# Avg Latencies:")[j],
                  max(lat["mean"], 0) // 1000, "Avg")
        rows = per_cpu.get(c["cpu"])
        if rows is None or c.get("ring_drops", 0):
            continue
        want = [0] * nrows
        over_k = []
        for r in rows:
            row = r["lat"] // 1000 if r["lat"] > 0 else 0
            if row < nrows:
                want[row] += 1
            else:
                over_k.append((r["t"] - r["lat"]) // interval)
        diff = [(i, col[i], want[i]) for i in range(nrows) if col[i] != want[i]]
        check(who + ": every row == CSV samples with that many whole µs", not diff,
              "(row, file, CSV) %r" % diff[:4])
        equal(who + ": Overflows == CSV samples beyond the last row", trailer("# Histogram Overflows:")[j],
              len(over_k), "Overflows")
        listed = [x for x in lines if x.startswith("# Thread %d:" % j)]
        nums = None
        if listed:
            nums = [int(v) for v in listed[0][len("# Thread %d:" % j):].split(" # ")[0].split()]
        # as cyclictest: at most one cycle number per row
        cap = nrows
        equal(who + ": overflow cycle numbers == CSV cycle indices (at most one per row)", nums,
              over_k[:cap], "cycle numbers")
        others = listed[0].split(" # ")[1:] if listed else []
        equal(who + ": '# NNNNN others' counts the overflows not listed", others,
              ["%05d others" % (len(over_k) - cap)] if len(over_k) > cap else [], "others")
    m = [x for x in lines if x.startswith("# jitterlab: thread-to-CPU")]
    equal("histogram file maps threads to CPUs", m[0].split()[3:] if m else None,
          ["%d:%d" % (j, c["cpu"]) for j, c in enumerate(cpus)], "thread-to-CPU")


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:  # noqa: BLE001 - a crash of the checker is not a verdict
        import traceback
        traceback.print_exc()
        sys.exit(2)
