"""The cyclictest -h histogram format as the benchmarks read it: both
jitterlab (--histogram-file) and cyclictest write it. A histogram here is
[rows, overflow, max]: rows maps a 1 us row to its count, overflow counts
the values beyond the last row, max is the largest latency (us)."""
import re


def parse(text):
    rows, overflow, maxv = {}, 0, 0
    for line in text.splitlines():
        m = re.match(r"^(\d+) (\d+)", line)
        if m:
            rows[int(m.group(1))] = rows.get(int(m.group(1)), 0) + int(m.group(2))
        elif line.startswith("# Histogram Overflows:"):
            overflow = int(line.split(":")[1].split()[0])
        elif line.startswith("# Max Latencies:"):
            maxv = int(line.split(":")[1].split()[0])
    return [rows, overflow, maxv]


def empty():
    return [{}, 0, 0]


def merge(into, h):
    for k, v in h[0].items():
        into[0][k] = into[0].get(k, 0) + v
    into[1] += h[1]
    into[2] = max(into[2], h[2])


def count(h):
    return sum(h[0].values()) + h[1]


def pct(h, p):
    """Nearest-rank percentile in us; the maximum when the rank falls in the
    overflow."""
    rows, overflow, maxv = h
    total = sum(rows.values()) + overflow
    rank = max(1, -(-int(p * total) // 100)) if p < 100 else total
    seen = 0
    for k in sorted(rows):
        seen += rows[k]
        if seen >= rank:
            return k
    return maxv


def pct_interp(h, p):
    """Percentile in us, interpolated inside its 1 us row: the values of row
    k are taken as spread evenly over [k, k+1), which is what truncation to
    whole microseconds leaves of them. The maximum when the rank falls in
    the overflow."""
    rows, overflow, maxv = h
    total = sum(rows.values()) + overflow
    if total == 0:
        return 0.0
    rank = p / 100.0 * total
    seen = 0
    for k in sorted(rows):
        n = rows[k]
        if n and seen + n >= rank:
            return k + (rank - seen) / n
        seen += n
    return float(maxv)
