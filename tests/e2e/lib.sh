# Shared helpers for the end-to-end scripts (sourced). Each check prints one
# TAP line; the runner counts them. $JL is the jitterlab binary under test.
: "${JL:?JL must point at the jitterlab binary}"
n=0
T=$(mktemp -d "${TMPDIR:-/tmp}/jl-e2e.XXXXXX")
trap 'rm -rf "$T"' EXIT
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
# check NAME COMMAND...: passes when the command exits 0
check() { name=$1; shift; if "$@" >"$T/check.out" 2>&1; then ok "$name"; else not_ok "$name" "$(tail -5 "$T/check.out")"; fi; }
is_root() { [ "$(id -u)" = 0 ]; }
# jq-free JSON queries through python3 (always on Debian), e.g. jget f.json 'd["all"]["samples"]'
jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
