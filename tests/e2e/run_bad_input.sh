#!/bin/sh
# runs beside others
# jitterlab run refuses bad usage and input before measuring anything: exit
# status 2, a message on stderr that names the option (and says why), and no
# output file, not even a stray temporary one. Each case runs in an empty
# directory that must still be empty afterwards. Under a second in all.
. "$(dirname "$0")/lib.sh"

# A CPU number that is certainly not online here ("-a 9" on small machines).
off=9
conf=$(getconf _NPROCESSORS_CONF 2>/dev/null || echo 0)
[ "$conf" -gt "$off" ] 2>/dev/null && off=$conf

bad "-i 0" '--interval' -a 1 -D 1 -q --json @OUT@ -i 0
bad "-i -5" '--interval' -a 1 -D 1 -q --json @OUT@ -i -5
bad "-i abc" '--interval' -a 1 -D 1 -q --json @OUT@ -i abc
bad "-a $off" "--cpus.*not online" -D 1 -q --json @OUT@ -a "$off"
bad "-a 1-" '--cpus' -D 1 -q --json @OUT@ -a 1-
bad "-a x" '--cpus' -D 1 -q --json @OUT@ -a x
bad "-p 0" '--priority' -a 1 -D 1 -q --json @OUT@ -p 0
bad "-p 100" '--priority' -a 1 -D 1 -q --json @OUT@ -p 100
bad "--policy bogus" '--policy' -a 1 -D 1 -q --json @OUT@ --policy bogus
bad "--json into a missing directory" '--json' -a 1 -D 1 -q --json /nonexistent/dir/x.json
bad "--samples into a missing directory" '--samples' -a 1 -D 1 -q --json @OUT@ --samples /nonexistent/x.csv
bad "--histogram-file into a missing directory" '--histogram-file' -a 1 -D 1 -q --json @OUT@ --histogram-file @DIR@/no/such/dir/h.txt
bad "--bogus-option" '--bogus-option' -a 1 -D 1 -q --json @OUT@ --bogus-option
bad "-D 0 with --loops" '--loops 5: a run --forever has no end' -a 1 -q --json @OUT@ -D 0 --loops 5
bad "--forever with -D 5s" '--duration 5s: a run --forever has no end' -a 1 -q --json @OUT@ --forever -D 5s
bad "--prometheus bad port" '--prometheus 99999: the port must be' -a 1 -q --json @OUT@ --prometheus 99999
bad "--influx bad scheme" '--influx ftp://x: not a file' -a 1 -q --json @OUT@ --influx ftp://x
bad "--clock bogus" '--clock' -a 1 -D 1 -q --json @OUT@ --clock bogus
bad "unexpected positional argument" 'stray' -a 1 -D 1 -q --json @OUT@ stray
bad "--tolerance -1" '--tolerance' -a 1 -D 1 -q --json @OUT@ --tolerance -1

