/*
 * Loads as JSON: {spec, kind, cpus, pulse, size_bytes, command, policy,
 * nice, duty[{cpu, duty, cpu_s}], starts}. For a cmd load the single duty
 * entry has cpu null and covers the whole command on all its CPUs.
 */
#include "out/json_load.h"

#include <sched.h>

const char *load_policy_name(int policy)
{
    return policy == SCHED_BATCH ? "batch" : policy == SCHED_IDLE ? "idle" : "other";
}

json_t *json_load_list(const struct load_spec *specs, int n, const struct load_sched *sched,
                       const struct load_runner *runner)
{
    json_t *arr = json_array();
    for (int i = 0; i < n; i++) {
        const struct load_spec *s = &specs[i];
        json_t *o = json_object();
        json_object_set_new(o, "spec", json_string(s->text));
        json_object_set_new(o, "kind", json_string(load_kind_name(s)));
        json_t *cpus = json_array();
        for (int c = 0; c < s->cpus.count; c++)
            json_array_append_new(cpus, json_integer(s->cpus.cpu[c]));
        json_object_set_new(o, "cpus", cpus);
        json_object_set_new(o, "pulse",
                            s->on_ns > 0 ? json_pack("{s:I,s:I}", "on_ns", (json_int_t)s->on_ns,
                                                     "off_ns", (json_int_t)s->off_ns)
                                         : json_null());
        json_object_set_new(o, "size_bytes",
                            s->size_bytes ? json_integer((json_int_t)s->size_bytes) : json_null());
        json_object_set_new(o, "command",
                            load_is_external(s) ? json_string(s->command) : json_null());
        json_object_set_new(o, "policy", json_string(load_policy_name(sched->policy)));
        json_object_set_new(o, "nice", json_integer(sched->nice));
        json_t *duty = json_array();
        uint64_t starts = 0;
        if (runner) {
            struct load_duty d[CPULIST_MAX_CPUS];
            int nd = load_runner_duty(runner, i, d, CPULIST_MAX_CPUS, &starts);
            for (int k = 0; k < nd; k++)
                json_array_append_new(
                    duty, json_pack("{s:o,s:f,s:f}", "cpu",
                                    d[k].cpu >= 0 ? json_integer(d[k].cpu) : json_null(), "duty",
                                    d[k].duty, "cpu_s", d[k].cpu_s));
        }
        json_object_set_new(o, "duty", duty);
        json_object_set_new(o, "starts",
                            load_is_external(s) ? json_integer((json_int_t)starts) : json_null());
        json_array_append_new(arr, o);
    }
    return arr;
}
