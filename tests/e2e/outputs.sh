#!/bin/sh
# runs beside others
# Output paths, end to end: what --json, --samples and --histogram-file do
# to what is already at the path. /dev/null and FIFOs are written in place
# (never turned into regular files), /dev/stdout carries the document, a
# replaced file keeps its mode, a new one follows the umask, a symbolic link
# stays a link, a socket is refused with exit 2. Then the two documents that
# describe the machine (run and inspect) must agree on the preempt model, and
# the run's system object holds counts, not the machine's every thread.
# Short runs on CPU 1 (-l 50 -i 1ms); about 2 s.
. "$(dirname "$0")/lib.sh"

# every run is bounded: a FIFO without its reader would block the writer
short() { timeout -s KILL 20 "$JL" run -a 1 -l 50 -i 1ms -q "$@"; }
is_json() { python3 -m json.tool "$1" >/dev/null 2>&1; }

# --- character devices: a private /dev/null first, the real one after -----
# The real /dev/null is only tried once a node of our own survived, so that a
# broken build can never replace the machine's /dev/null.
private_ok=""
if is_root && mknod "$T/null" c 1 3 2>/dev/null && : >"$T/null" 2>/dev/null; then
    short --json "$T/null" --samples "$T/null" >"$T/out" 2>"$T/err"
    rc_is "run --json onto a private null device exits 0" 0 $?
    if [ -c "$T/null" ] && [ ! -s "$T/null" ]; then
        private_ok=1
        ok "a private null device stays a character device"
    else
        not_ok "a private null device stays a character device" "$(ls -l "$T/null")"
    fi
else
    ok "a private null device stays a character device # SKIP needs root and a dev-capable TMPDIR"
fi
if [ -n "$private_ok" ]; then
    short --json /dev/null --samples /dev/null --histogram-file /dev/null >"$T/out" 2>"$T/err"
    rc_is "run --json /dev/null exits 0" 0 $?
    check "/dev/null is still a character device" test -c /dev/null
else
    ok "/dev/null is still a character device # SKIP the private device check did not pass"
fi

# --- a FIFO gets the document through it --------------------------------------
mkfifo "$T/fifo"
timeout 20 cat "$T/fifo" >"$T/fifo.json" & # bounded: a replaced FIFO never ends
reader=$!
short --json "$T/fifo" >"$T/out" 2>"$T/err"
rc_is "run --json FIFO exits 0" 0 $?
wait "$reader"
check "the FIFO is still a FIFO" test -p "$T/fifo"
check "the FIFO's reader received a valid document" is_json "$T/fifo.json"

mkfifo "$T/samples.fifo"
timeout 20 sh -c 'gzip -c <"$1" >"$2"' sh "$T/samples.fifo" "$T/samples.csv.gz" &
reader=$!
short --samples "$T/samples.fifo" >"$T/out" 2>"$T/err"
rc_is "run --samples FIFO exits 0" 0 $?
wait "$reader"
check "samples arrive through the FIFO (gzip reader)" sh -c "gzip -dc '$T/samples.csv.gz' | head -1 | grep -q '^cpu,t_ns,latency_ns'"

# --- /dev/stdout ----------------------------------------------------------------
# As for /dev/null: a private link to /proc/self/fd/1 first, so that a build
# that renames over links can only ever replace the test's own.
ln -s /proc/self/fd/1 "$T/stdout"
short --json "$T/stdout" >"$T/stdout.json" 2>"$T/err"
rc_is "run --json LINK-TO-/proc/self/fd/1 exits 0" 0 $?
if [ -L "$T/stdout" ] && is_json "$T/stdout.json"; then
    ok "a private link to /proc/self/fd/1 carries the document to stdout"
    short --json /dev/stdout >"$T/stdout.json" 2>"$T/err"
    rc_is "run --json /dev/stdout exits 0" 0 $?
    check "run --json /dev/stdout prints a valid document" is_json "$T/stdout.json"
    check "/dev/stdout is still a link" test -L /dev/stdout
    timeout -s KILL 20 "$JL" inspect -a 1 --json /dev/stdout >"$T/inspect-stdout.out" 2>"$T/err"
    python3 - "$T/inspect-stdout.out" >/dev/null 2>&1 <<'EOF2'
