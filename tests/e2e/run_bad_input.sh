#!/bin/sh
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
