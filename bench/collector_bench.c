/*
 * The collector's throughput, without a machine of that size: synthetic
 * producers fill N sample rings of a real engine (built for N CPUs, its
 * threads never started) at a chosen aggregate rate, in batches, while the
 * real collector drains them through the sinks `run` wires (run_sinks.c):
 * running results and their histograms, report windows, telemetry windows
 * (with --sysroot), the samples CSV, the exporter's figures and page.
 *
 *   collector-bench [-n RINGS] [-r RATE] [-D SECONDS] [-p PRODUCERS]
 *                   [-S STALL_MS] [-s] [-- RUN OPTIONS...]
 *
 * RUN OPTIONS are `jitterlab run` options (--samples F, --report-every 1s,
 * --prometheus PORT, --no-telemetry, ...). The producers run on the last
 * CPU, the collector on CPU 0. One line of key=value figures is printed;
 * verify=ok means every ring's samples reached the collector (no drop) and
 * each CPU's running histogram equals the producer's own, bucket by bucket;
 * verify=dropped that the rings overflowed (-S stalls the collector once,
 * half-way, as a starved housekeeping CPU would) and what they delivered
 * still matches.
 * Exit 0 when verified, 1 when not, 2 for bad arguments.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cmd/run_cli.h"
#include "cmd/run_export.h"
#include "cmd/run_result.h"
#include "cmd/run_sinks.h"
#include "common/clock.h"
#include "engine/collector.h"
#include "engine/engine.h"
#include "out/run_stream.h"
#include "stats/histogram.h"
#include "sys/sysroot.h"
#include "sys/system_info.h"
#include "telemetry/run_telemetry.h"
#include "telemetry/telemetry.h"

#define PRODUCER_STEP_NS (200 * 1000) /* a batch per ring every 200 us */

struct producer {
    struct engine *eng;
    int first, count; /* its rings */
    int64_t interval_ns;
    double per_ring_rate; /* samples per second and ring */
    int64_t start_ns, end_ns;
    int cpu;
    struct latency_hist *hist; /* per ring: what was pushed */
    uint64_t *pushed;          /* per ring: taken by the ring */
    uint64_t *offered;         /* per ring: taken or dropped */
    int64_t *prev_wake;
    uint64_t dropped;
    int64_t cpu_ns;
};

