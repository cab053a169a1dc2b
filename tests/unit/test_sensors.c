/*
 * Temperature and energy sensors (src/sys/sensors.c): coretemp package and
 * core sensors by label, k10temp/zenpower one package per device (Tdie
 * before Tctl), x86_pkg_temp zones only without an hwmon package sensor,
 * top-level RAPL package domains with their wrap range, garbage noted and
 * never read as a value, re-reads, and the energy delta across a wrap.
 * Trees are the stat fixtures or written per test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sys/sensors.h"
#include "test_fixture.h"
#include "test_tree.h"

static struct sensors *found(const struct sysroot *sr, struct read_notes *notes)
{
    static struct sensors s; /* the last test's sensors are freed here */
    memset(notes, 0, sizeof *notes);
    sensors_free(&s);
    sensors_find(sr, &s, notes);
    sensors_read(sr, &s, notes); /* find reads nothing */
    return &s;
}

static bool noted(const struct read_notes *n, const char *path, const char *reason)
{
    for (int i = 0; i < n->count; i++)
        if (strcmp(n->note[i].path, path) == 0 && strstr(n->note[i].reason, reason))
            return true;
    return false;
}

static void hwmon(const char *root, int n, const char *name)
{
    char rel[64];
    snprintf(rel, sizeof rel, "/sys/class/hwmon/hwmon%d/name", n);
    char text[64];
    snprintf(text, sizeof text, "%s\n", name);
    write_text(root, rel, text);
}

static void temp(const char *root, int n, int k, const char *label, const char *input)
{
    char rel[96];
    if (label) {
        snprintf(rel, sizeof rel, "/sys/class/hwmon/hwmon%d/temp%d_label", n, k);
        write_text(root, rel, label);
    }
    snprintf(rel, sizeof rel, "/sys/class/hwmon/hwmon%d/temp%d_input", n, k);
    write_text(root, rel, input);
}

static void test_sensors_coretemp_package_and_cores_from_the_intel_fixture(void **state)
{
    (void)state;
    struct sysroot sr;
    fixture_sysroot(&sr, "stat/intel-client/t1");
    struct read_notes notes;
    struct sensors *s = found(&sr, &notes);
    assert_int_equal(notes.count, 0);
    /* nvme and acpitz are not CPU sensors; the x86_pkg_temp zone is not
     * needed beside coretemp's package sensor */
    assert_int_equal(s->ntemp, 5);
    for (int i = 0; i < s->ntemp; i++) {
        assert_string_equal(s->temp[i].source, "coretemp");
        assert_int_equal(s->temp[i].package, 0);
        assert_true(s->temp[i].ok);
    }
    const struct sensor_temp *p = sensors_package_temp(s, 0);
    assert_non_null(p);
    assert_int_equal(p->core, -1);
    assert_int_equal(p->milli_c, 46000);
    assert_string_equal(p->path, "/sys/class/hwmon/hwmon2/temp1_input");
    static const int64_t core_mc[4] = {42000, 44000, 48000, 40000};
    for (int c = 0; c < 4; c++) {
        const struct sensor_temp *ct = sensors_core_temp(s, 0, c);
        assert_non_null(ct);
        assert_int_equal(ct->milli_c, core_mc[c]);
    }
    assert_null(sensors_core_temp(s, 0, 4));
    assert_null(sensors_package_temp(s, 1));
    /* RAPL: package-0 only, not its core sub-domain intel-rapl:0:0 */
    assert_int_equal(s->nenergy, 1);
    const struct sensor_energy *e = sensors_package_energy(s, 0);
    assert_non_null(e);
    assert_string_equal(e->name, "package-0");
    assert_string_equal(e->path, "/sys/class/powercap/intel-rapl:0/energy_uj");
    assert_int_equal(e->max_range_uj, 262143328850ULL);
    assert_int_equal(e->energy_uj, 15000000);
    assert_true(e->ok);
    assert_null(sensors_package_energy(s, 1));
}

