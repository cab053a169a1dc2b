/*
 * Fixture trees for unit tests: tests/fixtures/NAME under the repository
 * root (JL_TOP, set by tests/run.sh; "." otherwise) as a sysroot. A missing
 * fixture fails the test with a message, never a silent empty tree. And
 * whether the test runs under valgrind.
 * Include after <cmocka.h>.
 */
#ifndef JITTERLAB_TEST_FIXTURE_H
#define JITTERLAB_TEST_FIXTURE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sys/sysroot.h"

static inline void fixture_sysroot(struct sysroot *sr, const char *name)
{
    const char *top = getenv("JL_TOP");
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/tests/fixtures/%s", top && *top ? top : ".", name);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        fail_msg("fixture %s not found (set JL_TOP to the repository root)", dir);
    sysroot_init(sr, dir);
}

/* Under valgrind (its preload library is loaded): it has no rdtscp, so
 * tests that read the TSC live use CLOCK_MONOTONIC there or skip. */
static inline bool under_valgrind(void)
{
    const char *preload = getenv("LD_PRELOAD");
    return preload && strstr(preload, "vgpreload");
}

#endif
