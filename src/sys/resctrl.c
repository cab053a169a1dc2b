/*
 * resctrl as inspect and tune see it (sys/resctrl.h). The CPU's support
 * comes from the first "flags" line of /proc/cpuinfo, the kernel's from
 * /proc/filesystems, the mount from /proc/mounts (or the info directory
 * being there). Groups are the root directory (the default group) and
 * every subdirectory but info, mon_groups and mon_data; each has cpus_list,
 * mode and schemata. A schemata line is "RESOURCE:ID=VALUE;ID=VALUE", with
 * leading blanks; L3 values are hex capacity masks, MB values decimal.
 */
#include "sys/resctrl.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool has_word(const char *line, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(line, word); p; p = strstr(p + 1, word)) {
        bool start = p == line || p[-1] == ' ' || p[-1] == '\t' || p[-1] == ':';
        bool end = p[n] == '\0' || p[n] == ' ' || p[n] == '\t' || p[n] == '\n';
        if (start && end)
            return true;
    }
    return false;
}

static void read_cpu_flags(const struct sysroot *sr, struct resctrl_info *out)
{
    struct sysroot_buf b = {0};
    if (sysroot_read_file(sr, "/proc/cpuinfo", &b) >= 0) {
        const char *flags = strstr(b.text, "\nflags");
        if (!flags && strncmp(b.text, "flags", 5) == 0)
            flags = b.text;
        if (flags) {
            const char *eol = strchr(flags + 1, '\n');
            size_t len = eol ? (size_t)(eol - flags) : strlen(flags);
            char *line = malloc(len + 1);
            if (line) {
                memcpy(line, flags, len);
                line[len] = '\0';
                out->cat_l3 = has_word(line, "cat_l3");
                out->cat_l2 = has_word(line, "cat_l2");
                out->cdp_l3 = has_word(line, "cdp_l3");
                out->mba = has_word(line, "mba");
                out->rdt_a = has_word(line, "rdt_a");
                free(line);
            }
        }
    }
    sysroot_buf_free(&b);
    out->cpu_supported = out->cat_l3 || (out->rdt_a && out->cat_l2);
}

static void read_kernel_and_mount(const struct sysroot *sr, struct resctrl_info *out)
{
    struct sysroot_buf b = {0};
    if (sysroot_read_file(sr, "/proc/filesystems", &b) >= 0)
        out->kernel_supported = has_word(b.text, "resctrl");
    if (sysroot_read_file(sr, "/proc/mounts", &b) >= 0) {
        for (const char *l = b.text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
            char dev[64], dir[256], type[32];
            if (sscanf(l, "%63s %255s %31s", dev, dir, type) == 3 && strcmp(type, "resctrl") == 0 &&
                strcmp(dir, RESCTRL_ROOT) == 0)
                out->mounted = true;
        }
    }
    sysroot_buf_free(&b);
    char probe[16];
    if (read_text(sr, RESCTRL_ROOT "/info/last_cmd_status", probe, sizeof probe) == READ_OK ||
        read_text(sr, RESCTRL_ROOT "/info/L3/cbm_mask", probe, sizeof probe) == READ_OK)
        out->mounted = true;
}

/* A hex mask file ("fff"), as the kernel writes it. */
static enum read_status read_hex(const struct sysroot *sr, const char *path, uint64_t *out,
                                 struct read_notes *notes)
{
    char text[32];
    *out = 0;
    if (read_text(sr, path, text, sizeof text) != READ_OK)
        return READ_ABSENT;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 16);
    if (!text[0] || *end || errno || text[0] == '-' || text[0] == '+') {
        read_notes_add(notes, path, "not a hex mask");
        return READ_GARBAGE;
    }
    *out = (uint64_t)v;
    return READ_OK;
}

static int read_small_int(const struct sysroot *sr, const char *path, int64_t max,
                          struct read_notes *notes)
{
    int64_t v;
    if (read_int_noted(sr, path, &v, notes) != READ_OK)
        return -1;
    if (v < 0 || v > max) {
        read_notes_add(notes, path, "out of range");
        return -1;
    }
    return (int)v;
}

