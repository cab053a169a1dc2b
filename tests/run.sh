#!/bin/sh
# jitterlab test runner: every cmocka unit binary in BUILD/tests and every
# end-to-end script in tests/e2e, all speaking TAP ("ok N - name" /
# "not ok N - name"; "ok N - name # SKIP why" is a skip, not a pass). Each
# suite runs under timeout (UNIT_TIMEOUT s per unit binary, E2E_TIMEOUT s
# per script); a suite that times out or exits non-zero without a failing
# check counts as one failure naming it. The last line is always
# "N passed, N failed, N skipped"; exits 1 on any failure.
# An e2e script whose first lines hold the line "# runs beside others" (its
# checks hold whatever else the machine runs: documents, fixture trees,
# servers) runs in a pool of E2E_JOBS scripts at a time (default 3), beside
# the unit tests and before the others; every other script runs alone,
# after the pool. One whose
# first lines hold "# runs in the background" (long work that measures
# nothing: the package build) starts before the unit tests and runs beside
# everything, at SCHED_IDLE on the first online CPU (the housekeeping CPU
# the timing tests leave alone), so it takes only what the others leave;
# what it must do alone it wraps in lib.sh's machine_lock / machine_unlock
# (the lock every lone script holds); its time limit is three times the others'.
# Without taskset, chrt or flock it joins the pool. E2E_JOBS=1 runs every script alone.
#   tests/run.sh BUILD [--valgrind] [--unit-only] [PATTERN]
# (internal) tests/run.sh --one SCRIPT LOGDIR BUILD TOP: one e2e script,
# its TAP output, exit status, start and end time in LOGDIR
# Debian's own tools first: see tests/e2e/lib.sh.
PATH=/usr/bin:/bin:/usr/sbin:/sbin:$PATH
export PATH
if [ "$1" = --one ]; then
    n=$(basename "$2" .sh)
    date +%s >"$3/$n.start"
    JL="$4/jitterlab" JL_BUILD="$4" JL_TOP="$5" JL_ALONE_LOCK="$3/alone.lock" timeout -k 10 "${E2E_TIMEOUT:-300}" sh "$2" >"$3/$n.out" 2>&1
    echo $? >"$3/$n.rc"
    date +%s >"$3/$n.end"
    exit 0
fi
build=${1:-build}; shift || true
valgrind=""; unit_only=""; pattern=""
unit_timeout=${UNIT_TIMEOUT:-60}; e2e_timeout=${E2E_TIMEOUT:-300}
e2e_jobs=${E2E_JOBS:-3}
for a in "$@"; do
    case "$a" in
    --valgrind) valgrind="valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite"; unit_only=1; unit_timeout=$((unit_timeout * 10)) ;;
    --unit-only) unit_only=1 ;;
    *) pattern="$a" ;;
    esac
done
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$top" && cd "$build" && pwd) || { echo "no build dir" >&2; exit 1; }
log=$(mktemp -d "${TMPDIR:-/tmp}/jitterlab-tests.XXXXXX")
passed=0; failed=0; skipped=0; failures=""

