/*
 * HOST:PORT as the exporter's address and a UDP destination take it: HOST
 * a name, an IPv4 address or an [IPv6] address in brackets (or bare, the
 * port after its last colon). Pure.
 */
#ifndef JITTERLAB_EXPORT_HOST_PORT_H
#define JITTERLAB_EXPORT_HOST_PORT_H

#include <stddef.h>

/* Splits text into host (brackets removed; "" when text is only a port)
 * and *port_text (within text). 0, or -1 when brackets do not close before
 * ":PORT" or the host does not fit. */
int host_port_split(const char *text, char *host, size_t hostlen, const char **port_text);
/* A port number 1..65535, the whole text: 0, or -1. */
int port_parse(const char *text, long *port);

#endif
