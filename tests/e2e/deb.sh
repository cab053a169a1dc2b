#!/bin/sh
# runs in the background
# The Debian package, end to end. `make deb` runs in a copy of the working
# tree (every file git tracks or would track, committed or not; the tree
# itself is never touched) and must leave build/deb/jitterlab_VERSION_ARCH.deb,
# VERSION the source's, with nothing beside the copy and the copy's other
# build trees and stray *.orig files kept. The package holds the binary, the
# man page, the service and its environment file (a conffile), the bash
# completion and the Grafana and Prometheus files; unpacked with dpkg -x, its
# binary runs, the service's command line (the unit's ExecStart with the
# environment file's values) runs and stops on SIGINT, and its completion
# parses and completes subcommands, every option of every subcommand's help
# and file names. Only where dpkg-buildpackage is installed. About 40 s on
# an idle machine, nearly all of it the package build (-j2); the runner
# starts it first, in the background, to build on what the timing tests
# leave of the housekeeping CPU. The service runs as systemd would start it
# (SCHED_OTHER, every CPU) while no timing test runs.
. "$(dirname "$0")/lib.sh"
if ! command -v dpkg-buildpackage >/dev/null; then
    ok "deb # SKIP dpkg-buildpackage missing (make deps installs it)"
    exit 0
fi
if ! git -C "$JL_TOP" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    ok "deb # SKIP $JL_TOP is not a git checkout (the copy is made from git ls-files)"
    exit 0
fi

# --- make deb in a copy ---------------------------------------------------------
SRC=$T/src/jitterlab
mkdir -p "$SRC"
# files deleted in the working tree but not yet in git are left out
(cd "$JL_TOP" && git ls-files -z --cached --others --exclude-standard |
    xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
    tar -cf - --null -T -) | tar -xf - -C "$SRC"
# what a developer's checkout may hold that the package build must not remove
for d in build build-asan build-fuzz; do mkdir -p "$SRC/$d" && echo keep >"$SRC/$d/keep"; done
echo keep >"$SRC/src/keep.c.orig"
# what the package build would leave in the real tree if it ran there
in_tree() { ls -d "$JL_TOP/build-deb" "$JL_TOP/debian/jitterlab" "$JL_TOP/debian/files" "$JL_TOP"/../jitterlab_* 2>/dev/null; }
before=$(in_tree)

t0=$(date +%s)
(cd "$SRC" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL DEB_BUILD_OPTIONS="parallel=2 nocheck" make deb) >"$T/build.log" 2>&1
rc=$?
echo "# make deb took $(($(date +%s) - t0)) s"
if [ "$rc" -ne 0 ]; then
    not_ok "make deb exits 0" "exit status $rc" "$(tail -8 "$T/build.log")"
    exit 1
fi
ok "make deb exits 0"
V=$(grep -rhs '^#define JITTERLAB_VERSION ' "$SRC/src" | sed 's/.*"\(.*\)".*/\1/')
A=$(dpkg --print-architecture)
DEB=$SRC/build/deb/jitterlab_${V}_$A.deb
if [ -f "$DEB" ]; then
    ok "make deb: build/deb/jitterlab_${V}_$A.deb, the version of the source"
else
    not_ok "make deb: build/deb/jitterlab_${V}_$A.deb, the version of the source" "build/deb holds: $(find "$SRC/build/deb" -type f 2>&1 | sed "s|.*/||" | tr '\n' ' ')" "(debian/changelog names the version)"
fi
left=$(ls -A "$T/src")
if [ "$left" = jitterlab ]; then ok "make deb: nothing left beside the tree"; else not_ok "make deb: nothing left beside the tree" "left: $(echo "$left" | tr '\n' ' ')"; fi
kept=""
for f in build/keep build-asan/keep build-fuzz/keep src/keep.c.orig; do [ -f "$SRC/$f" ] || kept="$kept $f"; done
if [ -z "$kept" ]; then ok "make deb: build/, build-asan/, build-fuzz/ and *.orig files are kept"; else not_ok "make deb: build/, build-asan/, build-fuzz/ and *.orig files are kept" "removed:$kept"; fi
if [ "$(in_tree)" = "$before" ]; then ok "the developer's tree is untouched"; else not_ok "the developer's tree is untouched" "now there: $(in_tree | tr '\n' ' ')"; fi
[ -f "$DEB" ] || exit 1

# --- what the package holds -----------------------------------------------------
info=$(dpkg-deb -f "$DEB" Package Version Architecture)
want="Package: jitterlab
Version: $V
Architecture: $A"
if [ "$info" = "$want" ]; then ok "dpkg-deb -I: jitterlab $V $A"; else not_ok "dpkg-deb -I: jitterlab $V $A" "$info"; fi
deps=$(dpkg-deb -f "$DEB" Depends)
missing=""
for lib in libjansson libtracefs libtraceevent libinih libmicrohttpd libcurl zlib1g; do
    case $deps in *"$lib"*) ;; *) missing="$missing $lib" ;; esac
