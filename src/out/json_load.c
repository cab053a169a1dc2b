/*
 * Loads as JSON: {spec, kind, cpus, pulse, size_bytes, command, policy,
 * nice, duty[{cpu, duty, cpu_s}], starts, failures, finished,
 * last_failure}. For a cmd load the single duty entry has cpu null and
 * covers the whole command on all its CPUs; last_failure is {exit_status,
 * signal, stderr_tail} of the last start that failed (or null).
 */
#include "out/json_load.h"

#include <sched.h>
#include <string.h>

#include "common/json_text.h"

/* A stderr tail as a JSON string: as written when it is UTF-8 (a
 * character the tail cut in half dropped), else with every byte that is
 * not printable ASCII as '?'. */
static json_t *tail_string(const struct load_tail *t)
{
    size_t from = 0;
    while (from < t->len && ((unsigned char)t->text[from] & 0xc0) == 0x80)
        from++;
    json_t *s = json_stringn(t->text + from, t->len - from);
    if (s)
        return s;
    char clean[LOAD_TAIL_BYTES + 1];
    size_t n = 0;
    for (size_t i = from; i < t->len; i++) {
        unsigned char ch = (unsigned char)t->text[i];
        clean[n++] = ch == '\n' || ch == '\t' || (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
    }
    return json_stringn(clean, n);
}

static json_t *last_failure(const struct load_cmd_report *r)
{
    if (!r->has_failure)
        return json_null();
    return json_pack("{s:o,s:o,s:o}", "exit_status",
                     r->exit_status >= 0 ? json_integer(r->exit_status) : json_null(), "signal",
                     r->signal ? json_integer(r->signal) : json_null(), "stderr_tail",
                     tail_string(&r->stderr_tail));
}

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
        json_object_set_new(o, "spec", json_text_new(s->text));
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
                            load_is_external(s) ? json_text_new(s->command) : json_null());
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
        struct load_cmd_report r;
        bool cmd = runner && load_runner_cmd_report(runner, i, &r);
        if (!cmd && load_is_external(s)) {
            memset(&r, 0, sizeof(r));
            cmd = true;
        }
        json_object_set_new(o, "failures",
                            cmd ? json_integer((json_int_t)r.failures) : json_null());
        json_object_set_new(o, "finished",
                            cmd ? json_integer((json_int_t)r.finished) : json_null());
        json_object_set_new(o, "last_failure", cmd ? last_failure(&r) : json_null());
        json_array_append_new(arr, o);
    }
    return arr;
}
