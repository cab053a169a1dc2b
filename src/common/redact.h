/*
 * Credentials out of what is recorded or printed: a URL given on a command
 * line (--influx http://user:pass@host/write?db=x&u=a&p=b) is copied into
 * result documents, experiment records, messages and reports, and none of
 * them may carry its secrets. Every URL in a text ("scheme://" anywhere, so
 * --influx=URL too) loses its user information ("***@") and the values of
 * its query parameters u, p, password and token ("p=***").
 */
#ifndef JITTERLAB_COMMON_REDACT_H
#define JITTERLAB_COMMON_REDACT_H

#include <stdbool.h>
#include <stddef.h>

#define REDACTED "***"

/* Whether text holds a secret not yet redacted. */
bool redact_needed(const char *text);
/* A heap copy of text with its secrets redacted (the caller frees it); NULL
 * only when out of memory. */
char *redact_dup(const char *text);
/* Redacts buf[cap] in place (cut to fit, always NUL-terminated; emptied
 * when out of memory rather than left holding a secret). */
void redact_in_place(char *buf, size_t cap);

#endif