done
if [ -z "$missing" ]; then ok "Depends: every library the binary links or loads (libcurl, libmicrohttpd by dlopen)"; else not_ok "Depends: every library the binary links or loads (libcurl, libmicrohttpd by dlopen)" "missing:$missing" "Depends: $deps"; fi
conf=$(dpkg-deb -I "$DEB" conffiles 2>&1)
if [ "$conf" = /etc/default/jitterlab ]; then ok "conffiles: /etc/default/jitterlab"; else not_ok "conffiles: /etc/default/jitterlab" "$conf"; fi
dpkg-deb -c "$DEB" | awk '{print $6}' >"$T/contents"
for f in /usr/bin/jitterlab /usr/share/man/man1/jitterlab.1.gz /lib/systemd/system/jitterlab.service \
    /etc/default/jitterlab /usr/share/bash-completion/completions/jitterlab \
    /usr/share/jitterlab/grafana/jitterlab.json /usr/share/jitterlab/grafana/datasource.yml \
    /usr/share/jitterlab/grafana/dashboards.yml /usr/share/jitterlab/prometheus/jitterlab.rules.yml \
    /usr/share/jitterlab/prometheus/prometheus.yml; do
    check "dpkg-deb -c: $f" grep -qx "\\.$f" "$T/contents"
done

R=$T/root
dpkg -x "$DEB" "$R"
for f in grafana/jitterlab.json grafana/datasource.yml grafana/dashboards.yml \
    prometheus/jitterlab.rules.yml prometheus/prometheus.yml; do
    check "/usr/share/jitterlab/$f is the tree's contrib/$f" cmp "$R/usr/share/jitterlab/$f" "$SRC/contrib/$f"
done
out=$("$R/usr/bin/jitterlab" --version 2>&1)
if [ "$out" = "jitterlab $V" ]; then ok "the packaged binary runs: --version says jitterlab $V"; else not_ok "the packaged binary runs: --version says jitterlab $V" "$out"; fi

# --- the service ---------------------------------------------------------------
UNIT=$R/lib/systemd/system/jitterlab.service
exe=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$UNIT")
envfile=$(sed -n 's/^EnvironmentFile=-\{0,1\}//p' "$UNIT")
if [ -n "$exe" ] && [ -x "$R$exe" ] && [ -n "$envfile" ] && [ -f "$R$envfile" ]; then
    ok "the unit's ExecStart ($exe) and EnvironmentFile ($envfile) are in the package"
else
    not_ok "the unit's ExecStart ($exe) and EnvironmentFile ($envfile) are in the package"
fi
if command -v systemd-analyze >/dev/null; then
    # the unit as it would run from $R: its binary and man page found there
    sed -e "s|$exe|$R$exe|" -e "s|$envfile|$R$envfile|" "$UNIT" >"$T/jitterlab.service"
    man=--man=yes
    command -v man >/dev/null || man=--man=no
    check "systemd-analyze verify accepts the unit" env MANPATH="$R/usr/share/man" systemd-analyze verify "$man" "$T/jitterlab.service"
else
    ok "systemd-analyze verify accepts the unit # SKIP no systemd-analyze"
fi
# The unit's command line with the environment file's values, as systemd
# builds it: ${X} is one word, $X is split at whitespace (as in sh, "${X}"
# and $X). The state directory and the port move into $T.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$T/state"
sed -e "s|/var/lib/jitterlab/|$T/state/|g" -e "s|:9808|:$port|" "$R$envfile" >"$T/env"
line=$(sed -n 's/^ExecStart=//p' "$UNIT" | sed -e 's/\${\([A-Z_]*\)}/"${\1}"/g' -e "s|^$exe|\"$R$exe\"|")
cpus=$(set -a && . "$T/env" && echo "$JITTERLAB_CPUS")
# cpus_online LIST: every CPU of LIST (1-3,6) is online
cpus_online() {
    python3 - "$1" <<'PY' 2>/dev/null
import sys
def cpus(text):
    out = set()
    for part in text.strip().split(","):
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return out
sys.exit(0 if cpus(sys.argv[1]) <= cpus(open("/sys/devices/system/cpu/online").read()) else 1)
PY
}
if [ -n "$cpus" ] && cpus_online "$cpus"; then
    defsig=""
    env --default-signal=INT,TERM true 2>/dev/null && defsig="env --default-signal=INT,TERM"
    as_service=""
    command -v chrt >/dev/null && as_service="chrt -o 0"
    command -v taskset >/dev/null && as_service="$as_service taskset -c $(cat /sys/devices/system/cpu/online)"
    machine_lock
    (set -a && . "$T/env" && set +a && eval "exec $as_service $defsig $line") >"$T/svc.out" 2>"$T/svc.err" &
    pid=$!
    w=0
    while [ $w -lt 50 ] && ! python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.2)' "$port" 2>/dev/null; do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1; w=$((w + 1))
    done
    kill -INT "$pid" 2>/dev/null
    wait "$pid"
    rc=$?
    machine_unlock
    if [ "$rc" -eq 0 ] && [ -s "$T/state/last.json" ]; then
        ok "the service's command line runs (metrics on :$port), ends on SIGINT with exit 0 and writes --json"
    else
        not_ok "the service's command line runs (metrics on :$port), ends on SIGINT with exit 0 and writes --json" "exit status $rc; $line" "$(tail -3 "$T/svc.err")"
    fi
