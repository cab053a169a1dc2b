/*
 * Shared option parsing and input checks for the subcommands; see
 * options.h. Every check here runs before a subcommand touches the machine
 * or creates a file, so bad input always ends with exit 2 and no output.
 */
#include "cmd/options.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "common/units.h"
#include "common/atomic_file.h"
#include "common/read_file.h"
#include "out/result_read.h"

/* One common option: -1 taken, else an exit code. */
static int common_option(const struct cli_command *cmd, struct cli_common *co, int c, char **argv)
{
    const char *why;
    switch (c) {
    case 'a':
        co->cpus_text = optarg;
        if (cpulist_parse(optarg, &co->cpus, &why) != 0)
            return usage_error("--cpus", optarg, why);
        if (co->cpus.count == 0)
            return usage_error("--cpus", optarg, "empty CPU list");
        return -1;
    case CLI_OPT_SYSROOT:
        co->sysroot_dir = optarg;
        return -1;
    case CLI_OPT_JSON:
        co->json_path = optarg;
        return -1;
    case 'q':
        co->quiet = true;
        return -1;
    case 'h':
        cmd->usage(stdout);
        return EXIT_OK;
    default:
        return option_parse_error(cmd, c, argv);
    }
}

/* getopt_long values that the common handling owns: the common options,
 * unknown options ('?') and missing values (':'). */
static bool is_common(int c)
{
    return c == 'a' || c == 'q' || c == 'h' || c == CLI_OPT_SYSROOT || c == CLI_OPT_JSON ||
           c == ':' || c == '?';
}

static int help_with_value(const struct cli_command *cmd, const char *opt, const char *value)
{
    char why[512];
    snprintf(why, sizeof why, "%s is --help and takes no value%s%s", opt,
             cmd->help_value_hint ? "; " : "", cmd->help_value_hint ? cmd->help_value_hint : "");
    return usage_error(opt, value, why);
}

char **cli_argv_copy(int argc, char **argv)
{
    char **copy = malloc(((size_t)(argc > 0 ? argc : 0) + 1) * sizeof(*copy));
    if (!copy)
        return NULL;
    for (int i = 0; i < argc; i++)
        copy[i] = argv[i];
    copy[argc > 0 ? argc : 0] = NULL;
    return copy;
}

int cli_parse(const struct cli_command *cmd, struct cli_common *co, void *params, int argc,
              char **argv, int first, int *rest)
{
    char shortopts[64];
    snprintf(shortopts, sizeof(shortopts), ":%s", cmd->short_options);
    memset(co, 0, sizeof(*co));
    /* getopt starts afresh only when optind is 0 (glibc keeps its permutation
     * state otherwise): parse argv from `first` as if it were a new vector. */
    int shift = first > 0 ? first - 1 : 0;
    char **av = argv + shift;
    int ac = argc - shift;
    opterr = 0;
    optind = 0;
    int c, rc;
    while ((c = getopt_long(ac, av, shortopts, cmd->long_options, NULL)) != -1) {
        /* "-h 1000" is not a request for help (cyclictest's -h takes a
         * value): where no argument may follow the options, refuse it. */
        if (c == 'h' && !rest && optind < ac && av[optind][0] != '-')
            return help_with_value(cmd, av[optind - 1], av[optind]);
        if (is_common(c)) {
            if ((rc = common_option(cmd, co, c, av)) >= 0)
                return rc;
        } else if ((rc = cmd->option(params, c, optarg)) != 0) {
            return rc;
        }
    }
    if (rest)
        *rest = optind + shift;
    else if ((rc = check_no_more_args(cmd->name, ac, av)) != 0)
        return rc;
    if (!co->sysroot_dir)
        co->sysroot_dir = getenv("JITTERLAB_SYSROOT");
    return -1;
}

/* The long options that "--name" (up to any '=') abbreviates: how many,
 * and their names, comma-separated, in list. */
