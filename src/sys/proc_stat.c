/*
 * Parses /proc/stat (see proc_stat.h). Lines are "cpuN v1 v2 ..." with 4
 * to 10 values depending on the kernel, then intr, ctxt, btime, ...; only
 * the CPUs asked for and ctxt are kept. Anything that is not the kernel's
 * shape leaves the CPU not present rather than half read.
 */
#include "sys/proc_stat.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int proc_stat_init(struct proc_stat *st, const struct cpulist *cpus)
{
    memset(st, 0, sizeof *st);
    st->cpu = calloc(cpus->count > 0 ? (size_t)cpus->count : 1, sizeof *st->cpu);
    if (!st->cpu)
        return -1;
    st->ncpu = cpus->count;
    for (int i = 0; i < cpus->count; i++)
        st->cpu[i].cpu = cpus->cpu[i];
    return 0;
}

void proc_stat_free(struct proc_stat *st)
{
    free(st->cpu);
    memset(st, 0, sizeof *st);
}

/* Index of cpu among the asked CPUs (ascending), -1 when not asked for. */
static int index_of(const struct proc_stat *st, long cpu)
{
    int lo = 0, hi = st->ncpu - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (st->cpu[mid].cpu == cpu)
            return mid;
        if (st->cpu[mid].cpu < cpu)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* Reads up to max unsigned numbers separated by blanks, to the end of the
 * line. Returns how many, or -1 when something else is on the line. */
static int parse_numbers(const char *p, const char *eol, uint64_t *v, int max)
{
    int n = 0;
    for (;;) {
        while (p < eol && (*p == ' ' || *p == '\t'))
            p++;
        if (p >= eol)
            return n;
        if (!isdigit((unsigned char)*p))
            return -1;
        uint64_t x = 0;
        while (p < eol && isdigit((unsigned char)*p)) {
            unsigned d = (unsigned)(*p - '0');
            if (x > (UINT64_MAX - d) / 10)
                return -1;
            x = x * 10 + d;
            p++;
        }
        if (n < max)
            v[n] = x;
        n++;
    }
}

int proc_stat_parse(const char *text, struct proc_stat *st, const char **why)
{
    bool any_cpu = false;
    st->has_ctxt = false;
    for (int i = 0; i < st->ncpu; i++)
        st->cpu[i].present = false;
    for (const char *line = text; line && *line;) {
        const char *eol = strchr(line, '\n');
        if (!eol)
            eol = line + strlen(line);
        if (strncmp(line, "cpu", 3) == 0) {
            const char *p = line + 3;
            bool total = *p == ' ';
            long cpu = -1;
            if (!total) {
                if (!isdigit((unsigned char)*p)) {
                    *why = "a cpu line without a CPU number";
                    return -1;
                }
                cpu = 0;
                while (p < eol && isdigit((unsigned char)*p) && cpu <= CPULIST_MAX_CPUS)
                    cpu = cpu * 10 + (*p++ - '0');
            }
            uint64_t v[CPU_TIME_KINDS];
            int n = parse_numbers(p, eol, v, CPU_TIME_KINDS);
            if (n < 4) {
                *why = "a cpu line that is not 4 or more numbers";
                return -1;
            }
            any_cpu = true;
            int i = total ? -1 : index_of(st, cpu);
            if (i >= 0) {
                struct proc_stat_cpu *c = &st->cpu[i];
                memset(c->ticks, 0, sizeof c->ticks);
                c->nkinds = n < CPU_TIME_KINDS ? n : CPU_TIME_KINDS;
                memcpy(c->ticks, v, (size_t)c->nkinds * sizeof v[0]);
                c->present = true;
            }
        } else if (strncmp(line, "ctxt ", 5) == 0) {
            uint64_t v;
            if (parse_numbers(line + 5, eol, &v, 1) == 1) {
                st->ctxt = v;
                st->has_ctxt = true;
            }
        }
        line = *eol ? eol + 1 : NULL;
    }
    if (!any_cpu) {
        *why = "no cpu line";
        return -1;
    }
    return 0;
}

int proc_stat_read(const struct sysroot *sr, struct sysroot_buf *buf, struct proc_stat *st,
                   struct read_notes *notes)
{
    if (sysroot_read_file(sr, "/proc/stat", buf) < 0) {
        for (int i = 0; i < st->ncpu; i++)
            st->cpu[i].present = false;
        st->has_ctxt = false;
        return -1;
    }
    const char *why = NULL;
    if (proc_stat_parse(buf->text, st, &why) != 0) {
        read_notes_add(notes, "/proc/stat", why);
        for (int i = 0; i < st->ncpu; i++)
            st->cpu[i].present = false;
        return -1;
    }
    return 0;
}

uint64_t proc_stat_total_ticks(const struct proc_stat_cpu *c)
{
    uint64_t t = 0;
    for (int k = 0; k < CPU_TIME_GUEST; k++)
        t += c->ticks[k];
    return t;
}