else
    ok "the service's command line runs # SKIP JITTERLAB_CPUS=$cpus is not online here"
fi

# --- the bash completion ---------------------------------------------------------
COMPL=$R/usr/share/bash-completion/completions/jitterlab
check "bash -n accepts the completion" bash -n "$COMPL"
# comp WORD...: what the completion offers for the last word (one a line),
# the packaged binary first in PATH
cat >"$T/comp.bash" <<'EOF'
. "$1" || exit 1
shift
COMP_WORDS=("$@")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMPREPLY=()
_jitterlab "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
printf '%s\n' "${COMPREPLY[@]}"
EOF
comp() { PATH="$R/usr/bin:$PATH" bash "$T/comp.bash" "$COMPL" "$@" 2>&1; }
# has WORD TEXT: TEXT has the line WORD
has() { printf '%s\n' "$2" | grep -qxF -e "$1"; }

got=$(comp jitterlab ru)
if [ "$got" = run ]; then ok "completion: jitterlab ru<TAB> gives run"; else not_ok "completion: jitterlab ru<TAB> gives run" "got: $got"; fi
# --forever only once the binary's help lists it; then it must be offered
for bin in "$R/usr/bin/jitterlab" "$JL"; do
    name=${bin#"$T/root"}
    if "$bin" run --help 2>/dev/null | grep -q -e '--forever'; then
        got=$(PATH="$R/usr/bin:$PATH" bash "$T/comp.bash" "$COMPL" "$bin" run --fore 2>&1)
        if [ "$got" = --forever ]; then ok "completion: $name run --fore<TAB> gives --forever"; else not_ok "completion: $name run --fore<TAB> gives --forever" "got: $got"; fi
    else
        ok "completion: $name run --fore<TAB> gives --forever # SKIP its run --help lists no --forever yet"
    fi
done
# the subcommands and each one's long options, read here straight from the help
BIN=$R/usr/bin/jitterlab
subs=$("$BIN" --help | sed -n '/^subcommands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p')
got=$(comp jitterlab "" | grep -vx help)
if [ -n "$subs" ] && [ "$got" = "$subs" ]; then ok "completion: jitterlab <TAB> gives every subcommand of --help"; else not_ok "completion: jitterlab <TAB> gives every subcommand of --help" "help: $(echo "$subs" | tr '\n' ' ')" "got: $(echo "$got" | tr '\n' ' ')"; fi
for s in $subs; do
    want=$("$BIN" "$s" --help | grep -oE '^ {1,6}(-[[:alnum:]], )?--[[:alnum:]][[:alnum:]-]*' | grep -oE -- '--[[:alnum:]-]+$' | sort -u)
    got=$(comp jitterlab "$s" -- | sort -u)
    if [ -n "$want" ] && [ "$got" = "$want" ]; then
        ok "completion: jitterlab $s --<TAB> gives the $(echo "$want" | wc -l) options of its help"
    else
        not_ok "completion: jitterlab $s --<TAB> gives the options of its help" "only in help: $(echo "$want" | grep -vxF -e "$got" | tr '\n' ' ')" "only completed: $(echo "$got" | grep -vxF -e "$want" | tr '\n' ' ')"
    fi
done
mkdir "$T/files" && : >"$T/files/a.json" && : >"$T/files/b.csv"
got=$(comp jitterlab run --json "$T/files/")
if has "$T/files/a.json" "$got" && has "$T/files/b.csv" "$got"; then ok "completion: run --json DIR/<TAB> gives the files in DIR"; else not_ok "completion: run --json DIR/<TAB> gives the files in DIR" "got: $got"; fi
got=$(comp jitterlab run --samples = "$T/files/a")
if [ "$got" = "$T/files/a.json" ]; then ok "completion: run --samples=DIR/a<TAB> gives DIR/a.json"; else not_ok "completion: run --samples=DIR/a<TAB> gives DIR/a.json" "got: $got"; fi
got=$(comp jitterlab run --cpus "")
if [ -z "$got" ]; then ok "completion: run --cpus <TAB> gives nothing (a CPU list)"; else not_ok "completion: run --cpus <TAB> gives nothing (a CPU list)" "got: $(echo "$got" | tr '\n' ' ')"; fi
