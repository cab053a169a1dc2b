/*
 * Temperatures and package energy as the kernel publishes them:
 * hwmon (coretemp: "Package id P" and "Core C" labels; k10temp and
 * zenpower: Tctl/Tdie per socket), thermal zones of type x86_pkg_temp
 * when hwmon has no package sensor, and powercap RAPL package domains
 * (intel-rapl:N, also used by AMD) for energy. Found once, then re-read.
 * Several of these drivers read an MSR on a CPU of the package by an
 * inter-processor interrupt, so each sensor says which CPUs it may
 * interrupt (the package).
 */
#ifndef JITTERLAB_SYS_SENSORS_H
#define JITTERLAB_SYS_SENSORS_H

#include <stdbool.h>
#include <stdint.h>

#include "sys/read_notes.h"
#include "sys/sysroot.h"

#define SENSORS_MAX_TEMPS  1024
#define SENSORS_MAX_ENERGY 64

struct sensor_temp {
    int package;     /* physical package id; -1 when unknown */
    int core;        /* core id for a core sensor, -1 for a package sensor */
    char source[16]; /* "coretemp", "k10temp", "zenpower", "thermal" */
    char path[320];  /* the file, below the sysroot */
    int64_t milli_c; /* last value read */
    bool ok;         /* the last read gave a value */
};

struct sensor_energy {
    int package;           /* -1 when unknown (psys) */
    char name[32];         /* "package-0", "psys" */
    char path[320];        /* .../energy_uj */
    uint64_t max_range_uj; /* the counter wraps here; 0 when unknown */
    uint64_t energy_uj;    /* last value read */
    bool ok;
};

/* Grown as sensors are found (a machine has a handful; at most the caps). */
struct sensors {
    int ntemp, cap_temp;
    struct sensor_temp *temp;
    int nenergy, cap_energy;
    struct sensor_energy *energy;
};

/* Finds the sensors without reading a value (a read may interrupt a CPU),
 * into s (zeroed first; free with sensors_free). A machine without any, or
 * no memory for more, leaves ntemp = nenergy = 0 or what fitted. Garbage in
 * a name or label file is noted. */
void sensors_find(const struct sysroot *sr, struct sensors *s, struct read_notes *notes);
void sensors_free(struct sensors *s);
/* Drops the temperature sensors keep refuses, and every energy domain
 * unless energy, so that sensors_read never touches them. */
void sensors_keep(struct sensors *s, bool (*keep)(const struct sensor_temp *), bool energy);
/* Re-reads every sensor found. */
void sensors_read(const struct sysroot *sr, struct sensors *s, struct read_notes *notes);

/* The package sensor of a package (the first found), or NULL. */
const struct sensor_temp *sensors_package_temp(const struct sensors *s, int package);
/* The core sensor of (package, core), or of core in no known package, or
 * NULL. */
const struct sensor_temp *sensors_core_temp(const struct sensors *s, int package, int core);
/* The package energy domain of a package, or NULL. */
const struct sensor_energy *sensors_package_energy(const struct sensors *s, int package);
/* Energy used between two reads of one domain into *uj, with one wrap
 * allowed; false when the counter fell and its range is unknown. */
bool sensors_energy_delta_uj(const struct sensor_energy *e, uint64_t before_uj, uint64_t after_uj,
                             uint64_t *uj);

#endif
