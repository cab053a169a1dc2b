#!/bin/sh
# The kernel log as anyone can fill it: root writes the TSC watchdog's
# phrase into /dev/kmsg as a user-space record (facility user, the only one
# a write can have), and `jitterlab tsc` and `run --clock tsc` judge the TSC
# as they did before it. The record stays in the host's log until reboot,
# which is the point: no later run may be misled by it. Root only. About 2 s.
. "$(dirname "$0")/lib.sh"
ncpu=$(getconf _NPROCESSORS_ONLN)
cpu=0
[ "$ncpu" -ge 2 ] && cpu=1

if ! is_root || [ ! -w /dev/kmsg ]; then
    ok "user-space kernel log records # SKIP needs root and a writable /dev/kmsg"
    echo "1..$n"
    exit 0
fi

"$JL" tsc -D 0.1 -a "$cpu" -q --json "$T/before.json" 2>"$T/err"
rc_is "tsc before the records exits 0" 0 $?
for prefix in "clocksource: " "tsc: " ""; do
    echo "<12>${prefix}Marking TSC unstable due to clocksource watchdog" >/dev/kmsg
done
echo "<12>TSC found unstable after boot, most likely due to broken BIOS." >/dev/kmsg
check "the records are in the log" sh -c 'dmesg -u -t | grep -q "^clocksource: Marking TSC unstable due to clocksource watchdog"'
"$JL" tsc -D 0.1 -a "$cpu" -q --json "$T/after.json" 2>"$T/err"
rc_is "tsc after the records exits 0" 0 $?
pyt "$T/after.json" before="$T/before.json" <<'PY'
b = json.load(open(v["before"]))
t("the verdict is the one before the records", 'd["verdict"]["clock_tsc"] == b["verdict"]["clock_tsc"] and d["verdict"]["reasons"] == b["verdict"]["reasons"]', '(b["verdict"], d["verdict"])')
t("no user-space record among the kernel's notes", 'd["kernel"]["notes"] == b["kernel"]["notes"] and d["kernel"]["watchdog_unstable"] == b["kernel"]["watchdog_unstable"]', 'd["kernel"]')
PY
if [ "$(jget "$T/after.json" 'd["verdict"]["clock_tsc"]')" = safe ]; then
    "$JL" run -a "$cpu" -D 0.3 --clock tsc -q --json "$T/run.json" 2>"$T/err"
    rc_is "run --clock tsc still runs" 0 $?
else
    ok "run --clock tsc # SKIP this machine's own kernel log calls the TSC unsafe"
fi
echo "1..$n"