static int abbreviated(const struct option *opts, const char *arg, char *list, size_t len)
{
    size_t n = strcspn(arg + 2, "=");
    int count = 0;
    list[0] = '\0';
    for (const struct option *o = opts; o && o->name; o++)
        if (strncmp(o->name, arg + 2, n) == 0) {
            size_t used = strlen(list);
            snprintf(list + used, len - used, "%s--%s", count ? ", " : "", o->name);
            count++;
        }
    return count;
}

int option_parse_error(const struct cli_command *cmd, int c, char **argv)
{
    const char *arg = argv[optind - 1];
    if (c == ':')
        return usage_error(arg, NULL, "needs a value");
    char list[1024];
    if (strncmp(arg, "--", 2) == 0 && arg[2] &&
        abbreviated(cmd->long_options, arg, list, sizeof list) > 1) {
        fprintf(stderr, "jitterlab: %s: ambiguous option '%s': %s\n", cmd->name, arg, list);
        return EXIT_USAGE;
    }
    fprintf(stderr, "jitterlab: %s: unknown option '%s' (see jitterlab help %s)\n", cmd->name, arg,
            cmd->name);
    return EXIT_USAGE;
}

int check_no_more_args(const char *subcommand, int argc, char **argv)
{
    if (optind >= argc)
        return 0;
    fprintf(stderr, "jitterlab: %s: unexpected argument '%s' (see jitterlab help %s)\n", subcommand,
            argv[optind], subcommand);
    return EXIT_USAGE;
}

int usage_error(const char *opt, const char *value, const char *why)
{
    if (value)
        fprintf(stderr, "jitterlab: %s %s: %s\n", opt, value, why);
    else
        fprintf(stderr, "jitterlab: %s: %s\n", opt, why);
    return EXIT_USAGE;
}

int parse_int_option(const char *opt, const char *text, long min, long max, long *out)
{
    const char *why;
    if (parse_int_range(text, min, max, out, &why) == 0)
        return 0;
    char msg[96];
    snprintf(msg, sizeof(msg), "must be a whole number from %ld to %ld", min, max);
    return usage_error(opt, text, msg);
}

int parse_positive_duration(const char *opt, const char *text, int64_t bare_unit_ns, int64_t *out)
{
    const char *why;
    if (parse_duration_bounded_ns(text, bare_unit_ns, out, &why) != 0)
        return usage_error(opt, text, why);
    if (*out <= 0)
        return usage_error(opt, text, "must be greater than 0");
    return 0;
}

int check_cpus_online(const char *opt, const char *text, const struct cpulist *cpus,
                      const struct system_info *si)
{
    if (si->online.count == 0)
        return 0; /* online list unknown: the kernel will say */
    for (int i = 0; i < cpus->count; i++) {
        if (!cpulist_contains(&si->online, cpus->cpu[i])) {
            char list[1024], why[1200];
            cpulist_format(&si->online, list, sizeof(list));
            snprintf(why, sizeof(why), "CPU %d is not online (online: %s)", cpus->cpu[i], list);
            return usage_error(opt, text, why);
        }
    }
    return 0;
}

int check_inputs_total(const char *cmd, const char *const *opts, const char *const *paths, int n)
{
    uint64_t total;
    int over = inputs_over_total(paths, n, RESULT_READ_TOTAL_MAX_BYTES, &total);
    if (over < 0)
        return 0;
    const char *opt = opts && opts[over] ? opts[over] : cmd;
    fprintf(stderr,
            "jitterlab: %s %s: the documents add up to %llu MiB with this one, more than the "
            "%u MiB one %s reads together\n",
            opt, paths[over], (unsigned long long)((total + (1u << 20) - 1) >> 20),
            RESULT_READ_TOTAL_MAX_BYTES >> 20, cmd);
    return EXIT_USAGE;
}

int check_output_path(const char *opt, const char *path)
{
    char why[4200];
    if (path && atomic_file_check(path, why, sizeof(why)) != 0)
        return usage_error(opt, path, why);
    return 0;
}

void cli_sched_init(struct cli_sched *s)
{
    *s = (struct cli_sched){.fifo = true, .priority = CLI_SCHED_DEFAULT_PRIORITY};
}

