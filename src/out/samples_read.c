/*
 * The samples file reader (samples_read.h). Line by line through a fixed
 * buffer, so that a line without an end costs nothing; each field is a
 * plain decimal integer (no sign, no blanks) checked for range before it
 * lands. A CPU's array grows by doubling up to the rows the result
 * announced for it, so that a file longer than its result is refused at the
 * first row too many, not after memory ran out.
 */
#include "out/samples_read.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/read_file.h"
#include "common/units.h"
#include "sys/cpulist.h"

#define HEADER "cpu,t_ns,latency_ns"

/* The columns run writes after the first three, with a workload and with
 * counters: read over, not kept. */
static const char *const extra_columns[] = {
    "",
    ",exec_ns,response_ns",
    ",llc_misses,ipc,context_switches",
    ",exec_ns,response_ns,llc_misses,ipc,context_switches",
};

/* The extra fields of the header line, or -1 when it is not a samples
 * file's header. */
static int header_extras(const char *line)
{
    if (strncmp(line, HEADER, strlen(HEADER)) != 0)
        return -1;
    line += strlen(HEADER);
    for (size_t i = 0; i < sizeof extra_columns / sizeof extra_columns[0]; i++)
        if (strcmp(line, extra_columns[i]) == 0) {
            int commas = 0;
            for (const char *c = extra_columns[i]; *c; c++)
                commas += *c == ',';
            return commas;
        }
    return -1;
}

/* The extra fields of a row: extras of numbers, possibly empty (a
 * counter that was not read), each a sign, digits and a point. */
static int skip_extras(const char *s, int extras, char *why, size_t len)
{
    for (int k = 0; k < extras; k++) {
        if (*s++ != ',') {
            snprintf(why, len, "fewer fields than the header's");
            return -1;
        }
        while (*s == '-' || *s == '.' || (*s >= '0' && *s <= '9'))
            s++;
    }
    if (*s) {
        snprintf(why, len, "%s", *s == ',' ? "more fields than the header's" : "not a number");
        return -1;
    }
    return 0;
}

void samples_data_free(struct samples_data *d)
{
    for (size_t i = 0; i < d->ncpus; i++)
        free(d->cpus[i].latency_ns);
    free(d->cpus);
    memset(d, 0, sizeof *d);
}

int samples_data_init(struct samples_data *d, const int *cpus, const uint64_t *expected, size_t n,
                      uint64_t max_rows, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    d->cpus = n ? calloc(n, sizeof *d->cpus) : NULL;
    if (n && !d->cpus) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    d->ncpus = n;
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (cpus[i] < 0 || cpus[i] >= CPULIST_MAX_CPUS) {
            snprintf(err, errlen, "CPU %d is not a CPU id", cpus[i]);
            goto refused;
        }
        for (size_t k = 0; k < i; k++)
            if (cpus[k] == cpus[i]) {
                snprintf(err, errlen, "CPU %d given twice", cpus[i]);
                goto refused;
            }
        d->cpus[i].cpu = cpus[i];
        d->cpus[i].expected = expected[i];
        d->cpus[i].last_t_ns = -1;
        if (expected[i] != SAMPLES_ANY_ROWS) {
            total += expected[i] < max_rows ? expected[i] : max_rows;
            if (expected[i] > max_rows || total > max_rows) {
                snprintf(err, errlen,
                         "the result holds more than %llu samples, the most this reader takes",
                         (unsigned long long)max_rows);
                goto refused;
            }
        }
    }
    return 0;
refused:
    samples_data_free(d);
    return -1;
}

/* A field of the line: decimal digits up to the next comma (last: the end
 * of the line, or a comma when more fields follow), at most max. 0, or -1 with why. */
static int field(const char **s, bool last, bool more, int64_t max, const char *name, int64_t *out,
                 char *why, size_t len)
{
    const char *p = *s;
    if (*p == '-') {
        snprintf(why, len, "%s: negative", name);
        return -1;
    }
    if (*p < '0' || *p > '9') {
        snprintf(why, len, "%s: not a number", name);
        return -1;
    }
    int64_t v = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        int d = *p - '0';
        if (v > (max - d) / 10) {
            snprintf(why, len, "%s: more than %lld", name, (long long)max);
            return -1;
        }
        v = v * 10 + d;
    }
    if (last && !more ? *p != '\0' : *p != ',') {
        snprintf(why, len, "%s: %s", name,
                 last && !more ? "not a number, or more fields than the header's"
                               : "not a number, or fewer fields than the header's");
        return -1;
    }
    *s = last ? p : p + 1;
    *out = v;
    return 0;
}

static struct samples_cpu *cpu_of(struct samples_data *d, int64_t cpu)
{
    for (size_t i = 0; i < d->ncpus; i++)
        if (d->cpus[i].cpu == cpu)
            return &d->cpus[i];
    return NULL;
}