static void test_sensors_coretemp_of_two_packages(void **state)
{
    const char *root = *state;
    struct sysroot sr;
    sysroot_init(&sr, root);
    for (int p = 0; p < 2; p++) {
        hwmon(root, p, "coretemp");
        char label[32], input[32];
        snprintf(label, sizeof label, "Package id %d\n", p);
        snprintf(input, sizeof input, "%d\n", 50000 + 1000 * p);
        temp(root, p, 1, label, input);
        for (int c = 0; c < 2; c++) {
            snprintf(label, sizeof label, "Core %d\n", 8 * c);
            snprintf(input, sizeof input, "%d\n", 40000 + 1000 * p + 100 * c);
            temp(root, p, 2 + c, label, input);
        }
    }
    struct read_notes notes;
    struct sensors *s = found(&sr, &notes);
    assert_int_equal(s->ntemp, 6);
    assert_int_equal(sensors_package_temp(s, 1)->milli_c, 51000);
    assert_int_equal(sensors_core_temp(s, 1, 8)->milli_c, 41100);
    assert_int_equal(sensors_core_temp(s, 0, 0)->milli_c, 40000);
    assert_null(sensors_core_temp(s, 0, 1));
}

static void test_sensors_k10temp_one_package_per_device_tdie_first(void **state)
{
    (void)state;
    struct sysroot sr;
    fixture_sysroot(&sr, "stat/amd-epyc/t1");
    struct read_notes notes;
    struct sensors *s = found(&sr, &notes);
    assert_int_equal(notes.count, 0);
    assert_int_equal(s->ntemp, 2); /* one per device; Tccd1 is not kept */
    assert_int_equal(s->nenergy, 0);
    const struct sensor_temp *p0 = sensors_package_temp(s, 0), *p1 = sensors_package_temp(s, 1);
    assert_non_null(p0);
    assert_non_null(p1);
    assert_string_equal(p0->source, "k10temp");
    assert_int_equal(p0->milli_c, 47500); /* Tdie, not Tctl's 57500 */
    assert_string_equal(p0->path, "/sys/class/hwmon/hwmon0/temp2_input");
    assert_int_equal(p1->milli_c, 52250);
    assert_null(sensors_core_temp(s, 0, 0));
}

static void test_sensors_k10temp_without_tdie_keeps_tctl(void **state)
{
    const char *root = *state;
    struct sysroot sr;
    sysroot_init(&sr, root);
    hwmon(root, 0, "zenpower");
    temp(root, 0, 1, "Tctl\n", "61000\n");
    struct read_notes notes;
    struct sensors *s = found(&sr, &notes);
    assert_int_equal(s->ntemp, 1);
    assert_string_equal(s->temp[0].source, "zenpower");
    assert_int_equal(sensors_package_temp(s, 0)->milli_c, 61000);
}

static void test_sensors_devices_are_taken_in_number_order(void **state)
{
    /* hwmon10 sorts after hwmon2 (not "hwmon10" < "hwmon2"): the package
     * index of k10temp devices follows their numbers */
    const char *root = *state;
    struct sysroot sr;
    sysroot_init(&sr, root);
    hwmon(root, 10, "k10temp");
    temp(root, 10, 1, "Tctl\n", "70000\n");
    hwmon(root, 2, "k10temp");
    temp(root, 2, 1, "Tctl\n", "60000\n");
    hwmon(root, 3, "drivetemp");
    temp(root, 3, 1, NULL, "35000\n");
    struct read_notes notes;
    struct sensors *s = found(&sr, &notes);
    assert_int_equal(s->ntemp, 2);
    assert_int_equal(sensors_package_temp(s, 0)->milli_c, 60000);
    assert_int_equal(sensors_package_temp(s, 1)->milli_c, 70000);
}

