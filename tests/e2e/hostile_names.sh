#!/bin/sh
# A thread may name itself any bytes. A SCHED_FIFO helper thread on CPU 1
# named with an escape sequence and a byte that is not UTF-8 runs beside
# `run --explain` (about 6 s): the JSON result is valid, keeps the name in
# its text form (\xff for the byte), `report` and `compare` read it (exit
# 0), and no text output carries a raw ESC byte.
. "$(dirname "$0")/lib.sh"

if ! is_root; then
    ok "hostile names: the run keeps and shows them safely # SKIP not root"
    exit 0
fi
DIST=$JL_BUILD/tests/disturber
if [ ! -x "$DIST" ]; then
    not_ok "hostile names: disturber helper is built" "$DIST missing: run make tests"
    exit 0
fi
ESC=$(printf '\033')
NAME=$(printf '\033[2Jev\377il')
J=$T/hostile.json
# Every process is bounded by itself (helper: 2 s, hard stop at 3 s; run:
# 4 s); timeout only guards against a hang.
timeout -s KILL 120 "$JL" run -a 1 -p 90 -i 1ms -D 4s --explain=500us --json "$J" \
    >"$T/run.txt" 2>"$T/err" &
jl_pid=$!
d_rc=1
if wait_measuring "$T/run.txt" "$jl_pid"; then
    timeout -s KILL 20 "$DIST" spin 1 95 1500 50300 2 "$NAME" >"$T/d.out" 2>"$T/d.err"
    d_rc=$?
fi
wait "$jl_pid"
jl_rc=$?
if [ "$d_rc" -eq 77 ]; then
    ok "hostile names: the run keeps and shows them safely # SKIP SCHED_FIFO not permitted here"
    exit 0
fi
rc_is "the helper ran" 0 "$d_rc"
rc_is "run --explain beside it exits 0" 0 "$jl_rc"
pyt "$J" <<'PY'
def strings(o):
    if isinstance(o, str):
        yield o
    elif isinstance(o, dict):
        for k, x in o.items():
            yield k
            yield from strings(x)
    elif isinstance(o, list):
        for x in o:
            yield from strings(x)
want = "\x1b[2Jev\\xffil"
rows = d["spike_summary"]["by_cause"]
note("by_cause names: %r" % [r.get("name") for r in rows])
t("the result names the thread in its text form", 'any(s == want for s in strings(d))', 'd["spike_summary"]')
t("every cause row keeps its name", 'all(isinstance(r.get("name"), str) for r in rows)', 'rows')
PY
check "no raw ESC in run's text output" sh -c "! grep -q '$ESC' '$T/run.txt'"
check "run's text output shows the name escaped" grep -qF '\x1b[2Jev\xffil' "$T/run.txt"
check "report reads the document" "$JL" report "$J" -o "$T/hostile.html"
check "the HTML report holds no ESC byte" sh -c "! grep -q '$ESC' '$T/hostile.html'"
L=$T/$(printf 'lab\033[31m\376el').json
cp "$J" "$L"
"$JL" compare "$J" "$L" >"$T/cmp.txt" 2>"$T/err"
rc_is "compare reads it, under a hostile file name too" 0 "$?"
check "no raw ESC in compare's text output" sh -c "! grep -q '$ESC' '$T/cmp.txt'"
