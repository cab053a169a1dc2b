/*
 * CPU lists in the kernel's text form ("0-3,6,8-11"), as sysfs prints them
 * (online, isolated, nohz_full) and as users type them (--cpus). Parsing goes
 * through a bitmap, so duplicates and overlapping ranges merge for free and the
 * result comes out sorted; the list itself is a sorted array because callers
 * iterate over it far more often than they edit it. Blanks are allowed around
 * the whole list (sysfs adds a newline) but not inside it.
 */
#include "sys/cpulist.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define STR_(x) #x
#define STR(x)  STR_(x)

static int fail(struct cpulist *out, const char **why, const char *reason)
{
    out->count = 0;
    if (why)
        *why = reason;
    return -1;
}

/* Reads one CPU number at *p. Returns 0, -1 when there is no digit, -2 when
 * the number is too large. */
static int read_cpu(const char **p, int *cpu)
{
    const char *s = *p;
    long value = 0;
    if (!isdigit((unsigned char)*s))
        return -1;
    while (isdigit((unsigned char)*s)) {
        if (value < CPULIST_MAX_CPUS)
            value = value * 10 + (*s - '0');
        s++;
    }
    *p = s;
    if (value >= CPULIST_MAX_CPUS)
        return -2;
    *cpu = (int)value;
    return 0;
}

int cpulist_parse(const char *text, struct cpulist *out, const char **why)
{
    static const char *const too_large = "CPU number too large (limit " STR(CPULIST_MAX_CPUS) ")";
    uint64_t bits[CPULIST_MAX_CPUS / 64] = {0};

    out->count = 0;
    if (!text)
        return 0;
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    const char *end = p + strlen(p);
    while (end > p && isspace((unsigned char)end[-1]))
        end--;
    if (p == end)
        return 0;

    for (;;) {
        int first, last, rc;
        rc = read_cpu(&p, &first);
        if (rc == -2)
            return fail(out, why, too_large);
        if (rc != 0)
            return fail(out, why, "malformed CPU list (expected a CPU number, e.g. 0-3,6)");
        last = first;
        if (*p == '-') {
            p++;
            rc = read_cpu(&p, &last);
            if (rc == -2)
                return fail(out, why, too_large);
            if (rc != 0)
                return fail(out, why, "malformed CPU list (range without an end, e.g. 0-3)");
            if (last < first)
                return fail(out, why, "malformed CPU list (descending range; write e.g. 1-3)");
        }
        for (int cpu = first; cpu <= last; cpu++)
            bits[cpu / 64] |= UINT64_C(1) << (cpu % 64);
        if (p == end)
            break;
        if (*p != ',')
            return fail(out, why, "malformed CPU list (unexpected character)");
        p++;
    }

    for (int cpu = 0; cpu < CPULIST_MAX_CPUS; cpu++) {
        if (bits[cpu / 64] & (UINT64_C(1) << (cpu % 64)))
            out->cpu[out->count++] = cpu;
    }
    return 0;
}

int cpulist_format(const struct cpulist *l, char *buf, size_t len)
{
    if (!buf || len == 0)
        return -1;
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < l->count;) {
        int j = i;
        while (j + 1 < l->count && l->cpu[j + 1] == l->cpu[j] + 1)
            j++;
        const char *sep = i == 0 ? "" : ",";
        int n = j == i ? snprintf(buf + used, len - used, "%s%d", sep, l->cpu[i])
                       : snprintf(buf + used, len - used, "%s%d-%d", sep, l->cpu[i], l->cpu[j]);
        if (n < 0 || (size_t)n >= len - used) {
            buf[0] = '\0';
            return -1;
        }
        used += (size_t)n;
        i = j + 1;
    }
    return 0;
}

/* Index of the first element >= cpu. */
static int lower_bound(const struct cpulist *l, int cpu)
{
    int lo = 0, hi = l->count;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (l->cpu[mid] < cpu)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void cpulist_text_shorten(char *buf, size_t len, const char *text)
{
    size_t n = strlen(text);
    if (n < len) {
        memcpy(buf, text, n + 1);
        return;
    }
    size_t keep = len > 5 ? len - 5 : 0;
    while (keep > 0 && text[keep] != ',')
        keep--;
    snprintf(buf, len, "%.*s%s", (int)keep, text, keep > 0 ? ",..." : "...");
}

bool cpulist_contains(const struct cpulist *l, int cpu)
{
    int i = lower_bound(l, cpu);
    return i < l->count && l->cpu[i] == cpu;
}

/* CPUs outside [0, CPULIST_MAX_CPUS) cannot be represented and are ignored,
 * as is a CPU already present. */
void cpulist_add(struct cpulist *l, int cpu)
{
    if (cpu < 0 || cpu >= CPULIST_MAX_CPUS || l->count >= CPULIST_MAX_CPUS)
        return;
    int i = lower_bound(l, cpu);
    if (i < l->count && l->cpu[i] == cpu)
        return;
    memmove(&l->cpu[i + 1], &l->cpu[i], (size_t)(l->count - i) * sizeof l->cpu[0]);
    l->cpu[i] = cpu;
    l->count++;
}

/* A merge walk over two sorted lists. out may be the same list as a (it is
 * written no faster than a is read), but not b. */
void cpulist_subtract(const struct cpulist *a, const struct cpulist *b, struct cpulist *out)
{
    int i = 0, j = 0, k = 0;
    int a_count = a->count;
    while (i < a_count) {
        while (j < b->count && b->cpu[j] < a->cpu[i])
            j++;
        if (j < b->count && b->cpu[j] == a->cpu[i]) {
            i++;
            continue;
        }
        out->cpu[k++] = a->cpu[i++];
    }
    out->count = k;
}

bool cpulist_text_contains(const char *text, int cpu)
{
    const char *p = text;
    if (!p)
        return false;
    while (isspace((unsigned char)*p))
        p++;
    while (*p && !isspace((unsigned char)*p)) {
        int first, last;
        if (read_cpu(&p, &first) != 0)
            return false;
        last = first;
        if (*p == '-') {
            p++;
            if (read_cpu(&p, &last) != 0)
                return false;
        }
        if (cpu >= first && cpu <= last)
            return true;
        if (*p != ',')
            break;
        p++;
    }
    return false;
}
