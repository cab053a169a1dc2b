/*
 * Parses the per-CPU count tables of procfs (see percpu_table.h). Counts
 * are read column by column up to the first non-number; the header fixes
 * which column is which CPU. Rows grow by doubling, so a snapshot of the
 * same file every second allocates only when the file grows.
 */
#include "sys/percpu_table.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int percpu_table_init(struct percpu_table *t, const struct cpulist *targets)
{
    memset(t, 0, sizeof *t);
    t->target_cpu = malloc((targets->count > 0 ? (size_t)targets->count : 1) * sizeof(int));
    t->target_of_column = malloc(CPULIST_MAX_CPUS * sizeof(int));
    if (!t->target_cpu || !t->target_of_column) {
        percpu_table_free(t);
        return -1;
    }
    memcpy(t->target_cpu, targets->cpu, (size_t)targets->count * sizeof(int));
    t->ntarget = targets->count;
    return 0;
}

void percpu_table_free(struct percpu_table *t)
{
    free(t->target_cpu);
    free(t->target_of_column);
    free(t->row);
    free(t->counts);
    memset(t, 0, sizeof *t);
}

/* For each column of the header, the index of its target CPU (-1: not a
 * target). Returns the number of columns, or -1 when the header names no
 * CPU. At most CPULIST_MAX_CPUS columns are read. */
static int parse_header(const char *line, const char *eol, const struct percpu_table *t,
                        int *target_of_column)
{
    int column = 0;
    const char *p = line;
    while (p + 3 <= eol && column < CPULIST_MAX_CPUS) {
        const char *hit = memmem(p, (size_t)(eol - p), "CPU", 3);
        if (!hit)
            break;
        p = hit + 3;
        if (p >= eol || !isdigit((unsigned char)*p))
            return -1;
        long cpu = 0;
        while (p < eol && isdigit((unsigned char)*p) && cpu <= CPULIST_MAX_CPUS)
            cpu = cpu * 10 + (*p++ - '0');
        target_of_column[column] = -1;
        int lo = 0, hi = t->ntarget - 1;
        while (lo <= hi) {
            int mid = lo + (hi - lo) / 2;
            if (t->target_cpu[mid] == cpu) {
                target_of_column[column] = mid;
                break;
            }
            if (t->target_cpu[mid] < cpu)
                lo = mid + 1;
            else
                hi = mid - 1;
        }
        column++;
    }
    return column > 0 ? column : -1;
}

static int grow(struct percpu_table *t)
{
    int next = t->cap ? t->cap * 2 : 64;
    struct percpu_row *row = realloc(t->row, (size_t)next * sizeof *row);
    if (!row)
        return -1;
    t->row = row;
    size_t per = t->ntarget > 0 ? (size_t)t->ntarget : 1;
    uint64_t *counts = realloc(t->counts, (size_t)next * per * sizeof *counts);
    if (!counts)
        return -1;
    t->counts = counts;
    t->cap = next;
    return 0;
}

/* Copies [p, end) into dst, blanks trimmed at both ends and runs of blanks
 * collapsed to one space (the kernel pads its columns). */
static void copy_collapsed(char *dst, size_t len, const char *p, const char *end)
{
    size_t n = 0;
    for (; p < end && n + 1 < len; p++) {
        bool blank = isspace((unsigned char)*p);
        if (blank && (n == 0 || dst[n - 1] == ' '))
            continue;
        dst[n++] = blank ? ' ' : *p;
    }
    while (n > 0 && dst[n - 1] == ' ')
        n--;
    dst[n] = '\0';
}

static void parse_row(const char *line, const char *colon, const char *eol, int ncolumns,
                      const int *target_of_column, struct percpu_table *t)
{
    struct percpu_row *r = &t->row[t->nrow];
    uint64_t *counts = t->counts + (size_t)t->nrow * (size_t)t->ntarget;
    copy_collapsed(r->id, sizeof r->id, line, colon);
    r->numeric = r->id[0] != '\0';
    for (const char *c = r->id; *c; c++)
        if (!isdigit((unsigned char)*c))
            r->numeric = false;
    for (int i = 0; i < t->ntarget; i++)
        counts[i] = PERCPU_COUNT_UNKNOWN;
    const char *p = colon + 1;
    int col = 0;
    for (; col < ncolumns; col++) {
        while (p < eol && (*p == ' ' || *p == '\t'))
            p++;
        if (p >= eol || !isdigit((unsigned char)*p))
            break;
        uint64_t v = 0;
        bool over = false;
        while (p < eol && isdigit((unsigned char)*p)) {
            unsigned d = (unsigned)(*p++ - '0');
            over |= v > (UINT64_MAX - 1 - d) / 10;
            v = v * 10 + d;
        }
        if (target_of_column[col] >= 0)
            counts[target_of_column[col]] = over ? PERCPU_COUNT_UNKNOWN : v;
    }
    copy_collapsed(r->desc, sizeof r->desc, p, eol);
    /* ERR, MIS: a name, one count, nothing after it */
    r->machine_wide = col == 1 && ncolumns > 1 && !r->numeric && r->desc[0] == '\0';
    if (r->machine_wide && target_of_column[0] >= 0)
        counts[target_of_column[0]] = PERCPU_COUNT_UNKNOWN;
    t->nrow++;
}

int percpu_table_parse(struct percpu_table *t, const char *text, const char **why)
{
    t->nrow = 0;
    int *target_of_column = t->target_of_column;
    int ncolumns = -1, rc = 0;
    for (const char *line = text; line && *line;) {
        const char *eol = strchr(line, '\n');
        if (!eol)
            eol = line + strlen(line);
        if (ncolumns < 0) {
            ncolumns = parse_header(line, eol, t, target_of_column);
            if (ncolumns < 0) {
                *why = "no CPU header line";
                rc = -1;
                break;
            }
        } else {
            const char *colon = memchr(line, ':', (size_t)(eol - line));
            if (colon) {
                if (t->nrow == t->cap && grow(t) != 0) {
                    rc = -2;
                    break;
                }
                parse_row(line, colon, eol, ncolumns, target_of_column, t);
            }
        }
        line = *eol ? eol + 1 : NULL;
    }
    if (rc == 0 && ncolumns < 0) {
        *why = "empty";
        rc = -1;
    }
    return rc;
}

int percpu_table_find(const struct percpu_table *t, const char *id, int hint)
{
    if (hint >= 0 && hint < t->nrow && strcmp(t->row[hint].id, id) == 0)
        return hint;
    for (int r = 0; r < t->nrow; r++)
        if (strcmp(t->row[r].id, id) == 0)
            return r;
    return -1;
}
