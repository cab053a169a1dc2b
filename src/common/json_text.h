/*
 * JSON strings of machine strings: json_text_new stores the text form
 * (common/safe_text.h) of bytes that may be anything, so that a name that is
 * not UTF-8 is kept, escaped, instead of making json_string fail.
 */
#ifndef JITTERLAB_COMMON_JSON_TEXT_H
#define JITTERLAB_COMMON_JSON_TEXT_H

#include <jansson.h>

/* A JSON string of the text form of s (NULL reads as ""); never NULL. */
json_t *json_text_new(const char *s);

/* The same, or JSON null when s is NULL or empty. */
json_t *json_text_or_null(const char *s);

/* json_text_new of s with a URL's credentials shown as *** (a recorded
 * command line or destination). */
json_t *json_text_redacted(const char *s);

#endif