int cli_sched_option(struct cli_sched *s, int c, const char *arg)
{
    if (c == CLI_OPT_POLICY) {
        if (strcmp(arg, "fifo") != 0 && strcmp(arg, "other") != 0)
            return usage_error("--policy", arg, "must be fifo or other");
        s->fifo = strcmp(arg, "fifo") == 0;
        return 0;
    }
    if (c != 'p')
        return -1;
    long v;
    int rc = parse_int_option("--priority", arg, 1, 99, &v);
    s->priority = (int)v;
    s->priority_set = true;
    return rc;
}

int cli_sched_finish(struct cli_sched *s)
{
    if (s->fifo)
        return 0;
    if (s->priority_set)
        return usage_error("--priority", NULL, "has no meaning with --policy other");
    s->priority = 0;
    return 0;
}

const char *cli_sched_policy(const struct cli_sched *s)
{
    return s->fifo ? "fifo" : "other";
}

void cli_sched_notice(const char *subcommand, const struct cli_sched *s, bool realtime, bool quiet)
{
    if (s->fifo && !realtime && !quiet)
        fprintf(stderr,
                "jitterlab: %s: SCHED_FIFO is not permitted; measured at SCHED_OTHER "
                "(\"realtime\": false)\n",
                subcommand);
}

/* The directory of path into dir ("." for a bare name, "/" at the root);
 * returns the name after it. */
static const char *dir_and_name(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(dir, len, ".");
        return path;
    }
    int n = slash == path ? 1 : (int)(slash - path);
    snprintf(dir, len, "%.*s", n, path);
    return slash + 1;
}

/* Whether two output paths name one file that one would overwrite with
 * the other: one regular file (or one not there yet) by inode, or by
 * directory and name. A stream (/dev/null, a terminal, a FIFO) is written
 * in place, so two outputs may share it. */
