#!/bin/sh
# run --influx: a real InfluxDB 1.x (Debian's, started here on loopback with
# its own config and storage) receives one point per CPU and report window
# over HTTP, with the window's max; UDP gets the same points; an absent or
# hanging server never holds up the measurement.
. "$(dirname "$0")/lib.sh"

if ! command -v influxd >/dev/null || ! command -v curl >/dev/null; then
    ok "influx over HTTP # SKIP influxd or curl missing (make deps installs them)"
else
    HPORT=$(freeport) RPORT=$(freeport)
    cat >"$T/influxdb.conf" <<CFG
reporting-disabled = true
bind-address = "127.0.0.1:$RPORT"
[meta]
  dir = "$T/influx/meta"
[data]
  dir = "$T/influx/data"
  wal-dir = "$T/influx/wal"
  query-log-enabled = false
[http]
  bind-address = "127.0.0.1:$HPORT"
  log-enabled = false
[monitor]
  store-enabled = false
CFG
    influxd -config "$T/influxdb.conf" >"$T/influxd.log" 2>&1 &
    DB_PID=$!; kill_on_exit "$DB_PID"
    if wait_for 30 curl -sf "http://127.0.0.1:$HPORT/ping"; then ok "InfluxDB answers on 127.0.0.1:$HPORT"; else
        not_ok "InfluxDB answers" "$(tail -3 "$T/influxd.log")"; fi
    curl -s -XPOST "http://127.0.0.1:$HPORT/query" --data-urlencode "q=CREATE DATABASE jl" >/dev/null
    "$JL" run -a 1 -i 1ms -D 5s --report-every 1s -q --influx "http://127.0.0.1:$HPORT/write?db=jl" \
        --json "$T/in.json" 2>"$T/err"
    rc_is "run --influx http://... exits 0" 0 $?
    curl -s -G "http://127.0.0.1:$HPORT/query" --data-urlencode db=jl --data-urlencode epoch=ns \
        --data-urlencode "q=SELECT samples, missed, max_ns, p99_ns, busy_pct FROM jitterlab WHERE cpu='1'" >"$T/q.json"
    pyt "$T/in.json" q="$T/q.json" <<'PY'
import json
r = json.load(open(v["q"]))["results"][0]
s = r.get("series", [{}])[0]
cols, vals = s.get("columns", []), s.get("values", [])
pts = [dict(zip(cols, x)) for x in vals]
lat = [p for p in pts if p.get("samples") is not None]
iv = [w for w in d["intervals"] if w["cpu"] == 1]
note("%d points with latency fields, %d windows in the result; influx counts %s" % (len(lat), len(iv), d.get("influx")))
t("one point per report window", 'len(lat) == len(iv) and len(iv) >= 4', '(len(lat), len(iv))')
t("each point has its window's samples, missed and max", '[(p["samples"], p["missed"], p["max_ns"]) for p in lat] == [(w["samples"], w["missed"], w["max_ns"]) for w in iv]', '([(p["samples"], p["max_ns"]) for p in lat], [(w["samples"], w["max_ns"]) for w in iv])')
t("p99 of each window lies between its min and max", 'all(w["min_ns"] <= p["p99_ns"] <= w["max_ns"] for p, w in zip(lat, iv))', 'lat')
t("telemetry fields merge into the window's point (same time)", 'any(p.get("busy_pct") is not None for p in lat)', 'pts[:3]')
i = d["influx"]
t("result: every point sent, none dropped", 'i["sent"] == i["points"] and i["dropped"] == 0 and i["points"] >= len(iv)', 'i')
PY
    # hostnames with every line-protocol special character, each from a
    # fixture tree's /proc/sys/kernel/hostname: the server takes every point
    # and keeps the name (a backslash that would read as an escape arrives
    # as the four characters \x5c)
    FXH=$T/hostfx
    cp -R "$JL_TOP/tests/fixtures/tsc-invariant-clean" "$FXH"
    mkdir -p "$FXH/proc/sys/kernel"
    i=0
    for name in 'back\slash' 'trailing\' 'com,ma' 'equ=als' 'sp ace' 'dou"ble' 'esc\,aped'; do
        i=$((i + 1))
        printf '%s\n' "$name" >"$FXH/proc/sys/kernel/hostname"
        curl -s -XPOST "http://127.0.0.1:$HPORT/query" --data-urlencode "q=CREATE DATABASE h$i" >/dev/null
        "$JL" run --sysroot "$FXH" -a 1 -i 1ms -D 1s --report-every 500ms -q \
            --influx "http://127.0.0.1:$HPORT/write?db=h$i" --json "$T/h$i.json" 2>"$T/err"
        rc_is "hostname '$name': run exits 0" 0 $?
        curl -s -G "http://127.0.0.1:$HPORT/query" --data-urlencode db=h$i \
            --data-urlencode "q=SHOW TAG VALUES FROM jitterlab WITH KEY = host" >"$T/hq$i.json"
        pyt "$T/h$i.json" q="$T/hq$i.json" name="$name" <<'PY'
