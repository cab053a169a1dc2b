/*
 * Finds and reads temperature and energy sensors (see sensors.h). The
 * directories of /sys/class are walked by name (hwmonN, thermal_zoneN,
 * intel-rapl:N); their entries are symlinks into /sys/devices, which a
 * read may follow. A sensor whose file holds garbage keeps ok = false.
 */
#include "sys/sensors.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"

/* hwmon2 before hwmon10 */
static int compare_names(const void *a, const void *b)
{
    return strverscmp(a, b);
}

/* Calls fn for every entry of the class directory whose name starts with
 * prefix followed by what accept_rest accepts. */
static void each_entry(const struct sysroot *sr, const char *dir, const char *prefix,
                       bool (*accept_rest)(const char *),
                       void (*fn)(const struct sysroot *, const char *, struct sensors *,
                                  struct read_notes *),
                       struct sensors *s, struct read_notes *notes)
{
    char path[4096 + 64];
    if (sysroot_path(sr, dir, path, sizeof path) != 0)
        return;
    DIR *d = opendir(path);
    if (!d)
        return;
    /* Sorted, so that the order (and the package index of sensors without
     * one) does not depend on the directory's. */
    char(*names)[64] = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t plen = strlen(prefix);
        if (strncmp(e->d_name, prefix, plen) != 0 || !accept_rest(e->d_name + plen) ||
            strlen(e->d_name) >= 64)
            continue;
        if (n == cap) {
            size_t next = cap ? 2 * cap : 16;
            char(*grown)[64] = realloc(names, next * sizeof *names);
            if (!grown)
                break;
            names = grown;
            cap = next;
        }
        text_copy(names[n++], 64, e->d_name); /* shorter than 64: checked above */
    }
    closedir(d);
    if (n > 1)
        qsort(names, n, sizeof *names, compare_names);
    for (size_t i = 0; i < n; i++) {
        char sub[256];
        snprintf(sub, sizeof sub, "%s/%s", dir, names[i]);
        fn(sr, sub, s, notes);
    }
    free(names);
}

static bool all_digits(const char *p)
{
    if (!*p)
        return false;
    for (; *p; p++)
        if (!isdigit((unsigned char)*p))
            return false;
    return true;
}

/* "N" of a top-level RAPL domain "intel-rapl:N" (not "N:M"). */
static bool rapl_top_level(const char *p)
{
    return all_digits(p);
}

static void read_temp(const struct sysroot *sr, struct sensor_temp *t, struct read_notes *notes)
{
    t->ok = read_int_noted(sr, t->path, &t->milli_c, notes) == READ_OK;
}

/* Room for one more of n entries of size bytes in *arr (capacity *cap, at
 * most max): 0, or -1. */
static int room(void **arr, int *cap, int n, int max, size_t size)
{
    if (n < *cap)
        return 0;
    if (n >= max)
        return -1;
    int next = *cap ? 2 * *cap : 8;
    if (next > max)
        next = max;
    void *grown = realloc(*arr, (size_t)next * size);
    if (!grown)
        return -1;
    *arr = grown;
    *cap = next;
    return 0;
}

static struct sensor_temp *add_temp(struct sensors *s, const char *source, const char *path,
                                    int package, int core)
{
    if (strlen(path) >= sizeof s->temp[0].path ||
        room((void **)&s->temp, &s->cap_temp, s->ntemp, SENSORS_MAX_TEMPS, sizeof *s->temp) != 0)
        return NULL;
    struct sensor_temp *t = &s->temp[s->ntemp++];
    memset(t, 0, sizeof *t);
    snprintf(t->source, sizeof t->source, "%s", source);
    snprintf(t->path, sizeof t->path, "%s", path);
    t->package = package;
    t->core = core;
    return t;
}

static void hwmon_device(const struct sysroot *sr, const char *dir, struct sensors *s,
                         struct read_notes *notes)
{
    char path[320], name[64], label[64];
    snprintf(path, sizeof path, "%s/name", dir);
    if (read_text(sr, path, name, sizeof name) != READ_OK)
        return;
    bool coretemp = strcmp(name, "coretemp") == 0;
    bool amd = strcmp(name, "k10temp") == 0 || strcmp(name, "zenpower") == 0;
    if (!coretemp && !amd)
        return;
    /* coretemp: the package id is in the "Package id P" label. */
    int package = -1;
    int first = s->ntemp;
    for (int k = 1; k <= 256; k++) {
        snprintf(path, sizeof path, "%s/temp%d_label", dir, k);
        if (read_text(sr, path, label, sizeof label) != READ_OK)
            continue;
        char input[320];
        snprintf(input, sizeof input, "%s/temp%d_input", dir, k);
        int id;
        char tail;
        if (coretemp && sscanf(label, "Package id %d%c", &id, &tail) == 1 && id >= 0) {
            package = id;
            add_temp(s, name, input, id, -1);
        } else if (coretemp && sscanf(label, "Core %d%c", &id, &tail) == 1 && id >= 0) {
            add_temp(s, name, input, -1, id);
        } else if (amd && (strcmp(label, "Tctl") == 0 || strcmp(label, "Tdie") == 0)) {
            /* Tdie is the real die temperature; Tctl may carry an offset.
             * Keep one per device: Tdie when there is one. */
            struct sensor_temp *prev = s->ntemp > first ? &s->temp[s->ntemp - 1] : NULL;
            if (prev && strcmp(label, "Tdie") == 0)
                snprintf(prev->path, sizeof prev->path, "%s", input);
            else if (!prev)
                add_temp(s, name, input, -2, -1); /* package fixed below */
        } else if (coretemp) {
            read_notes_add(notes, path, "not a coretemp label");
        }
    }
    if (amd) {
        /* k10temp and zenpower have one device per socket and no package
         * label: devices are taken in order, one package index each. */
        package = 0;
        for (int i = 0; i < first; i++)
            if (strcmp(s->temp[i].source, "coretemp") != 0 && s->temp[i].core < 0)
                package++;
    }
    for (int i = first; i < s->ntemp; i++)
        if (s->temp[i].package < 0)
            s->temp[i].package = package;
}