count() { # $1 = TAP output file, $2 = suite name, $3 = exit status, $4 = timeout (s), $5 = start (s), [$6 = end (s)]
    # A skip is "ok ... # SKIP"; cmocka writes "not ok N # SKIP": both skipped.
    so=$(grep -Eci '^ok [^#]*#[[:space:]]*skip' "$1")
    sn=$(grep -Eci '^not ok [^#]*#[[:space:]]*skip' "$1")
    s=$((so + sn))
    p=$(($(grep -c '^ok ' "$1") - so)); f=$(($(grep -c '^not ok ' "$1") - sn))
    if [ "$3" -eq 124 ] || [ "$3" -eq 137 ]; then
        f=$((f + 1)); echo "not ok - $2 timed out after $4 s" >>"$1"
    elif [ "$3" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1; echo "not ok - $2 exited with status $3" >>"$1"
    fi
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
    [ "$f" -gt 0 ] && failures="$failures $2"
    grep -E '^(not ok|# )' "$1" | grep -v '^# ok' | grep -Eiv '^not ok [^#]*#[[:space:]]*skip' | sed "s|^|  $2: |"
    grep -Ei '^(not )?ok [^#]*#[[:space:]]*skip' "$1" | sed "s|^|  $2: |"
    echo "$2: $p passed, $f failed, $s skipped ($((${6:-$(date +%s)} - $5)) s)"
}

# the e2e scripts by how they run; the background ones start now
bg=""; pool=""; alone=""; bg_pids=""; pool_pid=""
if [ -z "$unit_only" ]; then
    bg_ok=""
    [ "$e2e_jobs" -gt 1 ] && command -v taskset >/dev/null && command -v chrt >/dev/null &&
        command -v flock >/dev/null && bg_ok=1
    hk=$(sed 's/[-,].*//' /sys/devices/system/cpu/online 2>/dev/null)
    : >"$log/alone.lock"
    for s in "$top"/tests/e2e/*.sh; do
        [ -f "$s" ] || continue
        name=$(basename "$s" .sh)
        [ "$name" = lib ] && continue
        [ -n "$pattern" ] && case "$name" in *$pattern*) ;; *) continue ;; esac
        hdr=$(sed -n '1,30p' "$s")
        if [ -n "$bg_ok" ] && [ -n "$hk" ] && printf '%s\n' "$hdr" | grep -qx '# runs in the background'; then
            bg="$bg $s"
        elif [ "$e2e_jobs" -gt 1 ] && printf '%s\n' "$hdr" | grep -qx -e '# runs beside others' -e '# runs in the background'; then
            pool="$pool $s"
        else
            alone="$alone $s"
        fi
    done
    for s in $bg; do
        E2E_TIMEOUT=$((e2e_timeout * 3)) taskset -c "$hk" chrt -i 0 sh "$top/tests/run.sh" --one "$s" "$log" "$build" "$top" &
        bg_pids="$bg_pids $!"
    done
    # the pool starts beside the unit tests: neither judges against time
    if [ -n "$pool" ]; then
        printf '%s\n' $pool | xargs -P "$e2e_jobs" -I{} sh "$top/tests/run.sh" --one {} "$log" "$build" "$top" &
        pool_pid=$!
    fi
fi

for t in "$build"/tests/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    [ -n "$pattern" ] && case "$name" in *$pattern*) ;; *) continue ;; esac
    start=$(date +%s)
    JL_TOP="$top" CMOCKA_MESSAGE_OUTPUT=TAP timeout -k 5 "$unit_timeout" $valgrind "$t" >"$log/$name.out" 2>&1
    count "$log/$name.out" "$name" $? "$unit_timeout" "$start"
done

if [ -z "$unit_only" ]; then
    [ -n "$pool_pid" ] && wait "$pool_pid"
    for s in $pool $alone; do
        name=$(basename "$s" .sh)
        [ -f "$log/$name.rc" ] || flock "$log/alone.lock" sh "$top/tests/run.sh" --one "$s" "$log" "$build" "$top"
        count "$log/$name.out" "e2e/$name" "$(cat "$log/$name.rc")" "$e2e_timeout" "$(cat "$log/$name.start")" "$(cat "$log/$name.end")"
    done
    [ -n "$bg_pids" ] && wait $bg_pids
    for s in $bg; do
        name=$(basename "$s" .sh)
        count "$log/$name.out" "e2e/$name" "$(cat "$log/$name.rc")" $((e2e_timeout * 3)) "$(cat "$log/$name.start")" "$(cat "$log/$name.end")"
    done
fi

[ -n "$failures" ] && echo "failing suites:$failures (logs in $log)"
[ -z "$failures" ] && rm -rf "$log"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