want = v["name"].replace("\\", "\\x5c") if v["name"].endswith("\\") or "\\," in v["name"] else v["name"]
r = json.load(open(v["q"]))["results"][0]
got = [x[1] for x in r.get("series", [{}])[0].get("values", [])]
i = d["influx"]
t("hostname %r: every point taken by the server" % v["name"], 'i["points"] > 0 and i["sent"] == i["points"] and i["dropped"] == 0', 'i')
t("hostname %r: the server holds it" % v["name"], 'got == [want]', '(got, want)')
PY
    done
    kill -TERM "$DB_PID"; wait "$DB_PID" 2>/dev/null; DB_PID=
fi

# --- UDP: the same points, one datagram per drain pass ----------------------
UPORT=$(freeport)
python3 - "$UPORT" >"$T/udp.txt" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.settimeout(8)
end = time.monotonic() + 8
try:
    while time.monotonic() < end:
        sys.stdout.write(s.recv(65536).decode())
        sys.stdout.flush()
except socket.timeout:
    pass
PY
UDP_PID=$!; kill_on_exit "$UDP_PID"
sleep 0.3
"$JL" run -a 1 -i 1ms -D 3s --report-every 1s -q --no-telemetry --influx "udp://127.0.0.1:$UPORT" --json "$T/udp.json" 2>"$T/err"
rc_is "run --influx udp://... exits 0" 0 $?
sleep 0.5; kill "$UDP_PID" 2>/dev/null; wait "$UDP_PID" 2>/dev/null
pyt "$T/udp.json" f="$T/udp.txt" <<'PY'
got = [l for l in open(v["f"]).read().splitlines() if l.startswith("jitterlab,")]
t("UDP: every point arrives as a line", 'len(got) == d["influx"]["points"] == d["influx"]["sent"] and len(got) == len(d["intervals"])', '(len(got), d["influx"], len(d["intervals"]))')
PY

# --- an absent server and one that never answers ------------------------------
CLOSED=$(freeport)
start=$(date +%s%N)
"$JL" run -a 1 -i 1ms -D 2s --report-every 500ms -q --no-telemetry --influx "http://127.0.0.1:$CLOSED/write?db=x" \
    --json "$T/absent.json" 2>"$T/absent.err"
rc=$?; took=$((($(date +%s%N) - start) / 1000000))
rc_is "an absent InfluxDB: the run still exits 0" 0 $rc
pyt "$T/absent.json" took="$took" <<'PY'
i = d["influx"]
c = d["cpus"][0]
note("absent server: %s; took %s ms" % (i, v["took"]))
t("absent server: every point counted as dropped, the reason kept", 'i["points"] > 0 and i["dropped"] == i["points"] and i["sent"] == 0 and i["last_error"]', 'i')
t("absent server: the measurement ran its whole course (samples + missed = 2000)", 'c["samples"] + c["missed"] == 2000', '(c["samples"], c["missed"])')
PY
grep -q "points not delivered" "$T/absent.err" && ok "absent server: stderr says how many points were not delivered" ||
    not_ok "absent server: stderr says how many points were not delivered" "$(cat "$T/absent.err")"

HPORT2=$(freeport)
python3 - "$HPORT2" <<'PY' &
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(64)
held = []
end = time.monotonic() + 30
s.settimeout(1)
while time.monotonic() < end:
    try:
        c, _ = s.accept(); held.append(c)  # reads nothing, answers nothing
    except socket.timeout:
        pass
PY
HANG_PID=$!; kill_on_exit "$HANG_PID"
sleep 0.3
start=$(date +%s%N)
"$JL" run -a 1 -i 1ms -D 3s --report-every 200ms -q --no-telemetry --influx "http://127.0.0.1:$HPORT2/write?db=x" \
    --json "$T/hang.json" 2>"$T/hang.err"
rc=$?; took=$((($(date +%s%N) - start) / 1000000))
kill "$HANG_PID" 2>/dev/null; wait "$HANG_PID" 2>/dev/null; HANG_PID=
rc_is "a server that never answers: the run still exits 0" 0 $rc
pyt "$T/hang.json" took="$took" <<'PY'
i = d["influx"]
c = d["cpus"][0]
note("hanging server: %s; took %s ms" % (i, v["took"]))
t("hanging server: the measurement ran its whole course (samples + missed = 3000)", 'c["samples"] + c["missed"] == 3000', '(c["samples"], c["missed"])')
t("hanging server: nothing sent, the points counted as dropped", 'i["sent"] == 0 and i["dropped"] == i["points"] > 0', 'i')
t("hanging server: the end waits at most ~5 s for it", 'int(v["took"]) < 3000 + 8000', 'v["took"]')
PY