static void read_info(const struct sysroot *sr, struct resctrl_info *out, struct read_notes *notes)
{
    if (read_hex(sr, RESCTRL_ROOT "/info/L3/cbm_mask", &out->cbm_mask, notes) == READ_OK &&
        out->cbm_mask != 0) {
        out->l3_info = true;
        out->cbm_bits = __builtin_popcountll(out->cbm_mask);
        out->min_cbm_bits = read_small_int(sr, RESCTRL_ROOT "/info/L3/min_cbm_bits", 64, notes);
        out->num_closids = read_small_int(sr, RESCTRL_ROOT "/info/L3/num_closids", 4096, notes);
        read_hex(sr, RESCTRL_ROOT "/info/L3/shareable_bits", &out->shareable_bits, notes);
        if (out->min_cbm_bits < 0)
            out->min_cbm_bits = 1;
    }
    uint64_t l2_mask = 0;
    out->l2_info =
        read_hex(sr, RESCTRL_ROOT "/info/L2/cbm_mask", &l2_mask, notes) == READ_OK && l2_mask != 0;
    int gran = read_small_int(sr, RESCTRL_ROOT "/info/MB/bandwidth_gran", 100000, notes);
    if (gran >= 0) {
        out->mb_info = true;
        out->mb_gran = gran;
        out->mb_min_bandwidth =
            read_small_int(sr, RESCTRL_ROOT "/info/MB/min_bandwidth", 100000, notes);
    }
}

static struct resctrl_domain *domain_of(struct resctrl_group *g, int id)
{
    for (int i = 0; i < g->ndomains; i++)
        if (g->domain[i].id == id)
            return &g->domain[i];
    if (g->ndomains >= RESCTRL_MAX_DOMAINS)
        return NULL;
    struct resctrl_domain *d = &g->domain[g->ndomains++];
    *d = (struct resctrl_domain){.id = id, .mask = 0, .mb = -1};
    return d;
}

/* One "ID=VALUE;ID=VALUE" list of resource res ("L3" or "MB"). */
static int parse_entries(const char *list, bool l3, struct resctrl_group *g, const char **why)
{
    const char *p = list;
    while (*p) {
        char *end = NULL;
        errno = 0;
        long id = strtol(p, &end, 10);
        if (end == p || *end != '=' || id < 0 || id > 65535 || errno) {
            *why = "a domain entry is not ID=VALUE";
            return -1;
        }
        p = end + 1;
        errno = 0;
        unsigned long long v = strtoull(p, &end, l3 ? 16 : 10);
        if (end == p || errno || *p == '-' || *p == '+' || (*end && *end != ';')) {
            *why = l3 ? "an L3 value is not a hex mask" : "an MB value is not a number";
            return -1;
        }
        struct resctrl_domain *d = domain_of(g, (int)id);
        if (!d) {
            *why = "more L3 domains than this program handles";
            return -1;
        }
        if (l3)
            d->mask = (uint64_t)v;
        else
            d->mb = v > 1000000 ? 1000000 : (int)v;
        p = *end == ';' ? end + 1 : end;
    }
    return 0;
}

int resctrl_parse_schemata(const char *text, struct resctrl_group *g, const char **why)
{
    g->ndomains = 0;
    g->l3_read = false;
    char line[1024];
    for (const char *l = text; *l;) {
        const char *eol = strchr(l, '\n');
        size_t len = eol ? (size_t)(eol - l) : strlen(l);
        if (len >= sizeof line) {
            *why = "a line longer than the kernel writes";
            return -1;
        }
        memcpy(line, l, len);
        line[len] = '\0';
        l += len + (eol ? 1 : 0);
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        size_t n = strlen(s);
        while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
            s[--n] = '\0';
        if (!*s)
            continue;
        char *colon = strchr(s, ':');
        if (!colon) {
            *why = "a line without RESOURCE:";
            return -1;
        }
        *colon = '\0';
        /* with CDP the code and data masks are separate; the data mask is
         * what a cache-thrashing neighbour evicts, so it stands for L3 */
        bool l3 = strcmp(s, "L3") == 0 || strcmp(s, "L3DATA") == 0;
        bool mb = strcmp(s, "MB") == 0;
        if (!l3 && !mb)
            continue; /* L2, L3CODE, SMBA, ...: not used here */
        if (parse_entries(colon + 1, l3, g, why) != 0)
            return -1;
        g->l3_read = g->l3_read || l3;
    }
    return 0;
}

static void read_group(const struct sysroot *sr, const char *name, struct resctrl_group *g,
                       struct read_notes *notes)
{
    char dir[128], path[192];
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", name);
    snprintf(dir, sizeof dir, "%s%s%s", RESCTRL_ROOT, name[0] ? "/" : "", name);
    snprintf(path, sizeof path, "%s/cpus_list", dir);
    read_text(sr, path, g->cpus_list, sizeof g->cpus_list);
    snprintf(path, sizeof path, "%s/mode", dir);
    read_text(sr, path, g->mode, sizeof g->mode);
    snprintf(path, sizeof path, "%s/schemata", dir);
    struct sysroot_buf b = {0};
    if (sysroot_read_file(sr, path, &b) >= 0) {
        const char *why = NULL;
        if (resctrl_parse_schemata(b.text, g, &why) != 0) {
            read_notes_add(notes, path, why);
            g->ndomains = 0;
            g->l3_read = false;
        }
    }
    sysroot_buf_free(&b);
}

