#!/bin/sh
# Installs the Debian packages jitterlab needs to build, test and benchmark.
# As root: apt-get installs whatever is missing. Otherwise: prints the exact
# command and fails only if a build-critical package is missing.
missing=""
for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
    echo "jitterlab deps: not a Debian system; install the equivalents of:$missing" >&2
    exit 0
fi
if [ "$(id -u)" = 0 ]; then
    echo "jitterlab deps: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
        { echo "jitterlab deps: apt-get install$missing failed" >&2; exit 1; }
else
    echo "jitterlab deps: missing packages; run as root:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y$missing" >&2
    for p in libjansson-dev libcmocka-dev libgsl-dev pkg-config gcc make; do
        case " $missing " in *" $p "*) exit 1 ;; esac
    done
fi
exit 0