import json, sys
text = open(sys.argv[1]).read()
# the text report comes first, the document after it
json.loads(text[text.index('\n{') + 1:])
EOF2
    if [ $? -eq 0 ]; then ok "inspect --json /dev/stdout appends the document"; else not_ok "inspect --json /dev/stdout appends the document" "$(tail -3 "$T/inspect-stdout.out")"; fi
else
    not_ok "a private link to /proc/self/fd/1 carries the document to stdout" "$(ls -l "$T/stdout")"
    ok "run --json /dev/stdout # SKIP the private link check did not pass"
fi

# --- modes --------------------------------------------------------------------
: >"$T/private.json"
chmod 600 "$T/private.json"
short --json "$T/private.json" >"$T/out" 2>"$T/err"
rc_is "run --json onto a 0600 file exits 0" 0 $?
check "a 0600 file stays 0600" test "$(stat -c %a "$T/private.json")" = 600
check "the 0600 file holds the new document" is_json "$T/private.json"
(umask 027 && short --json "$T/new.json" --histogram-file "$T/new.hist" >"$T/out" 2>"$T/err")
check "a new file follows the umask (027 -> 640)" test "$(stat -c %a "$T/new.json")" = 640
check "a new histogram file follows the umask too" test "$(stat -c %a "$T/new.hist")" = 640

# --- symbolic links -------------------------------------------------------------
echo old >"$T/real.json"
ln -s real.json "$T/latest.json"
short --json "$T/latest.json" >"$T/out" 2>"$T/err"
rc_is "run --json onto a symbolic link exits 0" 0 $?
check "the link is still a link" test -L "$T/latest.json"
check "the link's target holds the new document" is_json "$T/real.json"

# --- refused targets ------------------------------------------------------------
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$T/sock"
short --json "$T/sock" >"$T/out" 2>"$T/err"
rc_is "run --json onto a socket exits 2" 2 $?
check "the refusal names the option and says why" grep -q "^jitterlab: --json $T/sock: is a socket" "$T/err"
check "the socket is left alone" test -S "$T/sock"

# --- one machine description -------------------------------------------------
short --json "$T/run.json" >"$T/out" 2>"$T/err"
"$JL" inspect -a 1 --json "$T/inspect.json" >"$T/out" 2>"$T/err"
pyt "$T/run.json" inspect="$T/inspect.json" <<'EOF'
i = json.load(open(v["inspect"]))
s, si = d["system"], i["system"]
t("run and inspect name the same preempt model", 's["preempt_model"] == si["preempt_model"]', '(s["preempt_model"], si["preempt_model"])')
t("run and inspect name the same preempt source", 's["preempt_source"] == si["preempt_source"]', '(s["preempt_source"], si["preempt_source"])')
t("run's preempt object agrees with its preempt_model", 's["preempt"]["model"] == s["preempt_model"]', 's.get("preempt")')
t("inspect's preempt object agrees with its preempt_model", 'si["preempt"]["model"] == si["preempt_model"]', 'si.get("preempt")')
c = s.get("threads", {})
t("run's threads object has counts", 'all(isinstance(c.get(k), int) for k in ("scanned", "rt", "touching_targets_count"))', 'sorted(c)')
t("run lists no more threads than touch CPU 1", 'len(c["touching_targets"]) <= c["touching_targets_count"] <= c["scanned"]', '(len(c["touching_targets"]), c.get("touching_targets_count"), c.get("scanned"))')
t("run lists fewer threads than inspect", 'len(c["touching_targets"]) < max(1, len(si["threads"]["touching_targets"]))', '(len(c["touching_targets"]), len(si["threads"]["touching_targets"]))')
ir = s.get("irq_counts", {})
t("run's IRQ counts are there", 'isinstance(ir.get("total"), int) and isinstance(ir.get("touching_targets"), int)', 'ir')
t("run lists only IRQs that touch CPU 1", 'len(s["irqs"]) == ir["touching_targets"] <= ir["total"]', '(len(s["irqs"]), ir)')
EOF

echo "1..$n"
