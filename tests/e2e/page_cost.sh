#!/bin/sh
# runs beside others
# The page-cost benchmark (bench/page_cost.c), small: 2 pages at most, 2
# blocks of 12 cycles at 100 us. It exits 0 and prints, for each of the
# three layouts and each page count 0..2, one line that counted the cycles
# after each block's first five (2 x 7 = 14), a median and a trimmed mean
# that are numbers, and the cost of one more page per layout it had; bad
# options (a CPU it cannot run on too) exit 2 and name the option. No
# figure is judged. Under a second.
. "$(dirname "$0")/lib.sh"
PC=$JL_BUILD/bench/page-cost
cpu=0
[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] && cpu=1
[ -x "$PC" ] || { not_ok "page-cost is built" "$PC missing: make tests builds it"; exit 0; }

"$PC" -c $cpu -i 100 -n 12 -b 2 -P 2 >"$T/out" 2>"$T/err"
rc_is "page-cost -P 2 -n 12 -b 2 exits 0" 0 $?
for layout in "lines on one page" "4 KiB pages" "pages in a huge page"; do
    for p in 0 1 2; do
        check "$layout, $p: 14 cycles counted, median and mean99 in ns" \
            grep -Eq "^$layout +$p: median +[0-9]+\.[0-9] ns  mean99 +[0-9]+\.[0-9] ns  \(14 cycles\)$" "$T/out"
    done
done
slopes=$(grep -c '^one more, .*: -\{0,1\}[0-9][0-9.]* ns$' "$T/out")
if grep -q "no transparent huge page" "$T/err"; then want=2; else want=3; fi
check "one more page: a slope per layout measured ($want)" [ "$slopes" = "$want" ]

far=$(getconf _NPROCESSORS_CONF)
for bad in "-P 1" "-n 3" "-i 5" "-c x" "-b 0" "-c $far"; do
    # shellcheck disable=SC2086
    "$PC" $bad >"$T/bo" 2>"$T/be"
    rc_is "page-cost $bad: exit 2" 2 $?
    check "page-cost $bad: the message names the option" grep -q "page-cost: ${bad% *}" "$T/be"
done