static uint64_t xorshift(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* A plausible latency: mostly 2-20 us, now and then a spike up to 5 ms. */
static int64_t synthetic_latency(uint64_t *x)
{
    uint64_t r = xorshift(x);
    if (r % 1000 == 0)
        return 200000 + (int64_t)(r >> 20) % 4800000;
    return 2000 + (int64_t)(r >> 12) % 18000;
}

static int64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void pin_self(int cpu)
{
    cpu_set_t *set = CPU_ALLOC(cpu + 1);
    size_t size = CPU_ALLOC_SIZE(cpu + 1);
    if (!set)
        return;
    CPU_ZERO_S(size, set);
    CPU_SET_S(cpu, size, set);
    pthread_setaffinity_np(pthread_self(), size, set);
    CPU_FREE(set);
}

static void *produce(void *arg)
{
    struct producer *pr = arg;
    pin_self(pr->cpu);
    uint64_t seed = 0x9e3779b97f4a7c15ull ^ (uint64_t)pr->first;
    int64_t cpu0 = thread_cpu_ns();
    for (int64_t next = pr->start_ns;; next += PRODUCER_STEP_NS) {
        sleep_until_ns(next);
        int64_t now = monotonic_now_ns();
        if (now > pr->end_ns)
            now = pr->end_ns;
        uint64_t due = (uint64_t)((double)(now - pr->start_ns) / 1e9 * pr->per_ring_rate);
        for (int k = 0; k < pr->count; k++) {
            int i = pr->first + k;
            struct sample_ring *ring = engine_ring(pr->eng, i);
            for (uint64_t seq = pr->offered[k]; seq < due; seq++, pr->offered[k]++) {
                int64_t lat = synthetic_latency(&seed);
                int64_t wake = (int64_t)seq * pr->interval_ns + lat;
                struct cycle_sample s = {
                    .t_ns = wake,
                    .latency_ns = lat,
                    .period_ns = pr->prev_wake[k] >= 0 ? wake - pr->prev_wake[k] : 0,
                    .exec_ns = 500 + lat % 1500,
                    .llc_misses = -1,
                    .seq = (uint32_t)seq,
                    .ipc_milli = -1,
                    .context_switches = -1,
                };
                pr->prev_wake[k] = wake;
                if (sample_ring_push(ring, &s)) {
                    latency_hist_add(&pr->hist[k], lat);
                    pr->pushed[k]++;
                } else {
                    pr->dropped++;
                }
            }
        }
        if (now >= pr->end_ns)
            break;
    }
    pr->cpu_ns = thread_cpu_ns() - cpu0;
    return NULL;
}

static bool same_hist(const struct latency_hist *a, const struct latency_hist *b)
{
    return a->count == b->count && a->overflow == b->overflow && a->min_ns == b->min_ns &&
           a->max_ns == b->max_ns && memcmp(a->buckets, b->buckets, sizeof(a->buckets)) == 0;
}

static int usage(const char *why)
{
    fprintf(stderr,
            "collector-bench: %s\n"
            "usage: collector-bench [-n RINGS] [-r RATE] [-D SECONDS] [-p PRODUCERS] "
            "[-- RUN OPTIONS]\n",
            why);
    return 2;
}

int main(int argc, char **argv)
{
    int rings = 64, producers = 1, stall_ms = 0;
    bool summary = false;
    double rate = 200000, seconds = 2;
    int opt;
    while ((opt = getopt(argc, argv, "n:r:D:p:S:s")) != -1) {
        switch (opt) {
        case 'n':
            rings = atoi(optarg);
            break;
        case 'r':
            rate = atof(optarg);
            break;
        case 'D':
            seconds = atof(optarg);
            break;
        case 'p':
            producers = atoi(optarg);
            break;
        case 'S':
            stall_ms = atoi(optarg);
            break;
        case 's':
            summary = true;
            break;
        default:
            return usage("unknown option");
        }
    }
    if (rings < 1 || rings > CPULIST_MAX_CPUS || rate < rings || seconds <= 0 || producers < 1 ||
        producers > rings)
        return usage("-n 1..4096, -r at least one sample per ring, -D > 0, -p 1..RINGS");

    /* The run's own options: -a 0-(N-1) at the interval that gives RATE. */
    int64_t interval_ns = (int64_t)((double)rings * 1e9 / rate);
    char cpus[32], interval[32];
    snprintf(cpus, sizeof cpus, "0-%d", rings - 1);
    snprintf(interval, sizeof interval, "%lldns", (long long)interval_ns);
    int nrun = argc - optind;
    char **run_argv = calloc((size_t)nrun + 8, sizeof(char *));
    int k = 0;
    run_argv[k++] = "run";
    run_argv[k++] = "-q";
    run_argv[k++] = "-a";
    run_argv[k++] = cpus;
    run_argv[k++] = "-i";
    run_argv[k++] = interval;
    for (int i = optind; i < argc; i++)
        run_argv[k++] = argv[i];
    static struct run_params p;
    optind = 1;
    int rc = run_parse_args(k, run_argv, &p);
    if (rc >= 0)
        return rc == 0 ? 2 : rc;

    struct sysroot sr;
    sysroot_init(&sr, p.common.sysroot_dir);
    static struct system_info si;
    system_info_read(&sr, &si);

    struct engine_config cfg = {.interval_ns = p.interval_ns,
                                .duration_ns = (int64_t)(seconds * 1e9),
                                .policy = SCHED_OTHER,
                                .cpus = &p.common.cpus,
                                .tolerance_ns = p.tolerance_ns,
                                .deadline_ns = p.deadline_ns};
    char err[512];
    struct engine *eng = engine_create(&cfg, err, sizeof err);
    if (!eng) {
        fprintf(stderr, "collector-bench: %s\n", err);
        return 1;
    }
    static struct run_sinks sinks_all;
    static struct run_export exp;
    static struct run_state st;
    static struct run_telemetry rtele;
    struct telemetry *tele = NULL;
    struct run_stream rs = {0};
    struct collector c = {0};
    for (int i = 0; i < p.common.cpus.count; i++)
        sinks_all.index_of_cpu[p.common.cpus.cpu[i]] = i;
    if (p.telemetry) {
        struct telemetry_config tcfg = {
            .sr = &sr, .cpus = &p.common.cpus, .quiet = true, .kernel_release = si.kernel};
        tele = telemetry_open(&tcfg, err, sizeof err);
        if (!tele || run_telemetry_init(&rtele, tele, (uint64_t)(seconds + 3) * (uint64_t)rings,
                                        err, sizeof err) != 0) {
            fprintf(stderr,
                    "collector-bench: telemetry: %s (give --sysroot of a tree with "
                    "%d CPUs, or --no-telemetry)\n",
                    err, rings);
            return 1;
        }
        rtele.on_window = run_sink_telemetry_window;
        rtele.on_window_ctx = &sinks_all;
        sinks_all.telemetry = &rtele;
    }
    if (run_export_open(&exp, &p, &si) != 0)
        return 1;
    sinks_all.exp = &exp;
    sinks_all.st = &st;
    struct latency_hist *all_hist = malloc(3 * sizeof(*all_hist));
    if (!all_hist)
        return 1;
    st = (struct run_state){.p = &p,
                            .argc = k,
                            .argv = run_argv,
                            .si = &si,
                            .eng = eng,
                            .c = &c,
                            .tele = tele,
                            .rtele = tele ? &rtele : NULL,
                            .rs = &rs,
                            .exp = &exp,
                            .all_hist = all_hist};
    rfc3339_now(st.started_at, sizeof st.started_at);
    struct run_stream_config scfg = {.quiet = true,
                                     .periodic = p.report_every_ns > 0,
                                     .interval_ns = p.interval_ns,
                                     .tolerance_ns = p.tolerance_ns,
                                     .samples_path = p.samples_path,
                                     .intervals_path = p.intervals_path};
    struct collector_config ccfg = {.report_every_ns = p.report_every_ns,
                                    .keep_windows = p.keep_windows};
    if (run_stream_open(&rs, &scfg, err, sizeof err) != 0) {
        fprintf(stderr, "collector-bench: %s\n", err);
        return 1;
    }
    sinks_all.stream = run_stream_sinks(&rs);
    struct collector_sinks sinks =
        run_sinks_of(&sinks_all, tele ? run_telemetry_period_ns(p.report_every_ns) : 0);
    if (collector_init(&c, &ccfg, &sinks, eng, err, sizeof err) != 0) {
        fprintf(stderr, "collector-bench: %s\n", err);
        return 1;
    }
    /* The collector on CPU 0 and nothing else there: the threads started
     * above (the samples file's writer, the exporter's server) keep every
     * CPU, as on a machine with more than one housekeeping CPU. */
    pin_self(0);
    run_export_started(&exp, eng, NULL);
    if (tele)
        run_telemetry_start(&rtele);

    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    struct producer *pr = calloc((size_t)producers, sizeof(*pr));
    pthread_t *threads = calloc((size_t)producers, sizeof(*threads));
    int64_t start = monotonic_now_ns() + 20 * 1000 * 1000;
    int64_t end = start + (int64_t)(seconds * 1e9);
    for (int t = 0; t < producers; t++) {
        int first = (int)((int64_t)rings * t / producers);
        int last = (int)((int64_t)rings * (t + 1) / producers);
        pr[t] =
            (struct producer){.eng = eng,
                              .first = first,
                              .count = last - first,
                              .interval_ns = interval_ns,
                              .per_ring_rate = rate / rings,
                              .start_ns = start,
                              .end_ns = end,
                              .cpu = ncpu > 1 ? (int)(ncpu - 1 - t % (ncpu - 1)) : 0,
                              .hist = malloc((size_t)(last - first) * sizeof(struct latency_hist)),
                              .pushed = calloc((size_t)(last - first), sizeof(uint64_t)),
                              .offered = calloc((size_t)(last - first), sizeof(uint64_t)),
                              .prev_wake = malloc((size_t)(last - first) * sizeof(int64_t))};
        for (int i = 0; i < pr[t].count; i++) {
            latency_hist_init(&pr[t].hist[i]);
            pr[t].prev_wake[i] = -1;
        }
        pthread_create(&threads[t], NULL, produce, &pr[t]);
    }

    /* The collector's loop, as collector_run has it, for a fixed time. */
    int64_t period = engine_drain_period_ns(eng);
    int64_t tick_period = sinks.tick ? sinks.tick_period_ns : 0;
    int64_t next_tick = tick_period > 0 ? start + tick_period : INT64_MAX;
    int64_t cpu0 = thread_cpu_ns(), lag_max = 0, tick_max = 0;
    for (;;) {
        int64_t now = monotonic_now_ns();
        if (now > end + period)
            break;
        int64_t wake = now + period;
        sleep_until_ns(wake < next_tick ? wake : next_tick);
        now = monotonic_now_ns();
        if (now >= next_tick) {
            collector_drain(&c); /* as collector_run: the rings empty first */
            int64_t t0 = monotonic_now_ns();
            sinks.tick(sinks.ctx, now - start);
            int64_t took = monotonic_now_ns() - t0;
            if (took > tick_max)
                tick_max = took;
            while (next_tick <= now)
                next_tick += tick_period;
        }
        if (stall_ms > 0 && now > start + (end - start) / 2) {
            sleep_until_ns(now + (int64_t)stall_ms * 1000000);
            stall_ms = 0;
        }
        int64_t t0 = monotonic_now_ns();
        collector_drain(&c);
        int64_t pass = monotonic_now_ns() - t0;
        if (pass > lag_max)
            lag_max = pass;
    }
    for (int t = 0; t < producers; t++)
        pthread_join(threads[t], NULL);
    collector_drain(&c);
    int64_t collector_cpu = thread_cpu_ns() - cpu0;
    struct rusage all_ru;
    getrusage(RUSAGE_SELF, &all_ru);
    collector_finish(&c, end);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long rss_run_kib = ru.ru_maxrss;
    if (p.common.json_path || summary) {
        /* The result of every ring (the running copy), as run writes it at
         * the end (-s: the text summary, before the figures line): what the
         * document costs at this size. */
        st.running = true;
        if (tele) {
            uint64_t *missed = calloc((size_t)rings, sizeof(uint64_t));
            if (missed)
                run_telemetry_finish(&rtele, missed);
            free(missed);
        }
        run_result_write_now(&st);
    }
    getrusage(RUSAGE_SELF, &ru);
    long rss_end_kib = ru.ru_maxrss;

    uint64_t pushed = 0, dropped = 0, drained = 0, producer_cpu = 0;
    bool same = true;
    for (int t = 0; t < producers; t++) {
        dropped += pr[t].dropped;
        producer_cpu += (uint64_t)pr[t].cpu_ns;
        for (int i = 0; i < pr[t].count; i++) {
            const struct cpu_result *r = collector_running_result(&c, pr[t].first + i);
            pushed += pr[t].pushed[i];
            drained += r->samples;
            if (r->samples != pr[t].pushed[i] ||
                r->ring_drops != pr[t].offered[i] - pr[t].pushed[i] ||
                !same_hist(&r->hist, &pr[t].hist[i]))
                same = false;
        }
    }
    bool ok = same && dropped == 0;
    uint64_t offered = pushed + dropped;
    /* the process's CPU time beyond the producers and the collector: the
     * samples file's writer, the exporter's server, setup */
    double process_s = (double)all_ru.ru_utime.tv_sec + (double)all_ru.ru_utime.tv_usec / 1e6 +
                       (double)all_ru.ru_stime.tv_sec + (double)all_ru.ru_stime.tv_usec / 1e6;
    double others_s = process_s - ((double)producer_cpu + (double)collector_cpu) / 1e9;
    printf("rings=%d rate=%.0f seconds=%.1f offered=%llu drained=%llu drops=%llu "
           "ring_entries=%llu drain_period_ms=%.1f collector_ns_per_sample=%.1f "
           "collector_cpu_share=%.3f other_threads_cpu_share=%.3f producer_ns_per_sample=%.1f "
           "longest_pass_ms=%.2f longest_tick_ms=%.2f "
           "memory_mib=%.1f peak_rss_mib=%.1f peak_rss_with_json_mib=%.1f verify=%s\n",
           rings, rate, seconds, (unsigned long long)offered, (unsigned long long)drained,
           (unsigned long long)dropped,
           (unsigned long long)engine_ring_capacity(interval_ns, rings), (double)period / 1e6,
           drained ? (double)collector_cpu / (double)drained : 0,
           (double)collector_cpu / (seconds * 1e9), others_s > 0 ? others_s / seconds : 0,
           offered ? (double)producer_cpu / (double)offered : 0, (double)lag_max / 1e6,
           (double)tick_max / 1e6,
           (double)(engine_memory_bytes(eng) + collector_memory_bytes(&c)) / (1 << 20),
           (double)rss_run_kib / 1024, (double)rss_end_kib / 1024,
           ok     ? "ok"
           : same ? "dropped"
                  : "MISMATCH");
    if (!same)
        fprintf(stderr, "collector-bench: a CPU's running result differs from what its "
                        "producer pushed\n");

    const char *fail_opt, *fail_path;
    if (run_stream_commit(&rs, &fail_opt, &fail_path) != 0)
        fprintf(stderr, "collector-bench: %s %s: %s\n", fail_opt, fail_path, strerror(errno));
    run_stream_close(&rs);
    run_export_close(&exp);
    collector_free(&c);
    if (tele) {
        run_telemetry_free(&rtele);
        telemetry_close(tele);
    }
    engine_destroy(eng);
    for (int t = 0; t < producers; t++) {
        free(pr[t].hist);
        free(pr[t].pushed);
        free(pr[t].offered);
        free(pr[t].prev_wake);
    }
    free(pr);
    free(threads);
    free(run_argv);
    free(all_hist);
    return ok ? 0 : 1;
}
