/*
 * HOST:PORT (see host_port.h).
 */
#include "export/host_port.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int copy_host(char *host, size_t hostlen, const char *from, size_t n)
{
    if (n >= hostlen)
        return -1;
    memcpy(host, from, n);
    host[n] = '\0';
    return 0;
}

int host_port_split(const char *text, char *host, size_t hostlen, const char **port_text)
{
    host[0] = '\0';
    *port_text = text;
    if (text[0] == '[') {
        const char *close = strchr(text, ']');
        if (!close || close[1] != ':')
            return -1;
        *port_text = close + 2;
        return copy_host(host, hostlen, text + 1, (size_t)(close - text - 1));
    }
    const char *colon = strrchr(text, ':');
    if (!colon)
        return 0;
    *port_text = colon + 1;
    return colon == text ? -1 : copy_host(host, hostlen, text, (size_t)(colon - text));
}

int port_parse(const char *text, long *port)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (!*text || *end || errno || v < 1 || v > 65535)
        return -1;
    *port = v;
    return 0;
}
