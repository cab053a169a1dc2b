#!/bin/sh
# The warning about a tuning session that died before restoring, as a normal
# user sees it: root's finished `tune apply` (its journal kept on purpose)
# is no reason to warn anyone; root's `run --tune` that died is, worded for
# the reader (who needs root to restore). All on a copy of a fixture tree
# with the journal in this test's own directory: nothing on this machine is
# touched. Root only (setpriv). About 2 s.
. "$(dirname "$0")/lib.sh"
if ! is_root || ! command -v setpriv >/dev/null; then
    ok "the stale-journal warning as another user # SKIP needs root and setpriv"
    exit 0
fi
nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
D=$T/state
mkdir -p "$D"
chmod 755 "$T" "$D" # the journal as readable as /run/jitterlab's
S=$D/tune.json
cp -a "$JL_TOP/tests/fixtures/intel-ipc-untuned" "$T/tree"
"$JL" tune apply --sysroot "$T/tree" --state "$S" -a 3 -q --profile realtime >"$T/out" 2>"$T/err"
rc_is "root: tune apply on a fixture tree exits 0" 0 $?
check "the journal is root's and readable by all" test "$(stat -c %U:%a "$S")" = root:644

JITTERLAB_TUNE_STATE=$S "$JL" inspect --help >/dev/null 2>"$T/root.err"
check "root, after a finished tune apply: no warning" test ! -s "$T/root.err"
JITTERLAB_TUNE_STATE=$S nobody "$JL" inspect --help >/dev/null 2>"$T/nobody.err"
rc_is "nobody: inspect --help exits 0" 0 $?
check "nobody, after root's finished tune apply: no warning" test ! -s "$T/nobody.err"
JITTERLAB_TUNE_STATE=$S nobody "$JL" run --help >/dev/null 2>"$T/nobody.err"
check "nobody: run neither" test ! -s "$T/nobody.err"

# the same journal as a run --tune whose process is gone
sh -c 'exit 0' &
dead=$!
wait "$dead"
python3 - "$S" "$dead" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d.update(mode="run", pid=int(sys.argv[2]))
json.dump(d, open(sys.argv[1], "w"))
PY
JITTERLAB_TUNE_STATE=$S nobody "$JL" inspect --help >/dev/null 2>"$T/nobody.err"
check "nobody, after root's run --tune died: warned" grep -q 'WARNING: a .jitterlab run --tune. (pid [0-9]*, started .*) ended without putting back 12 settings it changed' "$T/nobody.err"
check "... told that restoring takes root" grep -q 'As root, .jitterlab tune restore. puts them back' "$T/nobody.err"
check "... and not that anything was refused" sh -c "! grep -q -e refused -e 'another user' '$T/nobody.err'"
JITTERLAB_TUNE_STATE=$S "$JL" inspect --help >/dev/null 2>"$T/root.err"
check "root, the same: warned, to run the restore itself" grep -q 'Running .jitterlab tune restore. puts them back' "$T/root.err"
"$JL" tune restore --state "$S" >"$T/out" 2>"$T/err"
rc_is "root: restore of the tree exits 0" 0 $?
check "restore: the tree as the fixture" diff -r "$JL_TOP/tests/fixtures/intel-ipc-untuned" "$T/tree"