static bool same_output(const char *a, const char *b)
{
    struct stat sa, sb;
    bool ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if ((ea && !S_ISREG(sa.st_mode)) || (eb && !S_ISREG(sb.st_mode)))
        return false;
    if (strcmp(a, b) == 0)
        return true;
    if (ea && eb)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char da[PATH_MAX], db[PATH_MAX];
    if (strcmp(dir_and_name(a, da, sizeof da), dir_and_name(b, db, sizeof db)) != 0)
        return false;
    return stat(da, &sa) == 0 && stat(db, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

int check_distinct_outputs(const struct cli_output *out, int n)
{
    for (int i = 0; i < n; i++)
        for (int k = i + 1; out[i].path && k < n; k++)
            if (out[k].path && same_output(out[i].path, out[k].path)) {
                char why[256];
                snprintf(why, sizeof why, "the same file as %s %s: each output needs its own",
                         out[i].opt, out[i].path);
                return usage_error(out[k].opt, out[k].path, why);
            }
    return 0;
}

int check_json_and_csv(const char *json_path, const char *csv_path)
{
    int rc;
    if ((rc = check_output_path("--json", json_path)) != 0 ||
        (rc = check_output_path("--csv", csv_path)) != 0)
        return rc;
    const struct cli_output out[] = {{"--json", json_path}, {"--csv", csv_path}};
    return check_distinct_outputs(out, 2);
}
/* The CPUs this process may run threads on (cpuset, taskset). The kernel
 * refuses (EINVAL) a mask shorter than its own nr_cpu_ids bits, and a fixed
 * cpu_set_t ends at CPU 1023: the set grows until the kernel takes it, up to
 * CPULIST_MAX_CPUS. Empty when unknown. */
static void affinity_cpus(struct cpulist *out)
{
    out->count = 0;
    for (int ncpu = CPU_SETSIZE; ncpu <= CPULIST_MAX_CPUS; ncpu *= 2) {
        size_t size = CPU_ALLOC_SIZE(ncpu);
        cpu_set_t *set = CPU_ALLOC(ncpu);
        if (!set)
            return;
        int rc = sched_getaffinity(0, size, set);
        int err = errno;
        if (rc == 0)
            for (int cpu = 0; cpu < ncpu; cpu++)
                if (CPU_ISSET_S(cpu, size, set))
                    cpulist_add(out, cpu);
        CPU_FREE(set);
        if (rc == 0 || err != EINVAL)
            return;
    }
}

/* --cpus as given (online, within the affinity), or by default the isolated
 * CPUs that are usable, saying which were dropped and why. */
int cli_choose_cpus(struct cli_common *c, const struct system_info *si)
{
    static struct cpulist allowed, usable, gone, want;
    affinity_cpus(&allowed);
    if (c->cpus.count > 0) {
        int rc = check_cpus_online("--cpus", c->cpus_text, &c->cpus, si);
        if (rc != 0 || allowed.count == 0)
            return rc;
        cpulist_subtract(&c->cpus, &allowed, &gone);
        if (gone.count > 0) {
            char why[600], list[512];
            cpulist_format(&allowed, list, sizeof(list));
            snprintf(why, sizeof(why),
                     "CPU %d is outside this process's CPU affinity (allowed: %s)", gone.cpu[0],
                     list);
            return usage_error("--cpus", c->cpus_text, why);
        }
        return 0;
    }
    system_info_default_cpus(si, &want);
    if (allowed.count == 0) /* affinity unknown: trust the machine's lists */
        allowed = si->online;
    cpulist_subtract(&si->online, &allowed, &gone);
    cpulist_subtract(&si->online, &gone, &usable); /* online and allowed */
    cpulist_subtract(&want, &usable, &gone);
    cpulist_subtract(&want, &gone, &c->cpus);
    if (c->cpus.count == 0) {
        /* None of the defaults is usable: every usable CPU but the first,
         * which stays for housekeeping when there is more than one. */
        c->cpus = usable;
        if (usable.count > 1) {
            memmove(c->cpus.cpu, c->cpus.cpu + 1, (size_t)(usable.count - 1) * sizeof(int));
            c->cpus.count--;
        }
    }
    if (c->cpus.count == 0) {
        char online[512], mine[512], why[1200];
        cpulist_format(&si->online, online, sizeof(online));
        cpulist_format(&allowed, mine, sizeof(mine));
        if (si->online.count == 0)
            snprintf(why, sizeof(why),
                     "no CPU is usable: %s/sys/devices/system/cpu/online lists none (missing, "
                     "unreadable or empty)",
                     c->sysroot_dir && c->sysroot_dir[0] ? c->sysroot_dir : "");
        else
            snprintf(why, sizeof(why),
                     "no CPU is usable: none of the online CPUs (%s) is within this process's "
                     "CPU affinity (%s)",
                     online, mine);
        return usage_error("--cpus", NULL, why);
    }
    if (gone.count > 0 && !c->quiet) {
        char dropped[512], chosen[512];
        cpulist_format(&gone, dropped, sizeof(dropped));
        cpulist_format(&c->cpus, chosen, sizeof(chosen));
        fprintf(stderr,
                "jitterlab: warning: default CPUs %s dropped (offline or outside this process's "
                "CPU affinity); measuring %s\n",
                dropped, chosen);
    }
    return 0;
}

void cli_pin_to_housekeeping(const struct cpulist *measured, const struct system_info *si,
                             bool quiet)
{
    struct cpulist house;
    cpulist_subtract(&si->online, measured, &house);
    if (house.count == 0) {
        if (!quiet)
            fprintf(stderr, "jitterlab: warning: every online CPU is measured; the collector "
                            "shares them\n");
        return;
    }
    int top = house.cpu[house.count - 1];
    size_t size = CPU_ALLOC_SIZE(top + 1);
    cpu_set_t *set = CPU_ALLOC(top + 1);
    if (!set)
        return;
    CPU_ZERO_S(size, set);
    for (int i = 0; i < house.count; i++)
        CPU_SET_S(house.cpu[i], size, set);
    pthread_setaffinity_np(pthread_self(), size, set);
    CPU_FREE(set);
}
