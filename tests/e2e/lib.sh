# Shared helpers for the end-to-end scripts (sourced). Each check prints one
# TAP line; the runner counts them. $JL is the jitterlab binary under test.
: "${JL:?JL must point at the jitterlab binary}"
# Debian's own tools first (python3 with its SciPy, rt-tests, prometheus),
# not what a login environment puts ahead of them (a pyenv or virtualenv
# shim costs a second or more per python3 start, and the suite starts
# python3 hundreds of times).
PATH=/usr/bin:/bin:/usr/sbin:/sbin:$PATH
export PATH
n=0
T=$(mktemp -d "${TMPDIR:-/tmp}/jl-e2e.XXXXXX")
# kill_on_exit PID: the test's own servers and runs end with it, whatever happens
JL_KILL_ON_EXIT=
kill_on_exit() { JL_KILL_ON_EXIT="$JL_KILL_ON_EXIT $1"; }
trap 'for p in $JL_KILL_ON_EXIT; do kill -KILL "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
# machine_lock / machine_unlock: around what a script in the background
# (tests/run.sh) must not do beside a timing test, e.g. a real-time run on
# the measured CPUs: waits until no script that runs alone is running, and
# keeps them out until unlocked. Nothing when run by hand.
machine_lock() { [ -z "${JL_ALONE_LOCK:-}" ] || { exec 9>>"$JL_ALONE_LOCK" && flock 9; }; }
machine_unlock() { [ -z "${JL_ALONE_LOCK:-}" ] || { flock -u 9; exec 9>&-; }; }
# freeport: a TCP/UDP port free on loopback right now
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# wait_for SECONDS COMMAND...: until the command succeeds; 1 when it never did
wait_for() {
    _s=$1; shift; _w=0
    while ! "$@" >/dev/null 2>&1; do
        [ $_w -ge $((_s * 10)) ] && return 1
        sleep 0.1; _w=$((_w + 1))
    done
}
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
# check NAME COMMAND...: passes when the command exits 0
check() { name=$1; shift; if "$@" >"$T/check.out" 2>&1; then ok "$name"; else not_ok "$name" "$(tail -5 "$T/check.out")"; fi; }
is_root() { [ "$(id -u)" = 0 ]; }
# jq-free JSON queries through python3 (always on Debian), e.g. jget f.json 'd["all"]["samples"]'
jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
# The repository and build folder when run by hand (the runner sets both).
: "${JL_TOP:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${JL_BUILD:=$(dirname "$JL")}"
# tap_lines FILE: prints the "ok<TAB>NAME", "fail<TAB>NAME<TAB>WHY" and
# "note<TAB>TEXT" lines of a Python helper as TAP lines through ok / not_ok.
tap_lines() {
    while IFS='	' read -r st nm why; do
        case $st in
        ok) ok "$nm" ;;
        fail) not_ok "$nm" "$why" ;;
        note) echo "# $nm" ;;
        esac
    done <"$1"
}
# pyt FILE [KEY=VALUE...] < CHECKS: Python checks (tests/e2e/helpers/tapcheck.py)
# printed as TAP lines through ok / not_ok.
pyt() {
    python3 "$JL_TOP/tests/e2e/helpers/tapcheck.py" "$@" >"$T/pyt.out" 2>"$T/pyt.err" ||
        printf 'fail\tpython checks completed\t%s\n' "$(tail -3 "$T/pyt.err" | tr '\n' ' ')" >>"$T/pyt.out"
    tap_lines "$T/pyt.out"
}
# inv LABEL RESULT.json [--samples CSV] [--hist FILE] [--text STDOUT]
#     [--exit-code N] [--budget-ns N] [--tolerance-ns N]: the cross-output
# invariants of one run (tests/e2e/helpers/invariants.py), every figure
# recomputed from the samples CSV, the histogram file, the summary table and
# the per-CPU entries, as TAP lines.
inv() {
    label=$1; shift
    python3 "$JL_TOP/tests/e2e/helpers/invariants.py" --label "$label" "$@" >"$T/inv.out" 2>"$T/inv.err"
    irc=$?
    [ "$irc" -gt 1 ] && printf 'fail\t%s: invariant checker completed\t%s\n' "$label" "$(tail -3 "$T/inv.err" | tr '\n' ' ')" >>"$T/inv.out"
    tap_lines "$T/inv.out"
}
# rc_is NAME WANT GOT: an exit status check
rc_is() { if [ "$3" -eq "$2" ]; then ok "$1"; else not_ok "$1" "exit status $3, expected $2" "$(tail -3 "$T/err" 2>/dev/null)"; fi; }
# bad NAME WANT_ON_STDERR(ERE) ARGS...: "jitterlab run ARGS" (or $BAD_SUBCOMMAND
# instead of run) must exit 2, say
# WANT on stderr and write nothing into the case's own empty directory. @OUT@
# in ARGS stands for a file in that directory, a leading @DIR@ for the
# directory itself. The arguments hold no single quotes.
bad_case=0
bad() {
    name=$1 want=$2; shift 2
    bad_case=$((bad_case + 1)); dir=$T/case$bad_case; mkdir "$dir"
    args=""
    for a in "$@"; do
        case $a in @OUT@) a=$dir/out.json ;; @DIR@*) a=$dir${a#@DIR@} ;; esac
        args="$args '$a'"
    done
    eval "timeout -s KILL 10 \"\$JL\" ${BAD_SUBCOMMAND:-run} $args" >"$dir.out" 2>"$dir.err"
    rc=$?
    if [ "$rc" -eq 2 ]; then ok "$name: exits 2"; else not_ok "$name: exits 2" "exit status $rc" "$(head -3 "$dir.err")"; fi
    if [ -s "$dir.err" ] && grep -Eq -e "$want" "$dir.err"; then
        ok "$name: stderr says /$want/"
    else
        not_ok "$name: stderr says /$want/" "stderr: $(head -3 "$dir.err")"
    fi
    left=$(ls -A "$dir")
    if [ -z "$left" ] && [ ! -e "$dir/out.json" ]; then ok "$name: no output file"; else not_ok "$name: no output file" "left behind: $left"; fi
}
# wait_measuring OUT PID: waits until the jitterlab run PID, whose stdout
# goes to the file OUT (not -q, so a plain line per second), has measured
# for a second (its first "t=" line), at most 120 s (its setup may be slow:
# under ASan --explain takes ~15 s to start); 0 when it did, 1 otherwise.
wait_measuring() {
    w=0
    while ! grep -q '^t=' "$1" 2>/dev/null; do
        kill -0 "$2" 2>/dev/null || return 1
        [ $w -ge 1200 ] && return 1
        sleep 0.1
        w=$((w + 1))
    done
    return 0
}