static void test_sensors_x86_pkg_temp_zones_only_without_hwmon_package(void **state)
{
    const char *root = *state;
    struct sysroot sr;
    sysroot_init(&sr, root);
    write_text(root, "/sys/class/thermal/thermal_zone0/type", "acpitz\n");
    write_text(root, "/sys/class/thermal/thermal_zone0/temp", "27800\n");
    write_text(root, "/sys/class/thermal/thermal_zone1/type", "x86_pkg_temp\n");
    write_text(root, "/sys/class/thermal/thermal_zone1/temp", "55000\n");
    write_text(root, "/sys/class/thermal/thermal_zone2/type", "x86_pkg_temp\n");
    write_text(root, "/sys/class/thermal/thermal_zone2/temp", "56000\n");
    struct read_notes notes;
    struct sensors *s = found(&sr, &notes);
    assert_int_equal(s->ntemp, 2);
    assert_string_equal(s->temp[0].source, "thermal");
    assert_int_equal(sensors_package_temp(s, 0)->milli_c, 55000);
    assert_int_equal(sensors_package_temp(s, 1)->milli_c, 56000);
    assert_string_equal(sensors_package_temp(s, 1)->path, "/sys/class/thermal/thermal_zone2/temp");
    /* with a coretemp package sensor the zones are not used */
    hwmon(root, 0, "coretemp");
    temp(root, 0, 1, "Package id 0\n", "45000\n");
    s = found(&sr, &notes);
    assert_int_equal(s->ntemp, 1);
    assert_string_equal(s->temp[0].source, "coretemp");
}

static void test_sensors_garbage_is_noted_and_never_a_value(void **state)
{
    (void)state;
    struct sysroot sr;
    fixture_sysroot(&sr, "stat/garbage/t0");
    struct read_notes notes;
    struct sensors *s = found(&sr, &notes);
    /* "Core x" is no sensor; "Core 1" is one whose value is "hot" */
    assert_true(noted(&notes, "/sys/class/hwmon/hwmon0/temp2_label", "not a coretemp label"));
    assert_true(noted(&notes, "/sys/class/hwmon/hwmon0/temp3_input", "not a number: 'hot'"));
    assert_int_equal(s->ntemp, 2);
    assert_true(sensors_package_temp(s, 0)->ok);
    assert_int_equal(sensors_package_temp(s, 0)->milli_c, 50000);
    const struct sensor_temp *c1 = sensors_core_temp(s, 0, 1);
    assert_non_null(c1);
    assert_false(c1->ok);
    /* "package-one" is no RAPL domain; package-0's energy is "12abc" */
    assert_true(noted(&notes, "/sys/class/powercap/intel-rapl:1/name", "not a RAPL domain name"));
    assert_true(noted(&notes, "/sys/class/powercap/intel-rapl:0/energy_uj", "not a number"));
    assert_int_equal(s->nenergy, 1);
    assert_false(s->energy[0].ok);
    assert_int_equal(s->energy[0].energy_uj, 0);
}

static void test_sensors_rapl_domains_and_their_packages(void **state)
{
    const char *root = *state;
    struct sysroot sr;
    sysroot_init(&sr, root);
    static const char *const pc = "/sys/class/powercap/";
    char rel[128];
    static const struct {
        const char *dir, *name, *range, *energy;
    } d[] = {
        {"intel-rapl:0", "package-0\n", "262143328850\n", "100\n"},
        {"intel-rapl:0:0", "core\n", "262143328850\n", "50\n"},
        {"intel-rapl:1", "package-1\n", NULL, "200\n"},
        {"intel-rapl:2", "psys\n", "0\n", "300\n"},
        {"intel-rapl-mmio:0", "package-0\n", "1000\n", "400\n"},
        {"intel-rapl:3", "package-3\n", "1000\n", "-5\n"},
    };
    for (size_t k = 0; k < sizeof d / sizeof d[0]; k++) {
        snprintf(rel, sizeof rel, "%s%s/name", pc, d[k].dir);
        write_text(root, rel, d[k].name);
        if (d[k].range) {
            snprintf(rel, sizeof rel, "%s%s/max_energy_range_uj", pc, d[k].dir);
            write_text(root, rel, d[k].range);
        }
        snprintf(rel, sizeof rel, "%s%s/energy_uj", pc, d[k].dir);
        write_text(root, rel, d[k].energy);
    }
    struct read_notes notes;
    struct sensors *s = found(&sr, &notes);
    assert_int_equal(s->nenergy, 4); /* not :0:0, not intel-rapl-mmio */
    assert_int_equal(sensors_package_energy(s, 0)->energy_uj, 100);
    assert_int_equal(sensors_package_energy(s, 0)->max_range_uj, 262143328850ULL);
    assert_int_equal(sensors_package_energy(s, 1)->energy_uj, 200);
    assert_int_equal(sensors_package_energy(s, 1)->max_range_uj, 0); /* unknown */
    const struct sensor_energy *psys = sensors_package_energy(s, -1);
    assert_non_null(psys);
    assert_string_equal(psys->name, "psys");
    assert_int_equal(psys->max_range_uj, 0);
    assert_false(sensors_package_energy(s, 3)->ok); /* a negative count */
}

