/*
 * perf_event_open-based counters for telemetry (see perf_counters.h). The
 * msr PMU's event codes come from sysfs ("event=0x02"); its type number
 * too. The switch rings are a meta page plus 16 data pages: at most 8192
 * header-only sample records between two polls before the kernel starts
 * counting losses instead.
 */
#include "telemetry/perf_counters.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SWITCH_DATA_PAGES      16
#define VALUE_UNKNOWN_PARANOID 99 /* shown when the file cannot be read */

static const char *const msr_event_names[MSR_COUNTERS] = {"tsc", "aperf", "mperf", "smi"};

static int perf_open(struct perf_event_attr *a, int cpu, int group_fd)
{
    return (int)syscall(SYS_perf_event_open, a, -1, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* "event=0x02" (possibly with more terms after a comma). */
static int parse_event_config(const char *text, uint64_t *config)
{
    unsigned long long v;
    char tail = 0;
    if (sscanf(text, "event=%llx%c", &v, &tail) < 1 || (tail && tail != ',' && tail != '\n'))
        return -1;
    *config = v;
    return 0;
}

int perf_msr_open(struct perf_msr_group *g, const struct sysroot *sr, const struct cpulist *cpus,
                  char *why, size_t whylen)
{
    memset(g, 0, sizeof *g);
    int64_t type;
    if (sr->prefix[0]) {
        snprintf(why, whylen, "no perf msr PMU under a fixture tree");
        return -1;
    }
    if (sysroot_read_int64(sr, "/sys/bus/event_source/devices/msr/type", &type) != 0) {
        snprintf(why, whylen, "no perf msr PMU (/sys/bus/event_source/devices/msr)");
        return -1;
    }
    g->ncpu = cpus->count;
    g->fd = malloc((size_t)(cpus->count > 0 ? cpus->count : 1) * MSR_COUNTERS * sizeof(int));
    if (!g->fd) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    for (int k = 0; k < cpus->count * MSR_COUNTERS; k++)
        g->fd[k] = -1;
    uint64_t config[MSR_COUNTERS];
    bool listed[MSR_COUNTERS] = {false};
    for (int k = 0; k < MSR_COUNTERS; k++) {
        char path[128], text[64];
        snprintf(path, sizeof path, "/sys/bus/event_source/devices/msr/events/%s",
                 msr_event_names[k]);
        listed[k] = sysroot_read_string(sr, path, text, sizeof text) > 0 &&
                    parse_event_config(text, &config[k]) == 0;
        g->have[k] = listed[k];
    }
    /* Open the group on every CPU; an event that fails on one CPU is
     * dropped everywhere and the groups are opened again without it, so
     * that every CPU has the same group with a real leader. */
    int err = 0;
    for (int attempt = 0; attempt <= MSR_COUNTERS; attempt++) {
        bool dropped = false;
        for (int i = 0; i < cpus->count && !dropped; i++) {
            int leader = -1;
            for (int k = 0; k < MSR_COUNTERS && !dropped; k++) {
                if (!g->have[k])
                    continue;
                struct perf_event_attr a;
                memset(&a, 0, sizeof a);
                a.size = sizeof a;
                a.type = (uint32_t)type;
                a.config = config[k];
                a.read_format = PERF_FORMAT_GROUP;
                int fd = perf_open(&a, cpus->cpu[i], leader);
                if (fd < 0) {
                    err = errno;
                    g->have[k] = false;
                    dropped = true;
                    break;
                }
                g->fd[i * MSR_COUNTERS + k] = fd;
                if (leader < 0)
                    leader = fd;
            }
        }
        if (!dropped)
            break;
        for (int k = 0; k < cpus->count * MSR_COUNTERS; k++)
            if (g->fd[k] >= 0) {
                close(g->fd[k]);
                g->fd[k] = -1;
            }
    }
    int any = 0;
    for (int k = 0; k < MSR_COUNTERS; k++)
        any += g->have[k];
    if (!any) {
        bool none_listed = !listed[0] && !listed[1] && !listed[2] && !listed[3];
        if (none_listed)
            snprintf(why, whylen, "the msr PMU lists none of tsc, aperf, mperf, smi");
        else
            snprintf(why, whylen, "perf_event_open(msr, CPU %d): %s", cpus->cpu[0], strerror(err));
        perf_msr_close(g);
        return -1;
    }
    return 0;
}

int perf_msr_read(const struct perf_msr_group *g, int i, uint64_t values[MSR_COUNTERS])
{
    int leader = -1;
    for (int k = 0; k < MSR_COUNTERS && leader < 0; k++)
        if (g->have[k])
            leader = g->fd[i * MSR_COUNTERS + k];
    if (leader < 0)
        return -1;
    /* PERF_FORMAT_GROUP: nr, then one value per member in opening order
     * (the order of enum msr_counter). */
    uint64_t buf[1 + MSR_COUNTERS];
    uint64_t members = 0;
    for (int k = 0; k < MSR_COUNTERS; k++)
        members += g->have[k];
    ssize_t got = read(leader, buf, sizeof buf);
    if (got != (ssize_t)((1 + members) * sizeof(uint64_t)) || buf[0] != members)
        return -1; /* not the group that was opened: no stale values */
    size_t v = 1;
    for (int k = 0; k < MSR_COUNTERS; k++)
        if (g->have[k] && v <= buf[0])
            values[k] = buf[v++];
    return 0;
}

void perf_msr_close(struct perf_msr_group *g)
{
    if (g->fd)
        for (int k = 0; k < g->ncpu * MSR_COUNTERS; k++)
            if (g->fd[k] >= 0)
                close(g->fd[k]);
    free(g->fd);
    memset(g, 0, sizeof *g);
}

struct perf_switch_cpu {
    int fd;
    uint8_t *map;
    size_t data_bytes;
    uint64_t tail;
    uint64_t count;
};

int perf_switch_open(struct perf_switch_counter *c, const struct cpulist *cpus, char *why,
                     size_t whylen)
{
    memset(c, 0, sizeof *c);
    c->cpu = calloc(cpus->count > 0 ? (size_t)cpus->count : 1, sizeof *c->cpu);
    if (!c->cpu) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    c->ncpu = cpus->count;
    for (int i = 0; i < c->ncpu; i++)
        c->cpu[i].fd = -1;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (int i = 0; i < c->ncpu; i++) {
        struct perf_event_attr a;
        memset(&a, 0, sizeof a);
        a.size = sizeof a;
        a.type = PERF_TYPE_SOFTWARE;
        a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
        a.sample_period = 1;
        a.sample_type = 0; /* a bare header per switch */
        a.watermark = 1;   /* never woken: the collector polls */
        a.wakeup_watermark = UINT32_MAX;
        struct perf_switch_cpu *p = &c->cpu[i];
        p->fd = perf_open(&a, cpus->cpu[i], -1);
        if (p->fd < 0) {
            int err = errno;
            int64_t paranoid = VALUE_UNKNOWN_PARANOID;
            struct sysroot live;
            sysroot_init(&live, NULL);
            sysroot_read_int64(&live, "/proc/sys/kernel/perf_event_paranoid", &paranoid);
            char hint[96] = "";
            if (err == EACCES || err == EPERM)
                snprintf(hint, sizeof hint,
                         " (CPU-wide events need root or CAP_PERFMON; perf_event_paranoid %lld)",
                         (long long)paranoid);
            snprintf(why, whylen, "perf_event_open(context-switches, CPU %d): %s%s", cpus->cpu[i],
                     strerror(err), hint);
            perf_switch_close(c);
            return -1;
        }
        p->data_bytes = SWITCH_DATA_PAGES * page;
        p->map = mmap(NULL, page + p->data_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0);
        if (p->map == MAP_FAILED) {
            p->map = NULL;
            snprintf(why, whylen, "mmap of the context-switch ring, CPU %d: %s", cpus->cpu[i],
                     strerror(errno));
            perf_switch_close(c);
            return -1;
        }
    }
    return 0;
}

void perf_switch_poll(struct perf_switch_counter *c)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (int i = 0; i < c->ncpu; i++) {
        struct perf_switch_cpu *p = &c->cpu[i];
        struct perf_event_mmap_page *meta = (void *)p->map;
        const uint8_t *data = p->map + page;
        uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
        if (head - p->tail > p->data_bytes)
            p->tail = head - p->data_bytes; /* cannot happen: the kernel never overwrites */
        while (p->tail + sizeof(struct perf_event_header) <= head) {
            struct perf_event_header h;
            size_t off = (size_t)(p->tail % p->data_bytes);
            /* records are 8-byte aligned, the header never wraps */
            memcpy(&h, data + off, sizeof h);
            if (h.size < sizeof h || p->tail + h.size > head)
                break;
            if (h.type == PERF_RECORD_SAMPLE) {
                p->count++;
            } else if (h.type == PERF_RECORD_LOST && h.size >= sizeof h + 16) {
                uint64_t lost; /* after the id */
                size_t at = (size_t)((p->tail + sizeof h + 8) % p->data_bytes);
                memcpy(&lost, data + at, sizeof lost);
                p->count += lost;
            }
            p->tail += h.size;
        }
        __atomic_store_n(&meta->data_tail, p->tail, __ATOMIC_RELEASE);
    }
}

uint64_t perf_switch_count(const struct perf_switch_counter *c, int i)
{
    return c->cpu[i].count;
}

void perf_switch_close(struct perf_switch_counter *c)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (int i = 0; c->cpu && i < c->ncpu; i++) {
        if (c->cpu[i].map)
            munmap(c->cpu[i].map, page + c->cpu[i].data_bytes);
        if (c->cpu[i].fd >= 0)
            close(c->cpu[i].fd);
    }
    free(c->cpu);
    memset(c, 0, sizeof *c);
}
