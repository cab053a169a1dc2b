/*
 * The load kinds as a list (each kind one row of load_kind.h, stress-ng
 * style; pulse wraps another kind) and the parser of a load's text,
 * "KIND[:ARGS][@CPUS]", into a struct load_spec: what `jitterlab load`
 * and `run --load` take, checked before anything starts.
 */
#include "load/load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "common/units.h"
#include "load/load_kind.h"

/* The first kind is also what pulse runs when it names none. */
static const struct load_kind *const load_kinds[] = {
    &load_kind_cpu,
    &load_kind_cache,
    &load_kind_memory,
    &load_kind_cmd,
};
#define LOAD_KIND_COUNT (sizeof(load_kinds) / sizeof(load_kinds[0]))

/* pulse wraps a kind rather than being one; the lists show it after the
 * first kind, its default. */
static const struct load_kind pulse_row = {
    .usage = "pulse:ON:OFF[:KIND]",
    .help = "KIND (default cpu) busy for ON, idle for OFF, again\nand again (bare numbers: ms), "
            "e.g. pulse:100ms:400ms",
};

/* The rows of the kind lists in order: the kinds with pulse after the first. */
static const struct load_kind *kind_row(size_t i)
{
    if (i == 1)
        return &pulse_row;
    i -= i > 1;
    return i < LOAD_KIND_COUNT ? load_kinds[i] : NULL;
}

void load_kind_names(char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; kind_row(i); i++)
        text_append(buf, len, "%s%s", i ? ", " : "", kind_row(i)->usage);
}

void load_kinds_help(char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; kind_row(i); i++) {
        const char *help = kind_row(i)->help;
        text_append(buf, len, "  %-24s", kind_row(i)->usage);
        for (const char *nl; (nl = strchr(help, '\n')) != NULL; help = nl + 1)
            text_append(buf, len, "%.*s\n%26s", (int)(nl - help), help, "");
        text_append(buf, len, "%s\n", help);
    }
}

const char *load_kind_name(const struct load_spec *spec)
{
    return spec->kind->name;
}

bool load_is_external(const struct load_spec *spec)
{
    return spec->kind->external;
}

/* ---- parsing -------------------------------------------------------------- */

/* Splits "a:b..." at the first ':' into head (copied) and the rest. */
static const char *split_field(const char *text, char *head, size_t len)
{
    const char *colon = strchr(text, ':');
    size_t n = colon ? (size_t)(colon - text) : strlen(text);
    if (n >= len)
        n = len - 1;
    memcpy(head, text, n);
    head[n] = '\0';
    return colon ? colon + 1 : NULL;
}

static int parse_pulse(const char *args, struct load_spec *spec, const char **rest, char *why,
                       size_t whylen)
{
    char on[64], off[64];
    const char *why_dur = NULL;
    const char *after_on = args ? split_field(args, on, sizeof(on)) : NULL;
    if (!after_on) {
        snprintf(why, whylen, "pulse needs ON and OFF durations (e.g. pulse:100ms:400ms)");
        return -1;
    }
    *rest = split_field(after_on, off, sizeof(off));
    if (parse_duration_bounded_ns(on, NS_PER_MS, &spec->on_ns, &why_dur) != 0 ||
        parse_duration_bounded_ns(off, NS_PER_MS, &spec->off_ns, &why_dur) != 0) {
        snprintf(why, whylen, "pulse ON/OFF: %s", why_dur);
        return -1;
    }
    if (spec->on_ns <= 0 || spec->off_ns <= 0) {
        snprintf(why, whylen, "pulse ON and OFF must both be greater than 0");
        return -1;
    }
    return 0;
}

int load_parse(const char *text, const struct sysroot *sr, bool with_cpus, struct load_spec *out,
               char *why, size_t whylen)
{
    memset(out, 0, sizeof(*out));
    if (strlen(text) >= sizeof(out->text)) {
        snprintf(why, whylen, "load description too long");
        return -1;
    }
    snprintf(out->text, sizeof(out->text), "%s", text);
    if (with_cpus) {
        char *at = strrchr(out->text, '@');
        if (at) {
            const char *cpu_why = "empty CPU list";
            if (cpulist_parse(at + 1, &out->cpus, &cpu_why) != 0 || out->cpus.count == 0) {
                snprintf(why, whylen, "@%s: %s", at + 1, cpu_why);
                return -1;
            }
            out->cpus_given = true;
            *at = '\0';
        }
    }
    const char *rest = out->text;
    if (strncmp(out->text, "pulse:", 6) == 0 || strcmp(out->text, "pulse") == 0) {
        const char *inner = NULL;
        if (parse_pulse(out->text[5] ? out->text + 6 : NULL, out, &inner, why, whylen) != 0)
            return -1;
        rest = inner && *inner ? inner : load_kinds[0]->name;
    }
    char name[32];
    const char *args = split_field(rest, name, sizeof(name));
    for (size_t i = 0; i < LOAD_KIND_COUNT; i++) {
        if (strcmp(load_kinds[i]->name, name) != 0)
            continue;
        out->kind = load_kinds[i];
        const char *kind_why = NULL;
        if (out->kind->parse(args, sr, out, &kind_why) != 0) {
            snprintf(why, whylen, "%s", kind_why);
            return -1;
        }
        return 0;
    }
    char names[256];
    load_kind_names(names, sizeof(names));
    snprintf(why, whylen, "unknown load kind '%s' (use %s)", name, names);
    return -1;
}