/* Room for one more latency of c, within what its result announced. */
static int grow(struct samples_cpu *c, uint64_t max_rows)
{
    if (c->n < c->cap)
        return 0;
    uint64_t limit = c->expected != SAMPLES_ANY_ROWS ? c->expected : max_rows;
    uint64_t cap = c->cap ? (uint64_t)c->cap * 2 : 1024;
    if (cap > limit)
        cap = limit;
    if (cap <= c->n || cap > SIZE_MAX / sizeof *c->latency_ns)
        return -1;
    int64_t *a = realloc(c->latency_ns, (size_t)cap * sizeof *a);
    if (!a)
        return -1;
    c->latency_ns = a;
    c->cap = (size_t)cap;
    return 0;
}

/* One data line (without its newline) into d. */
static int read_row(struct samples_data *d, const char *line, int extras, uint64_t max_rows,
                    char *why, size_t len)
{
    int64_t cpu, t_ns, lat_ns;
    const char *s = line;
    if (field(&s, false, false, CPULIST_MAX_CPUS - 1, "cpu", &cpu, why, len) != 0 ||
        field(&s, false, false, DURATION_MAX_NS, "t_ns", &t_ns, why, len) != 0 ||
        field(&s, true, extras > 0, DURATION_MAX_NS, "latency_ns", &lat_ns, why, len) != 0 ||
        skip_extras(s, extras, why, len) != 0)
        return -1;
    struct samples_cpu *c = cpu_of(d, cpu);
    if (!c) {
        snprintf(why, len, "CPU %lld is not a CPU of the result", (long long)cpu);
        return -1;
    }
    if (t_ns < c->last_t_ns) {
        snprintf(why, len, "t_ns %lld: before the previous line of CPU %d (%lld)", (long long)t_ns,
                 c->cpu, (long long)c->last_t_ns);
        return -1;
    }
    if (d->rows >= max_rows) {
        snprintf(why, len, "more than %llu rows, the most this reader takes",
                 (unsigned long long)max_rows);
        return -1;
    }
    if (c->expected != SAMPLES_ANY_ROWS && c->n >= c->expected) {
        snprintf(why, len, "CPU %d has more rows than the %llu samples of the result", c->cpu,
                 (unsigned long long)c->expected);
        return -1;
    }
    if (grow(c, max_rows) != 0) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    c->latency_ns[c->n++] = lat_ns;
    c->last_t_ns = t_ns;
    d->rows++;
    return 0;
}

/* A line into buf without its newline: 1, 0 at the end of the stream, or
 * -1 when it is longer than the buffer holds or holds a NUL byte. */
static int next_line(FILE *f, char *buf, size_t len)
{
    size_t n = 0;
    int ch;
    while ((ch = getc_unlocked(f)) != EOF && ch != '\n') {
        if (n + 1 >= len || ch == '\0')
            return -1;
        buf[n++] = (char)ch;
    }
    buf[n] = '\0';
    return ch == EOF && n == 0 ? 0 : 1;
}

int samples_read_stream(FILE *f, struct samples_data *d, uint64_t max_rows, char *err,
                        size_t errlen)
{
    char buf[SAMPLES_READ_MAX_LINE + 2], why[160];
    uint64_t line = 0;
    int extras = 0;
    for (;;) {
        int got = next_line(f, buf, sizeof buf);
        line++;
        if (got == 0)
            break;
        if (got < 0) {
            snprintf(why, sizeof why, "longer than %d characters, or not text",
                     SAMPLES_READ_MAX_LINE);
            goto refused;
        }
        if (line == 1) {
            if ((extras = header_extras(buf)) < 0) {
                snprintf(why, sizeof why, "not the header \"" HEADER "\" (and run's columns)");
                goto refused;
            }
            continue;
        }
        if (read_row(d, buf, extras, max_rows, why, sizeof why) != 0)
            goto refused;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "%s", strerror(errno ? errno : EIO));
        samples_data_free(d);
        return -1;
    }
    if (line == 1) {
        snprintf(err, errlen, "empty: not a samples file (no header \"" HEADER "\")");
        samples_data_free(d);
        return -1;
    }
    for (size_t i = 0; i < d->ncpus; i++) {
        const struct samples_cpu *c = &d->cpus[i];
        if (c->expected != SAMPLES_ANY_ROWS && c->n != c->expected) {
            snprintf(err, errlen,
                     "CPU %d has %zu rows, the result %llu samples (after its ring drops): "
                     "not the samples file of this result",
                     c->cpu, c->n, (unsigned long long)c->expected);
            samples_data_free(d);
            return -1;
        }
    }
    return 0;
refused:
    snprintf(err, errlen, "line %llu: %s", (unsigned long long)line, why);
    samples_data_free(d);
    return -1;
}

int samples_read_file(const char *path, struct samples_data *d, char *err, size_t errlen)
{
    size_t size = 0;
    FILE *f = open_input_file(path, (size_t)(SAMPLES_READ_MAX_ROWS * (SAMPLES_READ_MAX_LINE + 1)),
                              &size, err, errlen);
    if (!f) {
        samples_data_free(d);
        return -1;
    }
    int rc = samples_read_stream(f, d, SAMPLES_READ_MAX_ROWS, err, errlen);
    fclose(f);
    return rc;
}
