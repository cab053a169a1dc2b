/*
 * Redacting URL credentials (see redact.h). One pass over the text writes
 * it again with each secret replaced; run without an output it only says
 * whether anything would change, so that redacting twice changes nothing.
 */
#include "common/redact.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The query parameters that carry a secret (InfluxDB 1.x takes u and p). */
static const char *const secret_params[] = {"u", "p", "password", "token"};

struct pass {
    char *out; /* NULL: only look */
    size_t n;
    bool changed;
};

static void put(struct pass *ps, const char *s, size_t len)
{
    if (ps->out)
        memcpy(ps->out + ps->n, s, len);
    ps->n += len;
}

/* The secret s[0..len) becomes REDACTED. */
static void put_secret(struct pass *ps, const char *s, size_t len)
{
    if (len != strlen(REDACTED) || strncmp(s, REDACTED, len) != 0)
        ps->changed = true;
    put(ps, REDACTED, strlen(REDACTED));
}

static bool is_secret_param(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof secret_params / sizeof secret_params[0]; i++)
        if (strlen(secret_params[i]) == len && strncasecmp(name, secret_params[i], len) == 0)
            return true;
    return false;
}

/* One URL from just after its "://"; returns where it ends. */
static const char *take_url(struct pass *ps, const char *s)
{
    size_t auth = strcspn(s, "/?# \t\n");
    const char *at = NULL;
    for (const char *p = s; p < s + auth; p++)
        if (*p == '@')
            at = p; /* the last one: a password may hold '@' */
    if (at) {
        put_secret(ps, s, (size_t)(at - s));
        s = at;
    }
    size_t path = strcspn(s, "?# \t\n");
    put(ps, s, path);
    s += path;
    if (*s != '?')
        return s;
    put(ps, s++, 1);
    for (;;) {
        size_t param = strcspn(s, "&;# \t\n"), name = strcspn(s, "=&;# \t\n");
        if (name < param && is_secret_param(s, name)) {
            put(ps, s, name + 1);
            put_secret(ps, s + name + 1, param - name - 1);
        } else {
            put(ps, s, param);
        }
        s += param;
        if (*s != '&' && *s != ';')
            return s;
        put(ps, s++, 1);
    }
}

static void redact_pass(struct pass *ps, const char *text)
{
    const char *s = text;
    for (const char *u; (u = strstr(s, "://")) != NULL;) {
        put(ps, s, (size_t)(u + 3 - s));
        s = take_url(ps, u + 3);
    }
    put(ps, s, strlen(s) + 1);
}

bool redact_needed(const char *text)
{
    struct pass ps = {0};
    redact_pass(&ps, text);
    return ps.changed;
}

char *redact_dup(const char *text)
{
    struct pass ps = {0};
    redact_pass(&ps, text);
    if (!(ps.out = malloc(ps.n)))
        return NULL;
    ps.n = 0;
    redact_pass(&ps, text);
    return ps.out;
}

void redact_in_place(char *buf, size_t cap)
{
    if (cap == 0 || !redact_needed(buf))
        return;
    char *r = redact_dup(buf);
    if (r) {
        strncpy(buf, r, cap - 1);
        buf[cap - 1] = '\0';
    } else {
        buf[0] = '\0';
    }
    free(r);
}
