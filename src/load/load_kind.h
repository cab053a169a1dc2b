/*
 * One entry per load kind (load_cpu.c, load_cache.c, load_memory.c,
 * load_cmd.c); load.c lists them. A new kind is one file and one line in
 * that list; the kind list of error messages and of `jitterlab load --help`
 * is generated from the entries' usage and help. Thread kinds prepare per-thread state before the
 * first ON phase and burn until a deadline; an external kind (cmd) is a process that the runner
 * starts and kills.
 */
#ifndef JITTERLAB_LOAD_LOAD_KIND_H
#define JITTERLAB_LOAD_LOAD_KIND_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/clock.h"
#include "load/load.h"

struct load_kind {
    const char *name;
    const char *usage; /* e.g. "cache[:SIZE]" */
    const char *help;  /* what it does, for `jitterlab load --help`; "\n" breaks lines */
    /* args: what follows "name:", NULL when nothing does. */
    int (*parse)(const char *args, const struct sysroot *sr, struct load_spec *spec,
                 const char **why);
    /* thread kinds */
    void *(*prepare)(const struct load_spec *spec); /* NULL: out of memory */
    void (*burn)(void *state, int64_t until_ns, const _Atomic bool *stop);
    void (*release)(void *state);
    /* external kinds: the command is run with /bin/sh -c */
    bool external;
};

extern const struct load_kind load_kind_cpu;
extern const struct load_kind load_kind_cache;
extern const struct load_kind load_kind_memory;
extern const struct load_kind load_kind_cmd;

#endif