static void thermal_zone(const struct sysroot *sr, const char *dir, struct sensors *s,
                         struct read_notes *notes)
{
    (void)notes;
    char path[320], type[64];
    snprintf(path, sizeof path, "%s/type", dir);
    if (read_text(sr, path, type, sizeof type) != READ_OK || strcmp(type, "x86_pkg_temp") != 0)
        return;
    int package = 0;
    for (int i = 0; i < s->ntemp; i++)
        if (strcmp(s->temp[i].source, "thermal") == 0)
            package++;
    snprintf(path, sizeof path, "%s/temp", dir);
    add_temp(s, "thermal", path, package, -1);
}

static void rapl_domain(const struct sysroot *sr, const char *dir, struct sensors *s,
                        struct read_notes *notes)
{
    char path[320], name[32];
    snprintf(path, sizeof path, "%s/name", dir);
    if (read_text(sr, path, name, sizeof name) != READ_OK ||
        room((void **)&s->energy, &s->cap_energy, s->nenergy, SENSORS_MAX_ENERGY,
             sizeof *s->energy) != 0)
        return;
    int package = -1;
    char tail;
    if (strncmp(name, "package-", 8) == 0 && sscanf(name + 8, "%d%c", &package, &tail) != 1) {
        read_notes_add(notes, path, "not a RAPL domain name");
        return;
    }
    struct sensor_energy *e = &s->energy[s->nenergy];
    memset(e, 0, sizeof *e);
    e->package = package;
    snprintf(e->name, sizeof e->name, "%s", name);
    snprintf(e->path, sizeof e->path, "%s/energy_uj", dir);
    snprintf(path, sizeof path, "%s/max_energy_range_uj", dir);
    int64_t range;
    if (read_int_noted(sr, path, &range, notes) == READ_OK && range > 0)
        e->max_range_uj = (uint64_t)range;
    s->nenergy++;
}

void sensors_read(const struct sysroot *sr, struct sensors *s, struct read_notes *notes)
{
    for (int i = 0; i < s->ntemp; i++)
        read_temp(sr, &s->temp[i], notes);
    for (int i = 0; i < s->nenergy; i++) {
        struct sensor_energy *e = &s->energy[i];
        int64_t v;
        e->ok = read_int_noted(sr, e->path, &v, notes) == READ_OK && v >= 0;
        e->energy_uj = e->ok ? (uint64_t)v : 0;
    }
}

void sensors_free(struct sensors *s)
{
    free(s->temp);
    free(s->energy);
    memset(s, 0, sizeof *s);
}

void sensors_find(const struct sysroot *sr, struct sensors *s, struct read_notes *notes)
{
    memset(s, 0, sizeof *s);
    each_entry(sr, "/sys/class/hwmon", "hwmon", all_digits, hwmon_device, s, notes);
    /* coretemp core sensors: the package of the device's package sensor */
    bool hwmon_package = false;
    for (int i = 0; i < s->ntemp; i++)
        hwmon_package |= s->temp[i].core < 0;
    if (!hwmon_package)
        each_entry(sr, "/sys/class/thermal", "thermal_zone", all_digits, thermal_zone, s, notes);
    each_entry(sr, "/sys/class/powercap", "intel-rapl:", rapl_top_level, rapl_domain, s, notes);
}

const struct sensor_temp *sensors_package_temp(const struct sensors *s, int package)
{
    for (int i = 0; i < s->ntemp; i++)
        if (s->temp[i].core < 0 && s->temp[i].package == package)
            return &s->temp[i];
    return NULL;
}

const struct sensor_temp *sensors_core_temp(const struct sensors *s, int package, int core)
{
    for (int i = 0; i < s->ntemp; i++)
        if (s->temp[i].core == core && s->temp[i].package == package)
            return &s->temp[i];
    /* Older coretemp (Core 2) labels no package: its core sensors stand
     * for the one package there is. */
    for (int i = 0; i < s->ntemp; i++)
        if (s->temp[i].core == core && s->temp[i].package < 0)
            return &s->temp[i];
    return NULL;
}

void sensors_keep(struct sensors *s, bool (*keep)(const struct sensor_temp *), bool energy)
{
    int n = 0;
    for (int i = 0; i < s->ntemp; i++)
        if (keep(&s->temp[i]))
            s->temp[n++] = s->temp[i];
    s->ntemp = n;
    if (!energy)
        s->nenergy = 0;
}

const struct sensor_energy *sensors_package_energy(const struct sensors *s, int package)
{
    for (int i = 0; i < s->nenergy; i++)
        if (s->energy[i].package == package)
            return &s->energy[i];
    return NULL;
}

bool sensors_energy_delta_uj(const struct sensor_energy *e, uint64_t before_uj, uint64_t after_uj,
                             uint64_t *uj)
{
    if (after_uj >= before_uj) {
        *uj = after_uj - before_uj;
        return true;
    }
    if (e->max_range_uj > before_uj) {
        *uj = e->max_range_uj - before_uj + after_uj;
        return true;
    }
    return false;
}
