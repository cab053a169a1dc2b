#!/bin/sh
# The kernel log as anyone can fill it: root writes kernel-looking text into
# /dev/kmsg as user-space records (facility user, the only one a write can
# have), and `jitterlab tsc` and `run --clock tsc` judge the TSC as they did
# before: the same verdict, the same kernel figures and notes. The records
# stay in the host's log until reboot, so by default they are ones that
# mislead only a reader of the log that trusts them, without making anyone's
# --clock tsc refuse: a detected rate that is far off. With
# JL_E2E_KMSG_VERDICTS=1 they are also the watchdog's verdict ("Marking TSC
# unstable due to clocksource watchdog"), which makes every older jitterlab
# on this host refuse --clock tsc until reboot: for a machine of its own.
# Root only. About 2 s.
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
echo "<12>tsc: Detected 1000.000 MHz TSC" >/dev/kmsg
echo "<12>tsc: Refined TSC clocksource calibration: 1000.000 MHz" >/dev/kmsg
check "the records are in the log" sh -c 'dmesg -u -t | grep -q "^tsc: Refined TSC clocksource calibration: 1000.000 MHz"'
if [ "${JL_E2E_KMSG_VERDICTS:-0}" = 1 ]; then
    for prefix in "clocksource: " "tsc: " ""; do
        echo "<12>${prefix}Marking TSC unstable due to clocksource watchdog" >/dev/kmsg
    done
    echo "<12>TSC found unstable after boot, most likely due to broken BIOS." >/dev/kmsg
    check "the verdicts are in the log" sh -c 'dmesg -u -t | grep -q "^clocksource: Marking TSC unstable due to clocksource watchdog"'
fi
"$JL" tsc -D 0.1 -a "$cpu" -q --json "$T/after.json" 2>"$T/err"
rc_is "tsc after the records exits 0" 0 $?
pyt "$T/after.json" before="$T/before.json" <<'PY'
b = json.load(open(v["before"]))
t("the verdict is the one before the records", 'd["verdict"]["clock_tsc"] == b["verdict"]["clock_tsc"] and d["verdict"]["reasons"] == b["verdict"]["reasons"]', '(b["verdict"], d["verdict"])')
t("no user-space record among the kernel's notes and figures", 'd["kernel"]["notes"] == b["kernel"]["notes"] and d["kernel"]["watchdog_unstable"] == b["kernel"]["watchdog_unstable"] and d["kernel"]["detected_mhz"] == b["kernel"]["detected_mhz"] and d["kernel"]["refined_mhz"] == b["kernel"]["refined_mhz"]', '(b["kernel"], d["kernel"])')
t("the kernel's rate in the verdict's notes is not the written one", 'not any("1000.000 MHz" in n for n in d["verdict"]["notes"])', 'd["verdict"]["notes"]')
PY
if [ "$(jget "$T/after.json" 'd["verdict"]["clock_tsc"]')" = safe ]; then
    "$JL" run -a "$cpu" -D 0.3 --clock tsc -q --json "$T/run.json" 2>"$T/err"
    rc_is "run --clock tsc still runs" 0 $?
else
    ok "run --clock tsc # SKIP this machine's own kernel log calls the TSC unsafe"
fi
echo "1..$n"
