/*
 * The checked JSON getters of the report's readers (report_json.h) and the
 * reading of a whole input file. jansson has already refused malformed
 * text, invalid UTF-8 and numbers beyond double range; these functions
 * refuse what is well-formed but not what a jitterlab document holds.
 */
#include "out/report_json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int jr_fail(struct jreader *r, const char *where, const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    snprintf(r->err, r->errlen, "%s%s%s", where, where[0] ? ": " : "", why);
    return -1;
}

/* The member, or NULL when it is absent or null; -1 when required. */
static int member(struct jreader *r, const json_t *obj, const char *where, const char *key,
                  enum jr_need need, const json_t **out)
{
    const json_t *v = json_object_get(obj, key);
    *out = json_is_null(v) ? NULL : v;
    if (!*out && need == JR_REQUIRED)
        return jr_fail(r, where, "%s: %s", key, v ? "null" : "missing");
    return 0;
}

int jr_number(struct jreader *r, const json_t *obj, const char *where, const char *key, double lo,
              double hi, enum jr_need need, double *out)
{
    const json_t *v;
    *out = NAN;
    if (member(r, obj, where, key, need, &v) != 0)
        return -1;
    if (!v)
        return 0;
    if (!json_is_number(v))
        return jr_fail(r, where, "%s: not a number", key);
    double x = json_number_value(v);
    if (!isfinite(x) || x < lo || x > hi)
        return jr_fail(r, where, "%s: %g is out of range (%g .. %g)", key, x, lo, hi);
    *out = x;
    return 0;
}

int jr_int(struct jreader *r, const json_t *obj, const char *where, const char *key, int64_t lo,
           int64_t hi, enum jr_need need, int64_t *out)
{
    const json_t *v;
    *out = JR_ABSENT;
    if (member(r, obj, where, key, need, &v) != 0)
        return -1;
    if (!v)
        return 0;
    if (!json_is_integer(v))
        return jr_fail(r, where, "%s: not an integer", key);
    json_int_t x = json_integer_value(v);
    if (x < lo || x > hi)
        return jr_fail(r, where, "%s: %lld is out of range (%lld .. %lld)", key, (long long)x,
                       (long long)lo, (long long)hi);
    *out = (int64_t)x;
    return 0;
}

int jr_string(struct jreader *r, const json_t *obj, const char *where, const char *key,
              enum jr_need need, const char **out)
{
    const json_t *v;
    *out = NULL;
    if (member(r, obj, where, key, need, &v) != 0)
        return -1;
    if (v && !json_is_string(v))
        return jr_fail(r, where, "%s: not a string", key);
    *out = v ? json_string_value(v) : NULL;
    return 0;
}

int jr_bool(struct jreader *r, const json_t *obj, const char *where, const char *key,
            enum jr_need need, bool dflt, bool *out)
{
    const json_t *v;
    *out = dflt;
    if (member(r, obj, where, key, need, &v) != 0)
        return -1;
    if (v && !json_is_boolean(v))
        return jr_fail(r, where, "%s: not true or false", key);
    if (v)
        *out = json_is_true(v);
    return 0;
}

int jr_object(struct jreader *r, const json_t *obj, const char *where, const char *key,
              enum jr_need need, const json_t **out)
{
    if (member(r, obj, where, key, need, out) != 0)
        return -1;
    if (*out && !json_is_object(*out))
        return jr_fail(r, where, "%s: not an object", key);
    return 0;
}

int jr_array(struct jreader *r, const json_t *obj, const char *where, const char *key,
             enum jr_need need, size_t max, const json_t **out)
{
    if (member(r, obj, where, key, need, out) != 0)
        return -1;
    if (*out && !json_is_array(*out))
        return jr_fail(r, where, "%s: not an array", key);
    if (*out && json_array_size(*out) > max)
        return jr_fail(r, where, "%s: %zu entries, more than the %zu a report reads", key,
                       json_array_size(*out), max);
    return 0;
}