static bool plain_group_name(const char *n)
{
    if (!n[0] || strlen(n) >= sizeof((struct resctrl_group *)0)->name || n[0] == '.')
        return false;
    if (strcmp(n, "info") == 0 || strcmp(n, "mon_groups") == 0 || strcmp(n, "mon_data") == 0)
        return false;
    for (const char *c = n; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '-' || *c == '_' || *c == '.'))
            return false;
    return true;
}

static void read_groups(const struct sysroot *sr, struct resctrl_info *out,
                        struct read_notes *notes)
{
    read_group(sr, "", &out->group[0], notes);
    out->ngroups = 1;
    char path[4096 + 64];
    if (sysroot_path(sr, RESCTRL_ROOT, path, sizeof path) != 0)
        return;
    DIR *dir = opendir(path);
    if (!dir)
        return;
    /* readdir order is the file system's: sort by name for stable reports */
    char names[RESCTRL_MAX_GROUPS][64];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL && n < RESCTRL_MAX_GROUPS - 1) {
        if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
            continue;
        if (!plain_group_name(e->d_name))
            continue;
        snprintf(names[n++], sizeof names[0], "%.*s", (int)sizeof names[0] - 1, e->d_name);
    }
    closedir(dir);
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0 && strcmp(names[k - 1], names[k]) > 0; k--) {
            char t[64];
            memcpy(t, names[k], sizeof t);
            memcpy(names[k], names[k - 1], sizeof t);
            memcpy(names[k - 1], t, sizeof t);
        }
    for (int i = 0; i < n; i++) {
        char probe[192], mode[8];
        snprintf(probe, sizeof probe, RESCTRL_ROOT "/%.63s/schemata", names[i]);
        if (read_text(sr, probe, mode, sizeof mode) == READ_ABSENT)
            continue; /* not a control group */
        read_group(sr, names[i], &out->group[out->ngroups++], notes);
    }
}

void resctrl_read(const struct sysroot *sr, struct resctrl_info *out, struct read_notes *notes)
{
    memset(out, 0, sizeof *out);
    out->min_cbm_bits = -1;
    out->num_closids = -1;
    read_cpu_flags(sr, out);
    read_kernel_and_mount(sr, out);
    if (!out->cpu_supported)
        snprintf(out->why_unsupported, sizeof out->why_unsupported,
                 "no cat_l3, nor rdt_a with cat_l2, in the /proc/cpuinfo flags%s",
                 out->mounted ? "" : " (a hypervisor may hide them)");
    else if (!out->kernel_supported && !out->mounted)
        snprintf(out->why_unsupported, sizeof out->why_unsupported,
                 "the kernel has no resctrl file system (/proc/filesystems; "
                 "CONFIG_X86_CPU_RESCTRL)");
    if (!out->mounted)
        return;
    read_info(sr, out, notes);
    read_groups(sr, out, notes);
}

size_t resctrl_format_l3(const struct resctrl_group *g, const uint64_t *mask, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "L3:");
    for (int i = 0; i < g->ndomains && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%d=%llx", i ? ";" : "", g->domain[i].id,
                                 (unsigned long long)(mask ? mask[i] : g->domain[i].mask));
    return used < len ? used : len;
}

const struct resctrl_group *resctrl_group_find(const struct resctrl_info *r, const char *name)
{
    for (int i = 0; i < r->ngroups; i++)
        if (strcmp(r->group[i].name, name) == 0)
            return &r->group[i];
    return NULL;
}

const struct resctrl_group *resctrl_group_of(const struct resctrl_info *r,
                                             const struct cpulist *cpus)
{
    const struct resctrl_group *found = NULL;
    for (int t = 0; t < cpus->count; t++) {
        const struct resctrl_group *g = NULL;
        for (int i = 1; i < r->ngroups && !g; i++)
            if (cpulist_text_contains(r->group[i].cpus_list, cpus->cpu[t]))
                g = &r->group[i];
        if (!g || (found && g != found))
            return NULL;
        found = g;
    }
    return found;
}

bool resctrl_mask_contiguous(uint64_t mask)
{
    if (mask == 0)
        return false;
    uint64_t low = mask >> __builtin_ctzll(mask);
    return (low & (low + 1)) == 0;
}
