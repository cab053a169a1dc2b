/*
 * The Prometheus endpoint (see exporter.h).
 */
#include "export/exporter.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dynlib.h"
#include "export/host_port.h"
#include "export/mhd_api.h"
#include "export/prom_text.h"

#define EXPORTER_CONNECTIONS    64
#define EXPORTER_PER_ADDRESS    32
#define EXPORTER_TIMEOUT_S      10
#define EXPORTER_REQUEST_MEMORY (32 * 1024)

struct exporter {
    struct mhd_api mhd; /* libmicrohttpd, loaded by exporter_start */
    void *mhd_lib;
    struct MHD_Daemon *d;
    struct metrics *m;
    _Atomic uint64_t scrapes;
    _Atomic uint64_t refused;
};

int listen_addr_parse(const char *text, struct listen_addr *a, char *why, size_t whylen)
{
    memset(a, 0, sizeof(*a));
    char host[64];
    const char *port_text;
    long port;
    if (host_port_split(text, host, sizeof(host), &port_text) != 0) {
        snprintf(why, whylen, "%s",
                 text[0] == '[' ? "an IPv6 address is written [ADDR]:PORT" : "not [ADDR:]PORT");
        return -1;
    }
    if (port_parse(port_text, &port) != 0) {
        snprintf(why, whylen, "the port must be a number from 1 to 65535");
        return -1;
    }
    if (!host[0])
        snprintf(host, sizeof(host), "127.0.0.1");
    if (strcmp(host, "localhost") == 0)
        snprintf(host, sizeof(host), "127.0.0.1");
    struct sockaddr_in *v4 = (struct sockaddr_in *)&a->sa;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&a->sa;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        a->len = sizeof(*v4);
        snprintf(a->text, sizeof(a->text), "%s:%ld", host, port);
    } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        a->len = sizeof(*v6);
        snprintf(a->text, sizeof(a->text), "[%s]:%ld", host, port);
    } else {
        snprintf(why, whylen, "%s is not an IPv4 address, [IPv6] address or localhost", host);
        return -1;
    }
    return 0;
}

static const char home_page[] =
    "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>jitterlab</title></head>"
    "<body><h1>jitterlab</h1><p>Wake-up latency of this machine's real-time threads, for "
    "Prometheus: <a href=\"/metrics\">/metrics</a>.</p></body></html>\n";

static enum MHD_Result respond(const struct exporter *x, struct MHD_Connection *conn,
                               unsigned status, const char *type, void *body, size_t len,
                               enum MHD_ResponseMemoryMode mode)
{
    struct MHD_Response *r = x->mhd.create_response_from_buffer(len, body, mode);
    if (!r) {
        if (mode == MHD_RESPMEM_MUST_FREE)
            free(body);
        return MHD_NO;
    }
    x->mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        x->mhd.add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    enum MHD_Result ok = x->mhd.queue_response(conn, status, r);
    x->mhd.destroy_response(r);
    return ok;
}

static enum MHD_Result text_reply(const struct exporter *x, struct MHD_Connection *conn,
                                  unsigned status, const char *msg)
{
    return respond(x, conn, status, "text/plain; charset=utf-8", (void *)msg, strlen(msg),
                   MHD_RESPMEM_PERSISTENT);
}

static enum MHD_Result metrics_reply(struct exporter *x, struct MHD_Connection *conn)
{
    bool om = prom_accepts_openmetrics(
        x->mhd.lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT));
    struct metrics_cpu *cpus = malloc((size_t)x->m->ncpu * sizeof(*cpus));
    char *body = NULL;
    size_t len = 0;
    FILE *out = cpus ? open_memstream(&body, &len) : NULL;
    if (!out) {
        free(cpus);
        return text_reply(x, conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
    }
    struct metrics_config cfg;
    metrics_take(x->m, &cfg, cpus);
    int rc = prom_render(out, &cfg, cpus, x->m->ncpu, om);
    free(cpus);
    if (fclose(out) != 0 || rc != 0) {
        free(body);
        return text_reply(x, conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
    }
    atomic_fetch_add(&x->scrapes, 1);
    return respond(x, conn, MHD_HTTP_OK, om ? PROM_OPENMETRICS_CONTENT : PROM_TEXT_CONTENT_TYPE,
                   body, len, MHD_RESPMEM_MUST_FREE);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **req_cls)
{
    (void)version;
    (void)upload_data;
    struct exporter *x = cls;
    bool get = strcmp(method, MHD_HTTP_METHOD_GET) == 0;
    bool head = strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
    if (!get && !head) {
        atomic_fetch_add(&x->refused, 1);
        return text_reply(x, conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
    }
    if (*req_cls == NULL) { /* the headers are in; a body may follow */
        *req_cls = x;
        return MHD_YES;
    }
    if (*upload_data_size > 0) { /* a body on a GET means nothing: skipped */
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (strcmp(url, "/metrics") == 0 && head) /* no body: the max since the last scrape stays */
        return respond(x, conn, MHD_HTTP_OK, PROM_TEXT_CONTENT_TYPE, (void *)"", 0,
                       MHD_RESPMEM_PERSISTENT);
    if (strcmp(url, "/metrics") == 0)
        return metrics_reply(x, conn);
    if (strcmp(url, "/") == 0)
        return respond(x, conn, MHD_HTTP_OK, "text/html; charset=utf-8", (void *)home_page,
                       sizeof(home_page) - 1, MHD_RESPMEM_PERSISTENT);
    atomic_fetch_add(&x->refused, 1);
    return text_reply(x, conn, MHD_HTTP_NOT_FOUND, "not found; the metrics are at /metrics\n");
}

static void quiet_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    (void)fmt;
    (void)ap; /* a bad request is the client's problem, not the run's */
}

struct exporter *exporter_start(const struct listen_addr *a, struct metrics *m, char *err,
                                size_t errlen)
{
    struct exporter *x = calloc(1, sizeof(*x));
    if (!x) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    x->m = m;
    x->mhd_lib = mhd_api_load(&x->mhd, err, errlen);
    if (!x->mhd_lib) {
        free(x);
        return NULL;
    }
    /* The server's thread inherits this thread's CPUs and signal mask:
     * every signal stays with the collector. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
    if (a->sa.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    errno = 0;
    x->d = x->mhd.start_daemon(flags, 0, NULL, NULL, on_request, x, MHD_OPTION_SOCK_ADDR,
                               (const struct sockaddr *)&a->sa, MHD_OPTION_CONNECTION_LIMIT,
                               (unsigned)EXPORTER_CONNECTIONS, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
                               (unsigned)EXPORTER_PER_ADDRESS, MHD_OPTION_CONNECTION_TIMEOUT,
                               (unsigned)EXPORTER_TIMEOUT_S, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
                               (size_t)EXPORTER_REQUEST_MEMORY, MHD_OPTION_EXTERNAL_LOGGER,
                               quiet_log, NULL, MHD_OPTION_END);
    int e = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!x->d) {
        snprintf(err, errlen, "cannot listen on %s: %s", a->text,
                 e ? strerror(e) : "the HTTP server did not start");
        dynlib_close(x->mhd_lib);
        free(x);
        return NULL;
    }
    return x;
}

void exporter_counts(struct exporter *x, struct exporter_counts *out)
{
    out->scrapes = atomic_load(&x->scrapes);
    out->refused = atomic_load(&x->refused);
}

void exporter_stop(struct exporter *x)
{
    if (!x)
        return;
    x->mhd.stop_daemon(x->d);
    dynlib_close(x->mhd_lib);
    free(x);
}
