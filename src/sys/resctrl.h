/*
 * The kernel's resource control filesystem (resctrl: Intel RDT cache
 * allocation, AMD L3 QoS) as inspect and tune need it: whether the CPU and
 * the kernel support it, whether it is mounted, the L3 allocation limits
 * (info/L3: cbm_mask, min_cbm_bits, num_closids, shareable_bits), memory
 * bandwidth allocation (info/MB), and every control group with its CPUs,
 * mode and per-domain L3 mask (schemata "L3:0=ff0;1=ff0", one entry per L3
 * instance). All reads go through the sysroot; files are untrusted.
 */
#ifndef JITTERLAB_SYS_RESCTRL_H
#define JITTERLAB_SYS_RESCTRL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sys/cpulist.h"
#include "sys/read_notes.h"
#include "sys/sysroot.h"

#define RESCTRL_ROOT        "/sys/fs/resctrl"
#define RESCTRL_MAX_GROUPS  64 /* hardware has at most 16 CLOSIDs on today's parts */
#define RESCTRL_MAX_DOMAINS 64 /* L3 instances */

struct resctrl_domain {
    int id;        /* the L3 cache id (cpuN/cache/index3/id) */
    uint64_t mask; /* capacity bit mask: one bit per way group */
    int mb;        /* MB: percent (Intel) or the AMD bandwidth unit; -1 when absent */
};

struct resctrl_group {
    char name[64];       /* "" for the default group (the root directory) */
    char cpus_list[512]; /* its cpus_list, kernel list form ("" = none) */
    char mode[24];       /* shareable, exclusive, pseudo-locksetup, pseudo-locked */
    int ndomains;
    struct resctrl_domain domain[RESCTRL_MAX_DOMAINS];
    bool l3_read; /* its schemata had an L3 line */
};

struct resctrl_info {
    /* /proc/cpuinfo flags */
    bool cat_l3, cat_l2, cdp_l3, mba, rdt_a;
    bool cpu_supported;    /* cat_l3 (Intel and AMD list it) or rdt_a with cat_l2 */
    bool kernel_supported; /* "resctrl" in /proc/filesystems */
    bool mounted;          /* a resctrl mount in /proc/mounts, or info/ exists */
    /* info/L3, when mounted */
    bool l3_info;
    uint64_t cbm_mask; /* every way: e.g. 0xfff for 12 */
    int cbm_bits;      /* popcount of cbm_mask */
    int min_cbm_bits;
    int num_closids;
    uint64_t shareable_bits; /* ways other agents (GPU, I/O) may use too */
    bool l2_info;            /* info/L2: L2 allocation too (its masks count for exclusive mode) */
    /* info/MB */
    bool mb_info;
    int mb_min_bandwidth, mb_gran;
    int ngroups; /* group[0] is the default group when mounted */
    struct resctrl_group group[RESCTRL_MAX_GROUPS];
    char why_unsupported[200]; /* "" when cpu_supported and kernel_supported */
};

/* Reads everything; a missing file leaves its part unknown, garbage is
 * noted. Never fails (out is large: a few hundred KiB; callers allocate). */
void resctrl_read(const struct sysroot *sr, struct resctrl_info *out, struct read_notes *notes);

/* Parses one schemata text into g's domains (L3 masks, MB values). 0, or -1
 * with why for a line that is not what the kernel writes. */
int resctrl_parse_schemata(const char *text, struct resctrl_group *g, const char **why);

/* "L3:0=e00;1=e00": the L3 line of a schemata, one entry per domain of g,
 * with g's own masks, or mask[i] for domain i when mask is not NULL.
 * Returns the length written (cut at len). */
size_t resctrl_format_l3(const struct resctrl_group *g, const uint64_t *mask, char *buf,
                         size_t len);

/* The group with that name ("" = default), or NULL. */
const struct resctrl_group *resctrl_group_find(const struct resctrl_info *r, const char *name);

/* The non-default group holding every CPU of cpus, or NULL (some are in
 * the default group, or they are split over groups). */
const struct resctrl_group *resctrl_group_of(const struct resctrl_info *r,
                                             const struct cpulist *cpus);

/* Whether mask is one contiguous run of set bits (Intel requires it). */
bool resctrl_mask_contiguous(uint64_t mask);

#endif