# --- carried over from cyclictest: refused with where the meaning went ----------
bad "-h 1000 (cyclictest's histogram)" '-h 1000: -h is --help and takes no value; cyclictest.s -h N .* is --histogram-file FILE --histogram-max N' -a 1 -D 1 --json @OUT@ -h 1000
bad "-t 2" "-t: cyclictest.s -t \(threads\) has no equal here" -a 1 -D 1 --json @OUT@ -t 2
bad "-b 100" "-b: cyclictest.s -b US .* is --budget DUR here" -a 1 -D 1 --json @OUT@ -b 100
bad "-H 100" "-H: cyclictest.s -H/--histofall US .* use --histogram-file FILE --histogram-max US" -a 1 -D 1 --json @OUT@ -H 100
bad "--smp" "-S: cyclictest.s -S/--smp .* is what jitterlab does: one thread on each CPU of -a/--cpus" -a 1 -D 1 --json @OUT@ --smp
bad "-v" "-v: cyclictest.s -v/--verbose .* is --samples FILE here" -a 1 -D 1 --json @OUT@ -v
bad "--histfile and --histogram-file, two files" "--histogram-file .*: --histfile \(cyclictest.s\) is --histogram-file here" -a 1 -D 1 --json @OUT@ --histfile @DIR@/a.txt --histogram-file @DIR@/b.txt
# --- carried over from cyclictest, and what jitterlab does anyway: taken with a note --
"$JL" run -a 1 -i 1ms -l 20 -m --nanosleep --histfile "$T/ct.hist" --json "$T/ct.json" >"$T/ct.out" 2>"$T/ct.err"
rc_is "-m --nanosleep --histfile: taken, exits 0" 0 $?
check "-m: a note that memory is always locked" grep -q '^jitterlab: note: -m/--mlockall (cyclictest.s) changes nothing: jitterlab always locks its memory' "$T/ct.err"
check "--nanosleep: a note that clock_nanosleep is what run does" grep -q '^jitterlab: note: -n/--nanosleep (cyclictest.s) changes nothing' "$T/ct.err"
# -l 20 plans 20 cycles; a cycle the machine made miss has no sample, and
# cyclictest's Total leaves out the samples beyond the histogram (1 ms).
n=$(jget "$T/ct.json" 'd["all"]["samples"]')
o=$(sed -n 's/^# Histogram Overflows: *0*\([0-9][0-9]*\).*/\1/p; s/^# Histogram Overflows: *0*$/0/p' "$T/ct.hist" | head -1)
check "--histfile FILE: written as --histogram-file, in cyclictest's format (Total: the $n samples less ${o:-?} overflows)" grep -Eq "^# Total: *0*$((n - ${o:-0}))\$" "$T/ct.hist"
check "--histfile FILE: the note says so" grep -q "^jitterlab: note: --histfile $T/ct.hist (cyclictest.s) is --histogram-file $T/ct.hist here" "$T/ct.err"
"$JL" run -a 1 -i 1ms -l 5 -q -m -n --json "$T/ctq.json" >/dev/null 2>"$T/ctq.err"
check "-q: no note" test ! -s "$T/ctq.err"
# --- an abbreviation that names several options ------------------------------------
bad "--c (ambiguous)" "ambiguous option '--c': --clock, --counters, --cpus" -a 1 -D 1 --json @OUT@ --c tsc
# --- two outputs into one file -----------------------------------------------------
bad "--json and --histogram-file into one file" '--histogram-file .*: the same file as --json' -a 1 -D 1 -q --json @OUT@ --histogram-file @OUT@
bad "--samples through another name of the --json file" '--samples .*: the same file as --json' -a 1 -D 1 -q --json @OUT@ --samples @DIR@/./out.json
BAD_SUBCOMMAND=stat bad "stat --json and --csv into one file" '--csv .*: the same file as --json' -D 1 --json @OUT@ --csv @OUT@
# --- --pm-qos takes units like every other time option ------------------------------
bad "--pm-qos 1.5us" '--pm-qos 1.5us: must be whole microseconds' -a 1 -D 1 -q --json @OUT@ --pm-qos 1.5us
bad "--pm-qos 1h" '--pm-qos 1h: must be at most 2000s' -a 1 -D 1 -q --json @OUT@ --pm-qos 1h
"$JL" run -a 1 -D 0.2 -q --pm-qos 10us --json "$T/pmqos.json" 2>"$T/err"
rc_is "--pm-qos 10us is taken" 0 $?
check "--pm-qos 10us holds 10 us" python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d['config']['pm_qos_us'] == 10 else 1)" "$T/pmqos.json"

# No default CPU to measure: the message says why, for run and noise alike.
mkdir -p "$T/nocpu/sys/devices/system/cpu" "$T/farcpu/sys/devices/system/cpu"
echo 1023 >"$T/farcpu/sys/devices/system/cpu/online"
bad "--sysroot without an online list" "--cpus: no CPU is usable: .*/nocpu/sys/devices/system/cpu/online lists none" \
    -D 1 -q --json @OUT@ --sysroot "$T/nocpu"
bad "--sysroot whose CPUs are outside the affinity" "--cpus: no CPU is usable: none of the online CPUs \(1023\) is within this process.s CPU affinity \([0-9,-]+\)" \
    -D 1 -q --json @OUT@ --sysroot "$T/farcpu"
BAD_SUBCOMMAND=noise bad "noise: --sysroot without an online list" "--cpus: no CPU is usable: .*online lists none" \
    -D 1 -q --json @OUT@ --sysroot "$T/nocpu"
