#!/bin/sh
# run --explain beside a real-time parent whose short-lived children
# disturb the loop: each child inherits SCHED_FIFO 50 and is gone long
# before the run ends, and the causes still name it real-time at priority
# 50, from the trace's priorities (never SCHED_OTHER, never a bare "RT").
# About 5 s; at most ~10 s with the retry.
#
# A copy of sh(1) named rtchild, at SCHED_FIFO 50 on CPU 1, forks 100
# subshells back to back, each counting to 2000 (a millisecond or two of
# CPU, so that wake-ups land while one runs) and gone at once; a forked
# child keeps the name without an exec, which would rename it (under a
# second in all; timeout -s KILL 4 guards a hang),
# started once `run -a 1 -p 40 -i 1ms -D 3s --explain=50us` (FIFO 40, below
# the children) measures. CPU 0 stays with housekeeping. Asserted, free of
# any latency bound: thread parts named "rtchild" exist, and every one of
# them, and every summary row named "rtchild", says a real-time policy
# (SCHED_FIFO, SCHED_RR or SCHED_FIFO/RR) at priority 50. An attempt in
# which no spike had a child in it (other load held CPU 1) is repeated once.
. "$(dirname "$0")/lib.sh"

if ! is_root; then
    ok "explain: short-lived FIFO children keep their policy # SKIP not root"
    echo "1..$n"
    exit 0
fi
ncpu=$(getconf _NPROCESSORS_ONLN)
if [ "$ncpu" -lt 2 ]; then
    ok "explain: short-lived FIFO children keep their policy # SKIP needs CPU 1"
    echo "1..$n"
    exit 0
fi

# The children carry a name of their own: forked from a copy of sh(1).
for b in /bin/sh /usr/bin/sh; do
    [ -x "$b" ] && cp "$b" "$T/rtchild" && break
done
J=$T/children.json
attempt=1
while :; do
    timeout -s KILL 60 "$JL" run -a 1 -p 40 -i 1ms -D 3s --explain=50us --json "$J" \
        >"$T/run.txt" 2>"$T/err" &
    jl_pid=$!
    if wait_measuring "$T/run.txt" "$jl_pid"; then
        timeout -s KILL 4 chrt -f 50 taskset -c 1 "$T/rtchild" -c '
            i=0
            while [ "$i" -lt 100 ]; do
                (j=0; while [ "$j" -lt 2000 ]; do j=$((j + 1)); done) || exit 1
                i=$((i + 1))
            done' 2>"$T/parent.err"
        parent_rc=$?
    else
        parent_rc=1
    fi
    wait "$jl_pid"
    jl_rc=$?
    children=$(jget "$J" 'sum(1 for s in d["spikes"] for c in s["causes"] if c["kind"] == "thread" and c["name"] == "rtchild")' 2>/dev/null || echo 0)
    [ "$children" = 0 ] && [ "$attempt" -lt 2 ] || break
    echo "# attempt $attempt: no spike had a child in it (other load on CPU 1); measuring again"
    attempt=$((attempt + 1))
done
rc_is "run --explain exits 0" 0 "$jl_rc"
check "the FIFO 50 parent ran" test "$parent_rc" -eq 0
pyt "$J" <<'PY'
rt = ("SCHED_FIFO", "SCHED_RR", "SCHED_FIFO/RR")
parts = [c for s in d["spikes"] for c in s["causes"] if c["kind"] == "thread" and c["name"] == "rtchild"]
rows = [r for r in d["spike_summary"]["by_cause"] if r["kind"] == "thread" and r["name"] == "rtchild"]
t("the children disturbed the loop (thread parts named rtchild)", 'parts', 'd["spike_summary"]["by_cause"][:5]')
t("they are the short-lived children: several pids", 'len({c.get("pid") for c in parts}) >= 2', 'sorted({c.get("pid") for c in parts})[:5]')
t("every part of a child says a real-time policy at priority 50", 'all(c["policy"] in rt and c["priority"] == 50 for c in parts)', 'sorted({(c["policy"], c["priority"]) for c in parts})')
t("every summary row of the children says it too", 'all(r["policy"] in rt and r["priority"] == 50 for r in rows)', '[(r["policy"], r["priority"]) for r in rows]')
PY
echo "1..$n"
