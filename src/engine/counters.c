/*
 * perf_event_open counters for the calling thread, in two groups so that one
 * read() per group returns every value of that group at the same instant
 * (PERF_FORMAT_GROUP): hardware (cycles, instructions, LLC misses) and
 * software (context switches, CPU migrations, page faults). A group's leader
 * is its first requested event; if the hardware leader cannot be opened the
 * whole group is reported unavailable with one line saying why (on VMs there
 * is usually no PMU), while a member that fails is simply left out. Counting
 * starts at open and never stops; callers take differences between reads.
 */
#include "engine/counters.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct counter_def {
    const char *name;
    uint32_t type;
    uint64_t config;
    bool hardware;
};

static const struct counter_def counter_defs[COUNTER_COUNT] = {
    [COUNTER_CYCLES] = {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, true},
    [COUNTER_INSTRUCTIONS] = {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, true},
    [COUNTER_LLC_MISSES] = {"llc-misses", PERF_TYPE_HW_CACHE,
                            PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                                (PERF_COUNT_HW_CACHE_RESULT_MISS << 16),
                            true},
    [COUNTER_CONTEXT_SWITCHES] = {"context-switches", PERF_TYPE_SOFTWARE,
                                  PERF_COUNT_SW_CONTEXT_SWITCHES, false},
    [COUNTER_CPU_MIGRATIONS] = {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS,
                                false},
    [COUNTER_PAGE_FAULTS] = {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, false},
};

#define COUNTER_NAMES_HINT                                                                         \
    "use cycles, instructions, llc-misses, context-switches, cpu-migrations, page-faults, all"

const char *counter_name(enum counter_id id)
{
    if ((unsigned)id >= COUNTER_COUNT)
        return "?";
    return counter_defs[id].name;
}

static int fail(const char **why, const char *reason)
{
    if (why)
        *why = reason;
    return -1;
}

int counters_parse(const char *text, uint32_t *mask, const char **why)
{
    if (!text || !*text)
        return fail(why, "must not be empty (" COUNTER_NAMES_HINT ")");
    uint32_t result = 0;
    const char *p = text;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 0)
            return fail(why, "empty name in the list (" COUNTER_NAMES_HINT ")");
        bool known = false;
        if (len == 3 && strncmp(p, "all", 3) == 0) {
            result |= COUNTERS_ALL_MASK;
            known = true;
        }
        for (int id = 0; id < COUNTER_COUNT && !known; id++) {
            if (strlen(counter_defs[id].name) == len &&
                strncmp(p, counter_defs[id].name, len) == 0) {
                result |= 1u << id;
                known = true;
            }
        }
        if (!known)
            return fail(why, "unknown counter (" COUNTER_NAMES_HINT ")");
        if (!end)
            break;
        p = end + 1;
    }
    *mask = result;
    return 0;
}

static int perf_open(uint32_t type, uint64_t config, int group_fd)
{
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = type;
    attr.config = config;
    attr.read_format = PERF_FORMAT_GROUP;
    attr.exclude_hv = 1;
    long fd = syscall(SYS_perf_event_open, &attr, 0 /* this thread */, -1 /* any CPU */, group_fd,
                      PERF_FLAG_FD_CLOEXEC);
    return fd < 0 ? -1 : (int)fd;
}

/* The LLC event is generic; some PMUs only know the older "cache misses". */
static int open_counter(enum counter_id id, int group_fd)
{
    const struct counter_def *d = &counter_defs[id];
    int fd = perf_open(d->type, d->config, group_fd);
    if (fd < 0 && id == COUNTER_LLC_MISSES) {
        int first_errno = errno;
        fd = perf_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, group_fd);
        if (fd < 0)
            errno = first_errno;
    }
    return fd;
}

static const char *errno_meaning(int err)
{
    switch (err) {
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV:
        return "no hardware PMU (typical of VMs)";
    case EACCES:
    case EPERM:
        return "not permitted (kernel.perf_event_paranoid)";
    default:
        return NULL;
    }
}