static void test_sensors_read_takes_the_new_values(void **state)
{
    const char *root = *state;
    struct sysroot sr;
    sysroot_init(&sr, root);
    hwmon(root, 0, "coretemp");
    temp(root, 0, 1, "Package id 0\n", "45000\n");
    temp(root, 0, 2, "Core 0\n", "41000\n");
    write_text(root, "/sys/class/powercap/intel-rapl:0/name", "package-0\n");
    write_text(root, "/sys/class/powercap/intel-rapl:0/energy_uj", "1000\n");
    struct read_notes notes;
    struct sensors *s = found(&sr, &notes);
    temp(root, 0, 1, NULL, "47000\n");
    temp(root, 0, 2, NULL, "nope\n");
    write_text(root, "/sys/class/powercap/intel-rapl:0/energy_uj", "2500\n");
    sensors_read(&sr, s, &notes);
    assert_int_equal(sensors_package_temp(s, 0)->milli_c, 47000);
    assert_false(sensors_core_temp(s, 0, 0)->ok);
    assert_int_equal(sensors_package_energy(s, 0)->energy_uj, 2500);
    /* a sensor whose file went away is not ok any more */
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/sys/class/hwmon/hwmon0/temp1_input", root);
    assert_int_equal(unlink(path), 0);
    sensors_read(&sr, s, &notes);
    assert_false(sensors_package_temp(s, 0)->ok);
}

static uint64_t delta(const struct sensor_energy *e, uint64_t before, uint64_t after)
{
    uint64_t uj = 12345;
    assert_true(sensors_energy_delta_uj(e, before, after, &uj));
    return uj;
}

static void test_sensors_energy_delta_allows_one_wrap(void **state)
{
    (void)state;
    struct sensor_energy e = {.max_range_uj = 262143328850ULL};
    assert_int_equal(delta(&e, 1000, 26001000), 26000000);
    assert_int_equal(delta(&e, 5, 5), 0);
    /* the fixture's wrap: 10 J before the range's end, 15 J after zero */
    assert_int_equal(delta(&e, 262133328850ULL, 15000000), 25000000);
    assert_int_equal(delta(&e, 262143328849ULL, 0), 1);
    /* a fall without a known range says nothing */
    struct sensor_energy no_range = {.max_range_uj = 0};
    uint64_t uj;
    assert_false(sensors_energy_delta_uj(&no_range, 262133328850ULL, 15000000, &uj));
}

static void test_sensors_none_on_an_empty_tree(void **state)
{
    const char *root = *state;
    struct sysroot sr;
    sysroot_init(&sr, root);
    struct read_notes notes;
    struct sensors *s = found(&sr, &notes);
    assert_int_equal(s->ntemp, 0);
    assert_int_equal(s->nenergy, 0);
    assert_int_equal(notes.count, 0);
    assert_null(sensors_package_temp(s, 0));
    assert_null(sensors_core_temp(s, 0, 0));
    assert_null(sensors_package_energy(s, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, temp_tree_setup, temp_tree_teardown)
        cmocka_unit_test(test_sensors_coretemp_package_and_cores_from_the_intel_fixture),
        T(test_sensors_coretemp_of_two_packages),
        cmocka_unit_test(test_sensors_k10temp_one_package_per_device_tdie_first),
        T(test_sensors_k10temp_without_tdie_keeps_tctl),
        T(test_sensors_devices_are_taken_in_number_order),
        T(test_sensors_x86_pkg_temp_zones_only_without_hwmon_package),
        cmocka_unit_test(test_sensors_garbage_is_noted_and_never_a_value),
        T(test_sensors_rapl_domains_and_their_packages),
        T(test_sensors_read_takes_the_new_values),
        cmocka_unit_test(test_sensors_energy_delta_allows_one_wrap),
        T(test_sensors_none_on_an_empty_tree),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
