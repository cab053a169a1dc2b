/*
 * Fuzz target: /proc/stat as telemetry parses it (proc_stat_parse in
 * src/sys/proc_stat.c), for CPUs 0-3 and 4095 (the last a CPU list holds).
 * A refused text gives a reason and no CPU present; an accepted one has
 * 4 to 10 kinds per present CPU, zeros beyond them, the targets in their
 * order, and the same ticks and ctxt that a second, plain reading of the
 * text (the last "cpuN" line of each target, the last one-number "ctxt"
 * line) finds. Parsing again into the same struct gives the same result.
 */
#include "fuzz.h"

#include <errno.h>

#include "sys/proc_stat.h"

static const char *next_line(const char *p)
{
    const char *eol = strchr(p, '\n');
    return eol ? eol + 1 : NULL;
}

/* The plain reading: the last "cpuN" line for target cpu. */
static bool oracle_cpu(const char *text, int cpu, uint64_t *ticks, int *n)
{
    bool found = false;
    for (const char *line = text; line && *line; line = next_line(line)) {
        if (strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9')
            continue;
        char *end;
        unsigned long long id = strtoull(line + 3, &end, 10);
        if (id != (unsigned long long)cpu)
            continue;
        found = true;
        *n = 0;
        memset(ticks, 0, CPU_TIME_KINDS * sizeof *ticks);
        const char *p = end;
        while (*p && *p != '\n') {
            while (*p == ' ' || *p == '\t')
                p++;
            if (!*p || *p == '\n')
                break;
            unsigned long long v = strtoull(p, &end, 10);
            if (*n < CPU_TIME_KINDS)
                ticks[*n] = v;
            (*n)++;
            p = end;
        }
    }
    return found;
}

static void check(const char *text, const struct proc_stat *st, int rc, const char *why)
{
    if (rc != 0) {
        if (rc != -1 || !why)
            abort();
        return;
    }
    static const int targets[] = {0, 1, 2, 3, 4095};
    bool has_ctxt = false;
    for (const char *line = text; line && *line; line = next_line(line)) {
        if (strncmp(line, "ctxt ", 5) != 0 || line[5] < '0' || line[5] > '9')
            continue;
        char *end;
        errno = 0;
        (void)strtoull(line + 5, &end, 10);
        if (errno == 0 && (*end == '\n' || *end == '\0'))
            has_ctxt = true;
    }
    for (int i = 0; i < st->ncpu; i++) {
        const struct proc_stat_cpu *c = &st->cpu[i];
        if (c->cpu != targets[i])
            abort();
        uint64_t ticks[CPU_TIME_KINDS];
        int n = 0;
        bool found = oracle_cpu(text, c->cpu, ticks, &n);
        if (found != c->present)
            abort();
        if (!c->present)
            continue;
        if (c->nkinds < 4 || c->nkinds > CPU_TIME_KINDS || c->nkinds != (n < 10 ? n : 10))
            abort();
        for (int k = 0; k < CPU_TIME_KINDS; k++)
            if (c->ticks[k] != ticks[k] || (k >= c->nkinds && c->ticks[k] != 0))
                abort();
        (void)proc_stat_total_ticks(c);
    }
    /* a plain "ctxt N" line is always taken (the parser also takes
     * trailing blanks, which the plain reading leaves out) */
    if (has_ctxt && !st->has_ctxt)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct cpulist targets;
    static struct proc_stat st, again;
    if (targets.count == 0) {
        const char *why = NULL;
        if (cpulist_parse("0-3,4095", &targets, &why) != 0 || proc_stat_init(&st, &targets) != 0 ||
            proc_stat_init(&again, &targets) != 0)
            abort();
    }
    char *text = fuzz_cstring(data, size);
    const char *why = NULL;
    int rc = proc_stat_parse(text, &st, &why);
    check(text, &st, rc, why);
    /* again held another text first: nothing of it may remain */
    why = NULL;
    if (proc_stat_parse("cpu0 9 9 9 9 9\ncpu3 1 1 1 1\nctxt 77\n", &again, &why) != 0)
        abort();
    if (proc_stat_parse(text, &again, &why) != rc || again.has_ctxt != st.has_ctxt ||
        (st.has_ctxt && again.ctxt != st.ctxt))
        abort();
    for (int i = 0; rc == 0 && i < st.ncpu; i++)
        if (again.cpu[i].present != st.cpu[i].present ||
            (st.cpu[i].present &&
             (again.cpu[i].nkinds != st.cpu[i].nkinds ||
              memcmp(again.cpu[i].ticks, st.cpu[i].ticks, sizeof st.cpu[i].ticks) != 0)))
            abort();
    free(text);
    return 0;
}