static void describe_failure(char *buf, size_t len, enum counter_id id, int err)
{
    char msg_buf[128];
    const char *msg = strerror_r(err, msg_buf, sizeof msg_buf);
    const char *meaning = errno_meaning(err);
    if (meaning)
        snprintf(buf, len, "perf_event_open(%s): %s \xe2\x80\x94 %s", counter_name(id), msg,
                 meaning);
    else
        snprintf(buf, len, "perf_event_open(%s): %s", counter_name(id), msg);
}

/* Opens the events of `mask` that belong to one group, leader first. Returns
 * 0, or -1 with *failed_id and *failed_errno when the leader did not open. */
static int open_group(uint32_t mask, bool hardware, int *fds, enum counter_id *ids, int *count,
                      uint32_t *open_mask, enum counter_id *failed_id, int *failed_errno)
{
    *count = 0;
    for (int id = 0; id < COUNTER_COUNT; id++) {
        if (!(mask & (1u << id)) || counter_defs[id].hardware != hardware)
            continue;
        int fd = open_counter((enum counter_id)id, *count ? fds[0] : -1);
        if (fd < 0) {
            if (*count == 0) {
                *failed_id = (enum counter_id)id;
                *failed_errno = errno;
                return -1;
            }
            continue; /* a member the PMU lacks: count the rest */
        }
        fds[*count] = fd;
        ids[*count] = (enum counter_id)id;
        (*count)++;
        *open_mask |= 1u << id;
    }
    return 0;
}

int counters_open(struct counter_set *cs, uint32_t mask, char *err, size_t errlen)
{
    memset(cs, 0, sizeof *cs);
    for (int i = 0; i < 3; i++)
        cs->hw_fd[i] = cs->sw_fd[i] = -1;
    cs->mask = mask & COUNTERS_ALL_MASK;

    enum counter_id failed_id = COUNTER_CYCLES;
    int failed_errno = 0;
    if (cs->mask & COUNTERS_HARDWARE_MASK) {
        if (open_group(cs->mask, true, cs->hw_fd, cs->hw_ids, &cs->hw_count, &cs->open_mask,
                       &failed_id, &failed_errno) == 0)
            cs->hw_available = true;
        else
            describe_failure(cs->hw_reason, sizeof cs->hw_reason, failed_id, failed_errno);
    }
    if (cs->mask & COUNTERS_SOFTWARE_MASK) {
        if (open_group(cs->mask, false, cs->sw_fd, cs->sw_ids, &cs->sw_count, &cs->open_mask,
                       &failed_id, &failed_errno) != 0) {
            describe_failure(err, errlen, failed_id, failed_errno);
            counters_close(cs);
            return -1;
        }
    }
    return 0;
}

/* One group read: { nr, value[nr] } in the order the events were opened. */
static int read_group(const int *fds, const enum counter_id *ids, int count,
                      uint64_t values[COUNTER_COUNT])
{
    if (count == 0)
        return 0;
    uint64_t buf[1 + 3];
    ssize_t got;
    do {
        got = read(fds[0], buf, sizeof buf);
    } while (got < 0 && errno == EINTR);
    if (got < (ssize_t)sizeof(uint64_t) || buf[0] != (uint64_t)count ||
        got < (ssize_t)(sizeof(uint64_t) * (size_t)(1 + count)))
        return -1;
    for (int i = 0; i < count; i++)
        values[ids[i]] = buf[1 + i];
    return 0;
}

int counters_read(const struct counter_set *cs, uint64_t values[COUNTER_COUNT])
{
    int rc = read_group(cs->hw_fd, cs->hw_ids, cs->hw_count, values);
    if (read_group(cs->sw_fd, cs->sw_ids, cs->sw_count, values) != 0)
        rc = -1;
    return rc;
}

void counters_close(struct counter_set *cs)
{
    for (int i = 0; i < cs->hw_count; i++)
        close(cs->hw_fd[i]);
    for (int i = 0; i < cs->sw_count; i++)
        close(cs->sw_fd[i]);
    for (int i = 0; i < 3; i++)
        cs->hw_fd[i] = cs->sw_fd[i] = -1;
    cs->hw_count = cs->sw_count = 0;
    cs->open_mask = 0;
    cs->hw_available = false;
}
