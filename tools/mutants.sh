#!/bin/sh
# Mutation testing: does the suite notice a small, plausible bug?
#
#   tools/mutants.sh [NAME...]        (make mutants; MUTANTS_FULL=1 for the whole suite)
#
# Each tests/mutants/NAME.mutant holds one one-line semantic change:
#   # what the bug is
#   file: src/PATH            the file to change
#   tests: PATTERN...         tests/run.sh patterns that must notice it
#   original: LINE            the exact line, a fixed string found exactly once
#   mutant: LINE              what it becomes
# The tree is copied to a temporary directory (build folders and .git left
# out); each mutant is applied there, built and tested, then undone. A
# mutant is "killed" when a selected test fails, "survived" when all pass,
# "stillborn" when it does not compile (reported, not counted) and "stale"
# when its original line is not found exactly once (the file changed: the
# mutant needs refreshing). Exits 1 when any mutant survived or is stale.
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/jitterlab-mutants.XXXXXX")
trap 'rm -rf "$work"' EXIT
start=$(date +%s)

(cd "$top" && tar --exclude=./build --exclude=./build-asan --exclude=./.git -cf - .) | tar -xf - -C "$work"

# field FILE KEY: the value after "KEY: " (everything after the first ": ")
field() { sed -n "s/^$2: //p" "$1" | head -1; }

# apply FILE: applies the mutant to $work, exit 0, or 3 when stale
apply() {
    python3 - "$work" "$1" <<'PY'
import sys
work, path = sys.argv[1], sys.argv[2]
f = {}
for line in open(path).read().splitlines():
    if line.startswith("#") or ": " not in line:
        continue
    k, _, v = line.partition(": ")
    f.setdefault(k, v)
target = work + "/" + f["file"]
try:
    text = open(target).read()
except OSError as e:
    print("cannot read %s: %s" % (f["file"], e)); sys.exit(3)
n = text.count(f["original"])
if n != 1:
    print("original line found %d times in %s" % (n, f["file"])); sys.exit(3)
open(target, "w").write(text.replace(f["original"], f["mutant"]))
PY
}

if [ $# -gt 0 ]; then
    list=""
    for n in "$@"; do list="$list $work/tests/mutants/${n%.mutant}.mutant"; done
else
    list=$(ls "$work"/tests/mutants/*.mutant)
fi

echo "building the unmutated copy in $work"
make -C "$work" -s tests >"$work/build.log" 2>&1 || { cat "$work/build.log"; echo "the unmutated tree does not build"; exit 1; }

killed=0; survived=0; stillborn=0; stale=0; report=""
for m in $list; do
    name=$(basename "$m" .mutant)
    file=$(field "$m" file)
    tests=$(field "$m" tests)
    [ -n "$MUTANTS_FULL" ] && tests=""
    t0=$(date +%s)
    cp "$work/$file" "$work/$file.orig"
    why=$(apply "$m")
    if [ $? -ne 0 ]; then
        verdict=stale; stale=$((stale + 1))
    elif ! make -C "$work" -s tests >"$work/build.log" 2>&1; then
        verdict=stillborn; stillborn=$((stillborn + 1)); why="does not compile"
    else
        verdict=survived; why="passed: ${tests:-the whole suite}"
        for p in ${tests:-""}; do
            if ! (cd "$work" && sh tests/run.sh build $p) >"$work/test.log" 2>&1; then
                verdict=killed; why="by $p: $(grep -m1 -E '^  .*not ok' "$work/test.log" | sed 's/^ *//' | cut -c1-150)"
                break
            fi
        done
        if [ -z "$tests" ] && [ "$verdict" = survived ] && ! (cd "$work" && sh tests/run.sh build) >"$work/test.log" 2>&1; then
            verdict=killed; why="by the suite: $(grep -m1 -E '^  .*not ok' "$work/test.log" | sed 's/^ *//' | cut -c1-150)"
        fi
        [ "$verdict" = killed ] && killed=$((killed + 1))
        [ "$verdict" = survived ] && survived=$((survived + 1))
    fi
    mv "$work/$file.orig" "$work/$file"
    touch "$work/$file" # newer than the mutant's objects: the next build redoes them
    line=$(printf '%-10s %-36s %4ss  %s' "$verdict" "$name" $(($(date +%s) - t0)) "$why")
    echo "$line"
    report="$report$line
"
done

total=$((killed + survived))
secs=$(($(date +%s) - start))
echo
echo "mutants: $killed killed, $survived survived, $stillborn stillborn, $stale stale"
[ "$total" -gt 0 ] && echo "score: $killed/$total = $((100 * killed / total))%  (${secs} s in all)"
[ "$survived" -eq 0 ] && [ "$stale" -eq 0 ]
