#!/bin/sh
# runs beside others
# What report and compare read: documents that add up to more than the
# total one call reads are refused (exit 2, the document and the limit
# named, no page written) before any is parsed; a large result (a day on
# 160 CPUs with full histograms, about 20 MB, helpers/mkbig.py) reads, and
# three of them in one report stay within a generous multiple of one
# document's size, since each tree is freed once its figures are taken
# (the peak: one tree and the figures kept). The RSS check is skipped
# under ASan, whose shadow memory and quarantine inflate it.
. "$(dirname "$0")/lib.sh"
PEAK="python3 $JL_TOP/tests/e2e/helpers/peak_rss.py"

# sparse files: their sizes count, their bytes are never read
truncate -s 300M "$T/a.json" "$T/b.json"
"$JL" report "$T/a.json" "$T/b.json" -o "$T/p.html" >"$T/o" 2>"$T/e"; rc=$?
rc_is "report: two 300 MiB documents are refused" 2 $rc
check "report: the message names the document and the limit" grep -q "b.json: .*more than the 512 MiB" "$T/e"
check "report: no page is written" test ! -e "$T/p.html"
"$JL" report --c2c "$T/a.json" --compare "$T/b.json" -o "$T/p.html" >"$T/o" 2>"$T/e"; rc=$?
rc_is "report: documents given with options count too" 2 $rc
check "report: the message names the option" grep -q "^jitterlab: --c2c .*a.json: .*512 MiB" "$T/e"
"$JL" compare "$T/a.json" "$T/b.json" --json "$T/c.json" >"$T/o" 2>"$T/e"; rc=$?
rc_is "compare: two 300 MiB documents are refused" 2 $rc
check "compare: the message names the document and the limit" grep -q "compare .*b.json: .*512 MiB" "$T/e"
check "compare: no document is written" test ! -e "$T/c.json"
rm -f "$T/a.json" "$T/b.json"

python3 "$JL_TOP/tests/e2e/helpers/mkbig.py" "$T/big.json" --cpus 160 --octaves 9
size_kb=$(($(wc -c <"$T/big.json") / 1024))
echo "# document: $size_kb kB"
cp "$T/big.json" "$T/big2.json"
cp "$T/big.json" "$T/big3.json"
$PEAK "$JL" report "$T/big.json" "$T/big2.json" "$T/big3.json" -o "$T/big.html" >"$T/r.out" 2>"$T/r.err"; rc=$?
rc_is "report: three large results read" 0 $rc
rss_kb=$(tail -1 "$T/r.out" | cut -d' ' -f1)
echo "# report of three: peak RSS $rss_kb kB, $(tail -1 "$T/r.out" | cut -d' ' -f2) s"
if grep -q __asan_init "$JL" 2>/dev/null; then
    ok "report of three large results: peak RSS # SKIP under ASan"
elif [ "$rss_kb" -lt $((size_kb * 16)) ]; then
    ok "report of three large results: peak RSS under 16 times one document"
else
    not_ok "report of three large results: peak RSS under 16 times one document" \
        "peak $rss_kb kB for documents of $size_kb kB"
fi
"$JL" compare "$T/big.json" "$T/big2.json" >"$T/c.out" 2>"$T/c.err"; rc=$?
rc_is "compare: two large results read" 0 $rc
