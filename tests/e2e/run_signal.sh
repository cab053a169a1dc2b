#!/bin/sh
# SIGINT (Ctrl-C) and SIGTERM end a run early: exit status 0 and every
# requested output still written in full, marked interrupted, and the
# cross-output invariants (inv) hold for what was written. A 30 s run is
# stopped after about 1.5 s; a watchdog kills it if it does not stop. ~4 s.
. "$(dirname "$0")/lib.sh"
: "${JL_TOP:=$(cd "$(dirname "$0")/../.." && pwd)}"


# A non-interactive shell starts background commands with SIGINT ignored;
# give the run the default disposition, as a terminal's Ctrl-C would find it.
defsig=""
env --default-signal=INT,TERM true 2>/dev/null && defsig="env --default-signal=INT,TERM"

for sig in INT TERM; do
    J=$T/$sig.json S=$T/$sig.csv
    rm -f "$T/done"
    $defsig "$JL" run -a 1 -D 30 -q --json "$J" --samples "$S" >"$T/$sig.out" 2>"$T/$sig.err" &
    pid=$!
    # watchdog: SIGKILL after 15 s unless the run has been reaped
    (
        k=0
        while [ $k -lt 150 ] && [ ! -e "$T/done" ]; do sleep 0.1; k=$((k + 1)); done
        [ -e "$T/done" ] || kill -KILL "$pid" 2>/dev/null
    ) &
    wd=$!
    sleep 1.5
    kill -"$sig" "$pid"
    wait "$pid"
    rc=$?
    touch "$T/done"
    wait "$wd"
    if [ "$rc" -eq 0 ]; then ok "SIG$sig: exit status 0"; else not_ok "SIG$sig: exit status 0" "exit status $rc" "$(tail -3 "$T/$sig.err")"; fi
    check "SIG$sig: result document is valid JSON" python3 -m json.tool "$J"
    inv "SIG$sig" "$J" --samples "$S" --exit-code $rc
    pyt "$J" csv="$S" sig="SIG$sig" <<'EOF'
s = v["sig"]
t(s + ": interrupted is true", 'd["interrupted"] is True', 'd.get("interrupted")')
t(s + ": 500 < all.samples < 30000", '500 < d["all"]["samples"] < 30000', 'd["all"]["samples"]')
t(s + ": duration_s < 10", 'isinstance(d["duration_s"], (int, float)) and 0 < d["duration_s"] < 10', 'd.get("duration_s")')
t(s + ": started_at is RFC 3339 UTC", 're.fullmatch(r"\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?(Z|\\+00:00)", d["started_at"])', 'd.get("started_at")')
t(s + ": the document is complete (cpus, all, latency_ns, histogram)", 'd["tool"] == "jitterlab" and d["cpus"][0]["cpu"] == 1 and d["cpus"][0]["latency_ns"]["max"] >= d["cpus"][0]["latency_ns"]["p50"] and d["cpus"][0]["samples"] == d["all"]["samples"] and "histogram" in d["cpus"][0]')
hdr, rows = read_csv(v["csv"])
t(s + ": samples CSV is complete (rows == samples)", 'hdr == ["cpu", "t_ns", "latency_ns"] and len(rows) == d["all"]["samples"]', '(hdr, len(rows), d["all"]["samples"], d["all"].get("ring_drops"))')
t(s + ": samples CSV holds the maximum", 'max(r[2] for r in rows) == d["all"]["latency_ns"]["max"]', '(max(r[2] for r in rows), d["all"]["latency_ns"]["max"])')
EOF
    left=$(ls -A "$T" | grep -v -e '^INT\.' -e '^TERM\.' -e '^pyt\.' -e '^inv\.' -e '^check\.out$' -e '^done$')
    if [ -z "$left" ]; then ok "SIG$sig: no stray temporary files"; else not_ok "SIG$sig: no stray temporary files" "$left"; fi
done
