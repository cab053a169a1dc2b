/*
 * json_text_new (json_text.h): the text form of a machine string is always
 * valid UTF-8, so json_string can fail only for want of memory, and then the
 * document gets an empty string in place of the name rather than losing the
 * key (json_object_set_new with NULL drops it).
 */
#include "common/json_text.h"

#include <stdlib.h>

#include "common/redact.h"
#include "common/safe_text.h"

json_t *json_text_new(const char *s)
{
    char buf[256];
    size_t need = safe_text(buf, sizeof buf, s);
    json_t *j = NULL;
    if (need < sizeof buf) {
        j = json_string(buf);
    } else {
        char *copy = safe_text_dup(s);
        j = copy ? json_string(copy) : NULL;
        free(copy);
    }
    if (!j)
        j = json_string("");
    if (!j)
        abort(); /* no memory left for an empty string: nothing sane remains */
    return j;
}

json_t *json_text_or_null(const char *s)
{
    return s && s[0] ? json_text_new(s) : json_null();
}

json_t *json_text_redacted(const char *s)
{
    if (!redact_needed(s))
        return json_text_new(s);
    char *shown = redact_dup(s);
    json_t *r = json_text_new(shown ? shown : "");
    free(shown);
    return r;
}
