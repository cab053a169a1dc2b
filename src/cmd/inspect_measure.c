/*
 * `jitterlab inspect --measure DUR`: a short `jitterlab run` on the target
 * CPUs, as a child process of this program (src/experiment/child.c: its own
 * process group, Ctrl-C forwarded, killed if it overruns), writing its
 * result to a private temporary directory that is read back
 * (src/out/result_read.c) and removed. The run measures the machine as it
 * is configured: default policy and priority, no PM QoS request, no tuning.
 */
#include "cmd/inspect_measure.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/units.h"
#include "experiment/child.h"
#include "out/result_read.h"

#define MEASURE_SLACK_NS (30 * NS_PER_S) /* start-up and writing, beyond DUR */
#define MEASURE_GRACE_NS (5 * NS_PER_S)  /* SIGINT to SIGKILL */

static void fill_from_result(const struct result_doc *doc, struct inspect_measurement *m)
{
    m->done = true;
    m->interrupted = doc->interrupted;
    m->realtime = doc->realtime;
    m->duration_s = doc->duration_s;
    m->samples = doc->all.samples;
    m->missed = doc->all.missed;
    m->max_ns = doc->all.latency.known ? doc->all.latency.max : 0;
    m->p99_ns = doc->all.latency.known ? doc->all.latency.p99 : 0;
    m->max_cpu = -1;
    for (int i = 0; i < doc->ncpus; i++)
        if (doc->cpus[i].latency.known && doc->cpus[i].samples > 0 &&
            (m->max_cpu < 0 || doc->cpus[i].latency.max > m->max_ns)) {
            m->max_cpu = doc->cpus[i].cpu;
            m->max_ns = doc->cpus[i].latency.max;
        }
}

void inspect_measure(const struct inspect_measure_spec *spec, struct inspect_measurement *m)
{
    memset(m, 0, sizeof *m);
    m->max_cpu = -1;
    m->interval_ns = spec->interval_ns;
    char interval[32], duration[32], budget[32], dir[] = "/tmp/jitterlab-inspect.XXXXXX";
    char path[sizeof dir + 16];
    snprintf(interval, sizeof interval, "%lldns", (long long)spec->interval_ns);
    snprintf(duration, sizeof duration, "%lldns", (long long)spec->duration_ns);
    snprintf(budget, sizeof budget, "%lldns", (long long)spec->budget_ns);
    char shown_i[32], shown_d[32], shown_b[32];
    format_duration_arg(spec->interval_ns, shown_i, sizeof shown_i);
    format_duration_arg(spec->duration_ns, shown_d, sizeof shown_d);
    format_duration_arg(spec->budget_ns, shown_b, sizeof shown_b);
    snprintf(m->command, sizeof m->command, "jitterlab run -a %s -i %s -D %s --budget %s",
             spec->cpus, shown_i, shown_d, shown_b);
    if (!mkdtemp(dir)) {
        snprintf(m->why, sizeof m->why, "a temporary directory in /tmp: %s", strerror(errno));
        return;
    }
    snprintf(path, sizeof path, "%s/run.json", dir);
    char *argv[] = {"jitterlab", "run",      "-a",   (char *)spec->cpus, "-i", interval, "-D",
                    duration,    "--budget", budget, "--json",           path, "-q",     NULL};
    struct child_spec cs = {
        .path = spec->exe,
        .argv = argv,
        .capture = true,
        .forward_stop = true,
        .limit_ns = spec->duration_ns + MEASURE_SLACK_NS,
        .grace_ns = MEASURE_GRACE_NS,
    };
    struct child_result *res = calloc(1, sizeof *res);
    if (!res) {
        snprintf(m->why, sizeof m->why, "out of memory");
        rmdir(dir);
        return;
    }
    if (child_run(&cs, res) != 0) {
        snprintf(m->why, sizeof m->why, "%s could not be started: %s", spec->exe,
                 strerror(res->spawn_errno));
    } else {
        struct result_doc doc;
        char err[256], said[200];
        /* exit 3 is the budget exceeded: a result like any other */
        bool wrote = access(path, F_OK) == 0;
        if (wrote && result_read_file(path, &doc, err, sizeof err) == 0) {
            fill_from_result(&doc, m);
            result_doc_free(&doc);
        } else if (wrote) {
            snprintf(m->why, sizeof m->why, "its result could not be read: %.200s", err);
        } else {
            char how[96];
            child_describe(res, how, sizeof how);
            child_last_line(res, said, sizeof said);
            snprintf(m->why, sizeof m->why, "the run ended (%.60s) without a result%s%.150s", how,
                     said[0] ? ": " : "", said);
        }
    }
    free(res);
    unlink(path);
    rmdir(dir);
}
