/*
 * Checked reads of untrusted JSON for the report's readers: each getter
 * checks the type and the range of one member and, when it does not fit,
 * writes "where.key: why" into the reader's error text and returns -1, so
 * that a refused document names the exact place in the file. Absent
 * optional numbers read as NaN (doubles) or JR_ABSENT (integers).
 */
#ifndef JITTERLAB_OUT_REPORT_JSON_H
#define JITTERLAB_OUT_REPORT_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JR_ABSENT INT64_MIN

enum jr_need {
    JR_OPTIONAL, /* absent or null is fine */
    JR_REQUIRED, /* must be there, not null */
};

struct jreader {
    char *err;
    size_t errlen;
};

int jr_fail(struct jreader *r, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A number (integer or real) in [lo, hi]. */
int jr_number(struct jreader *r, const json_t *obj, const char *where, const char *key, double lo,
              double hi, enum jr_need need, double *out);
/* An integer in [lo, hi]. */
int jr_int(struct jreader *r, const json_t *obj, const char *where, const char *key, int64_t lo,
           int64_t hi, enum jr_need need, int64_t *out);
/* A string (NULL when optional and absent or null); the text stays owned
 * by the document. */
int jr_string(struct jreader *r, const json_t *obj, const char *where, const char *key,
              enum jr_need need, const char **out);
/* A boolean; absent or null optional ones read as dflt. */
int jr_bool(struct jreader *r, const json_t *obj, const char *where, const char *key,
            enum jr_need need, bool dflt, bool *out);
/* The member if it is an object (NULL when optional and absent or null). */
int jr_object(struct jreader *r, const json_t *obj, const char *where, const char *key,
              enum jr_need need, const json_t **out);
/* The member if it is an array of at most max entries (NULL when optional
 * and absent or null). */
int jr_array(struct jreader *r, const json_t *obj, const char *where, const char *key,
             enum jr_need need, size_t max, const json_t **out);

#endif
