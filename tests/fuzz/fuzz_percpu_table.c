/*
 * Fuzz target: the per-CPU table parser of /proc/interrupts and
 * /proc/softirqs (percpu_table_parse in src/sys/percpu_table.c), for
 * target CPUs 0-3 and 1000 (a CPU no ordinary header names). A refused
 * text gives a reason and no rows; in an accepted one every row id and
 * description is terminated within its field, "numeric" means the id is
 * all digits, every count is PERCPU_COUNT_UNKNOWN or a number written in
 * the text, a blank-free id is found in the text and by percpu_table_find
 * (with and without the hint), and a second parse into a table that held
 * other rows gives the same table.
 */
#include "fuzz.h"

#include <ctype.h>

#include "sys/percpu_table.h"

static void check_rows(const struct percpu_table *t, const char *text)
{
    if (t->nrow < 0 || t->nrow > t->cap)
        abort();
    for (int r = 0; r < t->nrow; r++) {
        const struct percpu_row *row = &t->row[r];
        size_t idlen = strnlen(row->id, sizeof row->id);
        if (idlen >= sizeof row->id || strnlen(row->desc, sizeof row->desc) >= sizeof row->desc)
            abort();
        bool digits = idlen > 0;
        bool blank = false;
        for (size_t i = 0; i < idlen; i++) {
            digits &= isdigit((unsigned char)row->id[i]) != 0;
            blank |= isspace((unsigned char)row->id[i]) != 0;
        }
        if (row->numeric != digits)
            abort();
        if (idlen > 0 && !blank && !strstr(text, row->id))
            abort();
        int first = percpu_table_find(t, row->id, -1);
        if (percpu_table_find(t, row->id, r) != r || first < 0 || first > r ||
            strcmp(t->row[first].id, row->id) != 0)
            abort();
        for (int i = 0; i < t->ntarget; i++) {
            uint64_t v = percpu_count(t, r, i);
            if (v == PERCPU_COUNT_UNKNOWN)
                continue;
            char digits_of_v[24];
            snprintf(digits_of_v, sizeof digits_of_v, "%llu", (unsigned long long)v);
            if (!strstr(text, digits_of_v))
                abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct cpulist targets;
    static struct percpu_table t, again;
    if (targets.count == 0) {
        const char *why = NULL;
        if (cpulist_parse("0-3,1000", &targets, &why) != 0 ||
            percpu_table_init(&t, &targets) != 0 || percpu_table_init(&again, &targets) != 0)
            abort();
    }
    char *text = fuzz_cstring(data, size);
    const char *why = NULL;
    int rc = percpu_table_parse(&t, text, &why);
    if (rc == -1 && (!why || t.nrow != 0))
        abort();
    if (rc != 0 && rc != -1)
        abort(); /* -2 is out of memory */
    if (rc == 0)
        check_rows(&t, text);
    why = NULL;
    if (percpu_table_parse(&again, "CPU0 CPU1 CPU2 CPU3\nLOC: 1 2 3 4 x\nERR: 9\n", &why) != 0)
        abort();
    if (percpu_table_parse(&again, text, &why) != rc || again.nrow != t.nrow)
        abort();
    for (int r = 0; rc == 0 && r < t.nrow; r++)
        if (strcmp(again.row[r].id, t.row[r].id) != 0 ||
            strcmp(again.row[r].desc, t.row[r].desc) != 0 ||
            memcmp(&again.counts[(size_t)r * (size_t)t.ntarget],
                   &t.counts[(size_t)r * (size_t)t.ntarget],
                   (size_t)t.ntarget * sizeof t.counts[0]) != 0)
            abort();
    free(text);
    return 0;
}
