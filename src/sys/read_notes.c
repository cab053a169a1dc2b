/*
 * The three-way reads behind `jitterlab inspect` (value, unknown, unreadable)
 * and the list of unreadable files they collect. Missing files are normal (an
 * older kernel, a VM, no root), so they only make a value unknown; a file that
 * exists but holds something the kernel never writes there gets a note with
 * its path and a short quote, and the value stays unknown.
 */
#include "sys/read_notes.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void read_notes_add(struct read_notes *notes, const char *path, const char *reason)
{
    if (!notes)
        return;
    for (int i = 0; i < notes->count; i++)
        if (strcmp(notes->note[i].path, path) == 0)
            return; /* one note per file */
    if (notes->count >= READ_NOTES_MAX) {
        notes->dropped++;
        return;
    }
    struct read_note *n = &notes->note[notes->count++];
    snprintf(n->path, sizeof n->path, "%s", path);
    snprintf(n->reason, sizeof n->reason, "%s", reason);
}

/* "not a number: 'abc'" with the quote cut short and made printable. */
static void quote_reason(char *buf, size_t len, const char *what, const char *text)
{
    char quoted[48];
    size_t n = 0;
    for (const char *p = text; *p && n < sizeof quoted - 4; p++)
        quoted[n++] = isprint((unsigned char)*p) ? *p : '?';
    quoted[n] = '\0';
    snprintf(buf, len, "%s: '%s%s'", what, quoted, strlen(text) > n ? "..." : "");
}

enum read_status read_int_noted(const struct sysroot *sr, const char *path, int64_t *out,
                                struct read_notes *notes)
{
    *out = VALUE_UNKNOWN;
    int64_t value;
    int rc = sysroot_read_int64(sr, path, &value);
    if (rc == 0) {
        *out = value;
        return READ_OK;
    }
    if (rc != -EINVAL && rc != -ERANGE)
        return READ_ABSENT;
    char text[128], reason[160];
    sysroot_read_string(sr, path, text, sizeof text);
    quote_reason(reason, sizeof reason, "not a number", text);
    read_notes_add(notes, path, reason);
    return READ_GARBAGE;
}

enum read_status read_text(const struct sysroot *sr, const char *path, char *buf, size_t len)
{
    if (sysroot_read_string(sr, path, buf, len) < 0) {
        buf[0] = '\0';
        return READ_ABSENT;
    }
    size_t n = strlen(buf);
    while (n > 0 && isspace((unsigned char)buf[n - 1]))
        buf[--n] = '\0';
    return READ_OK;
}

enum read_status read_cpulist_noted(const struct sysroot *sr, const char *path, char *buf,
                                    size_t len, struct cpulist *out, struct read_notes *notes)
{
    out->count = 0;
    if (read_text(sr, path, buf, len) != READ_OK)
        return READ_ABSENT;
    /* A list that filled buf (a big machine's "0,2,4,...") is parsed from the
     * whole file: the cut copy would fail ("153-15") or name other CPUs. */
    char *whole = NULL;
    if (strlen(buf) + 1 >= len && sysroot_read_value(sr, path, &whole) < 0)
        whole = NULL;
    const char *text = whole ? whole : buf;
    const char *why = NULL;
    enum read_status status = READ_OK;
    if (cpulist_parse(text, out, &why) != 0) {
        char reason[160];
        quote_reason(reason, sizeof reason, "not a CPU list", text);
        read_notes_add(notes, path, reason);
        buf[0] = '\0';
        status = READ_GARBAGE;
    } else if (whole) {
        cpulist_text_shorten(buf, len, whole);
    }
    free(whole);
    return status;
}
