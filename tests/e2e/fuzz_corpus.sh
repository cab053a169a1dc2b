#!/bin/sh
# runs beside others
# Replays every fuzz target's seed corpus (tests/fuzz/corpus/NAME/*) through
# the plain driver build/fuzz/replay_NAME (the target's entry point built
# with the normal compiler; under `make asan`, with the sanitizers). One
# check per target: every file ran without a crash, abort or sanitizer
# report. A corpus with no driver (a target not built) fails too.
# JL_REPLAY_VALGRIND=1 runs each driver under valgrind (for a build without
# sanitizers: `make asan` and `make valgrind` do so with build/): memcheck
# sees a read that lands in a neighbouring heap block, which ASan's redzones
# can miss; leaks are left to ASan.
. "$(dirname "$0")/lib.sh"
replay_under=
if [ "${JL_REPLAY_VALGRIND:-0}" = 1 ]; then
    command -v valgrind >/dev/null || { echo "Bail out! JL_REPLAY_VALGRIND=1 but no valgrind"; exit 1; }
    replay_under="valgrind --quiet --error-exitcode=99 --leak-check=no"
fi
for dir in "$JL_TOP"/tests/fuzz/corpus/*/; do
    name=$(basename "$dir")
    drv=$JL_BUILD/fuzz/replay_$name
    if [ ! -x "$drv" ]; then
        not_ok "fuzz corpus $name replays" "no driver $drv (make tests builds it)"
        continue
    fi
    set -- "$dir"*
    files=$#
    if $replay_under "$drv" "$@" >"$T/$name.out" 2>&1 && [ "$(grep -c '^ok ' "$T/$name.out")" -eq "$files" ]; then
        ok "fuzz corpus $name replays ($files inputs)"
    else
        not_ok "fuzz corpus $name replays ($files inputs)" \
            "last input: $(grep '^ok ' "$T/$name.out" | tail -1)" "$(tail -5 "$T/$name.out")"
    fi
done
