#!/bin/sh
# runs beside others
# Credentials in an --influx URL (user:pass@ and the u=, p= and token=
# parameters) appear in no output: not in the result's argv or
# influx.destination, not in stderr's messages (a bad URL, undelivered
# points), not in the report; an experiment whose step holds such a URL
# keeps them out of its dry run, its record, its results and its report,
# and its copy of the experiment file is the owner's alone (0600). Nothing
# listens on the port: every point is refused. About 6 s.
. "$(dirname "$0")/lib.sh"
PORT=$(freeport)
URL="http://user:secret1@127.0.0.1:$PORT/write?db=jl&u=admin&p=secret2"
# no_secret NAME FILE...: none of the files holds a secret
no_secret() {
    name=$1; shift
    if grep -l -e secret1 -e secret2 -e secret3 "$@" >"$T/found" 2>/dev/null; then
        not_ok "$name" "a secret in: $(tr '\n' ' ' <"$T/found")"
    else ok "$name"; fi
}

"$JL" run -a 1 -i 1ms -D 1s --report-every 500ms --influx "$URL" --json "$T/r.json" \
    >"$T/r.out" 2>"$T/r.err"
rc_is "run with credentials in --influx exits 0" 0 $?
check "the undelivered points are reported" grep -q "points not delivered" "$T/r.err"
no_secret "run: no secret in the result, stdout or stderr" "$T/r.json" "$T/r.out" "$T/r.err"
pyt "$T/r.json" port="$PORT" <<'PY'
want = "http://***@127.0.0.1:%s/write?db=jl&u=***&p=***" % v["port"]
t("influx.destination: redacted, the rest kept", 'd["influx"]["destination"] == want', 'd["influx"]')
t("argv: the URL redacted", 'want in d["argv"]', 'd["argv"]')
PY

"$JL" run -a 1 -D 1s --influx=udp://user:secret1@no-such-host.invalid:1 --json "$T/bad.json" \
    >"$T/bad.out" 2>"$T/bad.err"
rc_is "a bad --influx URL: exit 2" 2 $?
check "a bad --influx URL: the option named, the value redacted" \
    grep -q -- "--influx udp://\*\*\*@no-such-host.invalid:1: UDP takes no credentials" "$T/bad.err"
no_secret "a bad --influx URL: no secret in the message" "$T/bad.err"

"$JL" report "$T/r.json" -o "$T/report.html" >"$T/rep.out" 2>"$T/rep.err"
rc_is "report exits 0" 0 $?
no_secret "report: no secret in the page" "$T/report.html" "$T/rep.out" "$T/rep.err"

# --- an experiment file with the URL in a step --------------------------------
cat >"$T/x.ini" <<INI
[experiment]
name = x
repeat = 1
settle = 0s
[step a]
run = -a 1 -i 1ms -D 500ms -q --influx $URL&token=secret3
before = echo http://u:secret3@h/
[step b]
run = -a 1 -i 1ms -D 500ms -q
INI
chmod 644 "$T/x.ini"
"$JL" experiment "$T/x.ini" -o "$T/xd" --dry-run >"$T/dry.out" 2>"$T/dry.err"
rc_is "experiment --dry-run exits 0" 0 $?
check "dry run: the command line shown" grep -q "influx" "$T/dry.out"
no_secret "dry run: no secret printed" "$T/dry.out" "$T/dry.err"
"$JL" experiment "$T/x.ini" -o "$T/xd" >"$T/x.out" 2>"$T/x.err"
rc_is "experiment exits 0" 0 $?
no_secret "experiment: no secret in its output or record" "$T/x.out" "$T/x.err" "$T/xd/experiment.json" \
    "$T/xd"/a-*.json "$T/xd"/b-*.json "$T/xd/compare.json"
[ -f "$T/xd/report.html" ] && no_secret "experiment: no secret in its report" "$T/xd/report.html"
check "experiment.ini with credentials: mode 0600" test "$(stat -c %a "$T/xd/experiment.ini")" = 600
check "experiment.ini: the file as it was read" cmp "$T/x.ini" "$T/xd/experiment.ini"
