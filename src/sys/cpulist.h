/*
 * CPU lists as the kernel prints them ("0-3,6,8-11"): parse, format, test
 * membership. A list is kept sorted and without duplicates.
 */
#ifndef JITTERLAB_SYS_CPULIST_H
#define JITTERLAB_SYS_CPULIST_H

#include <stdbool.h>
#include <stddef.h>

#define CPULIST_MAX_CPUS 4096

struct cpulist {
    int count;
    int cpu[CPULIST_MAX_CPUS]; /* ascending, unique */
};

/* Parses "0-3,6". Empty text (or only whitespace/newline) gives an empty list.
 * Rejects malformed text, descending ranges, CPUs >= CPULIST_MAX_CPUS. */
int cpulist_parse(const char *text, struct cpulist *out, const char **why);
/* Formats in the kernel's compact form; "" for an empty list. Returns 0 or -1
 * if buf is too small. */
int cpulist_format(const struct cpulist *l, char *buf, size_t len);
/* A list's text cut to len for people: after the last whole element that
 * leaves room for ",...", never inside a number (a cut "152,15" would
 * name CPU 15); the whole text when it fits. */
void cpulist_text_shorten(char *buf, size_t len, const char *text);
bool cpulist_contains(const struct cpulist *l, int cpu);
void cpulist_add(struct cpulist *l, int cpu);
/* True when the kernel-form list text ("0-3,6") names cpu; false for text
 * that does not parse. Needs no struct cpulist (which is large). */
bool cpulist_text_contains(const char *text, int cpu);
/* out = a minus b */
void cpulist_subtract(const struct cpulist *a, const struct cpulist *b, struct cpulist *out);

#endif
