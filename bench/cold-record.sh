#!/bin/sh
# Benchmark: what one tracepoint record costs the kernel on a warm and on a
# cold cache, the price --explain pays on the wake-up path. Not a test: it
# prints medians.
#
#   bench/cold-record.sh [CPU] [SLEEP_US] [ROUNDS]
#   (PM_QOS=0 holds /dev/cpu_dma_latency at 0 meanwhile, as run --pm-qos 0
#   and bench/explain-overhead.sh do: the CPU polls instead of halting)
#
# A small program on CPU (SCHED_FIFO 90) sleeps SLEEP_US (default 1000, as
# a 1 ms run's thread does), then makes two getppid system calls back to
# back and times each: the first runs on whatever the sleep left in the
# caches and TLBs, the second right after it. 2000 cycles per round, the
# median of each; ROUNDS rounds (default 3) alternate "off" (no tracing)
# and "record": the syscalls:sys_enter_getppid tracepoint enabled in a
# tracefs instance of the bench's own, recording on CPU only with the mono
# clock (as --explain's). The difference record - off is what one record
# costs, with the system call's traced entry path (the syscall tracepoints
# take a slower way in): an upper bound for a tracepoint inside the kernel.
# Needs root and tracefs; removes its instance at the end, after Ctrl-C too.
set -eu
cpu=${1:-1}
sleep_us=${2:-1000}
rounds=${3:-3}
case $cpu in ''|*[!0-9]*) echo "CPU: a number, 0..31" >&2; exit 2 ;; esac
[ "$cpu" -le 31 ] || { echo "CPU: 0..31 (tracing_cpumask is written as one word)" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "needs root (tracefs, SCHED_FIFO)" >&2; exit 1; }
tracing=/sys/kernel/tracing
[ -d "$tracing/instances" ] || mount -t tracefs nodev "$tracing" 2>/dev/null || true
[ -d "$tracing/instances" ] || { echo "no tracefs instances under $tracing" >&2; exit 1; }
event=events/syscalls/sys_enter_getppid
[ -d "$tracing/$event" ] || { echo "no $event (CONFIG_FTRACE_SYSCALLS)" >&2; exit 1; }

tmp=$(mktemp -d /tmp/jl-cold.XXXXXX)
inst="$tracing/instances/jl-cold-record-$$"
cleanup() {
    [ -d "$inst" ] && rmdir "$inst"
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

cat >"$tmp/cold.c" <<'C'
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CYCLES 2000

static long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    static long first[CYCLES], second[CYCLES];
    long sleep_ns = argc > 1 ? atol(argv[1]) * 1000 : 1000000;
    if (argc > 2) { /* held until exit, as the PM QoS interface wants */
        int32_t zero = 0;
        int fd = open("/dev/cpu_dma_latency", O_WRONLY);
        if (fd < 0 || write(fd, &zero, sizeof(zero)) != (ssize_t)sizeof(zero)) {
            perror("/dev/cpu_dma_latency");
            return 1;
        }
    }
    for (int i = 0; i < CYCLES; i++) {
        struct timespec d = {sleep_ns / 1000000000L, sleep_ns % 1000000000L};
        nanosleep(&d, NULL);
        long t0 = now_ns();
        syscall(SYS_getppid);
        long t1 = now_ns();
        syscall(SYS_getppid);
        long t2 = now_ns();
        first[i] = t1 - t0;
        second[i] = t2 - t1;
    }
    qsort(first, CYCLES, sizeof(long), cmp);
    qsort(second, CYCLES, sizeof(long), cmp);
    printf("%ld %ld\n", first[CYCLES / 2], second[CYCLES / 2]);
    return 0;
}
C
cc -O2 -o "$tmp/cold" "$tmp/cold.c"

mkdir "$inst"
echo mono >"$inst/trace_clock"
printf '%x\n' $((1 << cpu)) >"$inst/tracing_cpumask"

measure() {
    taskset -c "$cpu" chrt -f 90 "$tmp/cold" "$sleep_us" ${PM_QOS:+pm-qos}
}

echo "CPU $cpu, sleep $sleep_us us, 2000 cycles per round, PM QoS ${PM_QOS:-not held}; medians in ns"
printf '%-6s %-7s %14s %14s\n' round mode "cold call" "warm call"
off_cold="" off_warm="" rec_cold="" rec_warm=""
for r in $(seq "$rounds"); do
    for mode in off record; do
        if [ "$mode" = record ]; then echo 1 >"$inst/$event/enable"; fi
        set -- $(measure)
        echo 0 >"$inst/$event/enable"
        printf '%-6s %-7s %14s %14s\n' "$r" "$mode" "$1" "$2"
        if [ "$mode" = off ]; then
            off_cold="$off_cold $1" off_warm="$off_warm $2"
        else
            rec_cold="$rec_cold $1" rec_warm="$rec_warm $2"
        fi
    done
done
python3 - "$off_cold" "$off_warm" "$rec_cold" "$rec_warm" <<'PY'
import statistics, sys
oc, ow, rc, rw = ([int(x) for x in a.split()] for a in sys.argv[1:])
print()
print("one record, cold (after the sleep): +%d ns (median of the rounds: %d -> %d)" %
      (statistics.median(rc) - statistics.median(oc), statistics.median(oc), statistics.median(rc)))
print("one record, warm (the call after):  +%d ns (%d -> %d)" %
      (statistics.median(rw) - statistics.median(ow), statistics.median(ow), statistics.median(rw)))
PY
