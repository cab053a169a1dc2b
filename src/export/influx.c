/*
 * The InfluxDB output (see influx.h).
 */
#include "export/influx.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/atomic_file.h"
#include "common/clock.h"
#include "common/dynlib.h"
#include "common/redact.h"
#include "common/safe_text.h"
#include "common/units.h"
#include "export/curl_api.h"
#include "export/host_port.h"

#define INFLUX_BATCH_BYTES     (1024 * 1024) /* one drain pass's points */
#define INFLUX_QUEUE_BATCHES   16            /* HTTP: batches waiting for the server */
#define INFLUX_UDP_DATAGRAM    8192
#define INFLUX_HTTP_TIMEOUT_MS 5000
#define INFLUX_FLUSH_AT_END_NS (5 * NS_PER_S)

struct batch {
    char *text;
    size_t len;
    uint64_t points;
};

struct influx {
    struct influx_dest dest;
    char host[256]; /* escaped for a tag */
    bool with_deadline;
    struct batch open;
    struct influx_counts counts; /* the collector's; HTTP adds under lock */
    /* FILE */
    struct atomic_file file;
    bool file_open;
    /* UDP */
    int sock;
    /* HTTP */
    pthread_t thread;
    bool thread_started;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct batch queue[INFLUX_QUEUE_BATCHES];
    int q_head, q_len;
    bool stopping;
    int64_t give_up_ns;       /* at the end: the last moment to send */
    struct curl_api curl_api; /* libcurl, loaded for an HTTP destination only */
    void *curl_lib;
    CURL *curl;
    struct curl_slist *headers;
};

/* Line-protocol escaping, self-contained. A measurement escapes commas and
 * spaces; tag keys and values and field keys also equals signs; a string
 * field value double quotes and backslashes. Elsewhere a backslash is
 * literal, but where a reader would take it for an escape (before a comma,
 * equals sign, space or backslash, or last: a tag value may not end in
 * one) InfluxDB 1.x and 2.x disagree or refuse the line, so it is written
 * as the four characters \x5c. Line breaks cannot be written: dropped. A
 * character is written whole or not at all. */
size_t influx_escape(char *out, size_t len, const char *in, enum influx_part part)
{
    const char *special = part == INFLUX_MEASUREMENT ? ", " : part == INFLUX_KEY ? ",= " : "\"\\";
    size_t n = 0;
    for (; *in; in++) {
        char esc[5] = {*in, '\0'};
        if (*in == '\n' || *in == '\r')
            continue;
        if (part != INFLUX_STRING && *in == '\\' &&
            (in[1] == '\0' || in[1] == '\\' || strchr(", =", in[1])))
            memcpy(esc, "\\x5c", 5);
        else if (strchr(special, *in))
            esc[0] = '\\', esc[1] = *in, esc[2] = '\0';
        size_t k = strlen(esc);
        if (n + k >= len)
            break;
        memcpy(out + n, esc, k);
        n += k;
    }
    if (len)
        out[n] = '\0';
    return n;
}

int influx_dest_parse(const char *text, struct influx_dest *d, char *why, size_t whylen)
{
    memset(d, 0, sizeof(*d));
    snprintf(d->shown, sizeof(d->shown), "%s", text);
    redact_in_place(d->shown, sizeof(d->shown));
    if (strlen(text) >= sizeof(d->text)) {
        snprintf(why, whylen, "too long");
        return -1;
    }
    snprintf(d->text, sizeof(d->text), "%s", text);
    if (strncmp(text, "http://", 7) == 0 || strncmp(text, "https://", 8) == 0) {
        d->kind = INFLUX_HTTP;
        const char *host = strstr(text, "://") + 3;
        if (!*host || *host == '/') {
            snprintf(why, whylen, "no host in the URL");
            return -1;
        }
        return 0;
    }
    if (strncmp(text, "udp://", 6) == 0) {
        d->kind = INFLUX_UDP;
        char host[256];
        const char *port_text;
        long port;
        if (memchr(text + 6, '@', strcspn(text + 6, "/?#"))) {
            snprintf(why, whylen, "UDP takes no credentials: udp://HOST:PORT");
            return -1;
        }
        if (host_port_split(text + 6, host, sizeof(host), &port_text) != 0 || !host[0] ||
            !*port_text) {
            snprintf(why, whylen, "a UDP destination is udp://HOST:PORT");
            return -1;
        }
        if (port_parse(port_text, &port) != 0) {
            snprintf(why, whylen, "the port must be a number from 1 to 65535");
            return -1;
        }
        struct addrinfo hints = {.ai_socktype = SOCK_DGRAM}, *res = NULL;
        int rc = getaddrinfo(host, port_text, &hints, &res);
        if (rc != 0 || !res) {
            snprintf(why, whylen, "cannot resolve %s: %s", host, gai_strerror(rc));
            return -1;
        }
        memcpy(&d->sa, res->ai_addr, res->ai_addrlen);
        d->salen = res->ai_addrlen;
        freeaddrinfo(res);
        return 0;
    }
    if (strstr(text, "://")) {
        snprintf(why, whylen, "not a file, udp://HOST:PORT or http[s]://HOST:PORT/PATH");
        return -1;
    }
    d->kind = INFLUX_FILE;
    return 0;
}

/* Appends printf output to a line; false when it does not fit. */
static bool put(char *buf, size_t len, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool put(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
    if (*n >= len)
        return false;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *n, len - *n, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= len - *n)
        return false;
    *n += (size_t)w;
    return true;
}

size_t influx_window_line(char *buf, size_t len, const char *host, bool with_deadline,
                          const struct interval_stats *w, const struct latency_hist *h,
                          int64_t t_unix_ns)
{
    size_t n = 0;
    bool ok = put(buf, len, &n, "jitterlab,host=%s,cpu=%d samples=%llui,missed=%llui", host, w->cpu,
                  (unsigned long long)w->samples, (unsigned long long)w->missed);
    if (ok && w->latency.count)
        ok = put(buf, len, &n, ",min_ns=%lldi,mean_ns=%.1f,max_ns=%lldi", (long long)w->latency.min,
                 w->latency.mean, (long long)w->latency.max);
    if (ok && w->latency.count && h && h->count)
        ok = put(buf, len, &n, ",p50_ns=%lldi,p99_ns=%lldi,p999_ns=%lldi",
                 (long long)latency_hist_percentile(h, 50),
                 (long long)latency_hist_percentile(h, 99),
                 (long long)latency_hist_percentile(h, 99.9));
    if (ok && with_deadline) /* without a deadline no field: nothing was counted */
        ok = put(buf, len, &n, ",deadline_misses=%llui", (unsigned long long)w->deadline_misses);
    if (ok)
        ok = put(buf, len, &n, " %lld\n", (long long)t_unix_ns);
    return ok ? n : 0;
}

static bool float_field(char *buf, size_t len, size_t *n, bool *first, const char *key, double v)
{
    if (isnan(v) || isinf(v))
        return true;
    bool ok = put(buf, len, n, "%s%s=%.3f", *first ? " " : ",", key, v);
    *first = false;
    return ok;
}

static bool int_field(char *buf, size_t len, size_t *n, bool *first, const char *key, int64_t v)
{
    if (v < 0)
        return true;
    bool ok = put(buf, len, n, "%s%s=%lldi", *first ? " " : ",", key, (long long)v);
    *first = false;
    return ok;
}

size_t influx_telemetry_line(char *buf, size_t len, const char *host,
                             const struct telemetry_cpu_figures *f, int64_t t_unix_ns)
{
    size_t n = 0;
    bool first = true;
    bool ok = put(buf, len, &n, "jitterlab,host=%s,cpu=%d", host, f->cpu);
    size_t head = n;
    ok = ok && float_field(buf, len, &n, &first, "avg_mhz", f->avg_mhz) &&
         float_field(buf, len, &n, &first, "busy_pct", f->busy_pct) &&
         float_field(buf, len, &n, &first, "bzy_mhz", f->bzy_mhz) &&
         float_field(buf, len, &n, &first, "steal_pct", f->steal_pct) &&
         float_field(buf, len, &n, &first, "irq_pct", f->irq_pct) &&
         float_field(buf, len, &n, &first, "softirq_pct", f->softirq_pct) &&
         int_field(buf, len, &n, &first, "irqs", f->irqs) &&
         int_field(buf, len, &n, &first, "softirqs", f->softirqs) &&
         int_field(buf, len, &n, &first, "ctxt", f->ctxt) &&
         int_field(buf, len, &n, &first, "smi", f->smi) &&
         float_field(buf, len, &n, &first, "core_temp_c", f->core_temp_c) &&
         float_field(buf, len, &n, &first, "pkg_temp_c", f->pkg_temp_c) &&
         float_field(buf, len, &n, &first, "pkg_watts", f->pkg_watts);
    for (int k = 0; ok && k < f->nidle && k < CPUIDLE_MAX_STATES; k++) {
        char key[48], name[40], text[40];
        safe_text_term(text, sizeof text, f->idle[k].name); /* UTF-8, no control byte */
        influx_escape(name, sizeof(name), text, INFLUX_KEY);
        snprintf(key, sizeof(key), "%s_pct", name);
        ok = float_field(buf, len, &n, &first, key, f->idle[k].residency_pct);
    }
    if (!ok || n == head)
        return 0; /* nothing known this window */
    return put(buf, len, &n, " %lld\n", (long long)t_unix_ns) ? n : 0;
}

/* ---- destinations ------------------------------------------------------ */

static void add_line(struct influx *x, const char *line, size_t n)
{
    x->counts.points++;
    if (n == 0 || x->open.len + n > INFLUX_BATCH_BYTES) {
        x->counts.dropped++;
        return;
    }
    memcpy(x->open.text + x->open.len, line, n);
    x->open.len += n;
    x->open.points++;
}

void influx_window(struct influx *x, const struct interval_stats *w, const struct latency_hist *h,
                   int64_t t_unix_ns)
{
    char line[1024];
    size_t n = influx_window_line(line, sizeof(line), x->host, x->with_deadline, w, h, t_unix_ns);
    add_line(x, line, n);
}

void influx_telemetry(struct influx *x, const struct telemetry_cpu_figures *f, int64_t t_unix_ns)
{
    char line[2048];
    size_t n = influx_telemetry_line(line, sizeof(line), x->host, f, t_unix_ns);
    if (n)
        add_line(x, line, n);
}

static size_t curl_discard(char *p, size_t size, size_t n, void *ctx)
{
    (void)p;
    (void)ctx;
    return size * n;
}

/* One POST; true when the server took it (2xx). */
static bool http_post(struct influx *x, const struct batch *b, char *err, size_t errlen)
{
    const struct curl_api *c = &x->curl_api;
    c->easy_setopt(x->curl, CURLOPT_POSTFIELDS, b->text);
    c->easy_setopt(x->curl, CURLOPT_POSTFIELDSIZE, (long)b->len);
    CURLcode rc = c->easy_perform(x->curl);
    if (rc != CURLE_OK) {
        snprintf(err, errlen, "%s", c->easy_strerror(rc));
        return false;
    }
    long code = 0;
    c->easy_getinfo(x->curl, CURLINFO_RESPONSE_CODE, &code);
    if (code < 200 || code > 299) {
        snprintf(err, errlen, "the server answered HTTP %ld", code);
        return false;
    }
    return true;
}

static void *http_thread(void *arg)
{
    struct influx *x = arg;
    pthread_mutex_lock(&x->lock);
    for (;;) {
        while (x->q_len == 0 && !x->stopping)
            pthread_cond_wait(&x->wake, &x->lock);
        if (x->q_len == 0)
            break; /* stopping, everything sent */
        struct batch b = x->queue[x->q_head];
        x->q_head = (x->q_head + 1) % INFLUX_QUEUE_BATCHES;
        x->q_len--;
        bool late = x->stopping && monotonic_now_ns() > x->give_up_ns;
        pthread_mutex_unlock(&x->lock);
        char err[256] = "";
        bool ok = !late && http_post(x, &b, err, sizeof(err));
        if (late)
            snprintf(err, sizeof(err), "not sent before the end");
        free(b.text);
        pthread_mutex_lock(&x->lock);
        if (ok) {
            x->counts.sent += b.points;
        } else {
            x->counts.dropped += b.points;
            snprintf(x->counts.last_error, sizeof(x->counts.last_error), "%s", err);
        }
    }
    pthread_mutex_unlock(&x->lock);
    return NULL;
}

static void udp_send(struct influx *x)
{
    size_t off = 0;
    while (off < x->open.len) {
        /* a datagram ends at a line's end */
        size_t end =
            off + INFLUX_UDP_DATAGRAM < x->open.len ? off + INFLUX_UDP_DATAGRAM : x->open.len;
        while (end > off && x->open.text[end - 1] != '\n')
            end--;
        if (end == off)
            break;
        uint64_t lines = 0;
        for (size_t k = off; k < end; k++)
            lines += x->open.text[k] == '\n';
        if (send(x->sock, x->open.text + off, end - off, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
            x->counts.dropped += lines;
            snprintf(x->counts.last_error, sizeof(x->counts.last_error), "%s", strerror(errno));
        } else {
            x->counts.sent += lines;
        }
        off = end;
    }
}

void influx_flush(struct influx *x)
{
    if (x->open.len == 0)
        return;
    switch (x->dest.kind) {
    case INFLUX_FILE:
        if (x->file_open && fwrite(x->open.text, 1, x->open.len, x->file.fp) == x->open.len &&
            fflush(x->file.fp) == 0) {
            x->counts.sent += x->open.points;
        } else {
            x->counts.dropped += x->open.points;
            snprintf(x->counts.last_error, sizeof(x->counts.last_error), "%s",
                     x->file_open ? strerror(errno) : "not open");
        }
        break;
    case INFLUX_UDP:
        udp_send(x);
        break;
    case INFLUX_HTTP: {
        char *copy = malloc(x->open.len);
        pthread_mutex_lock(&x->lock);
        if (!copy || x->q_len == INFLUX_QUEUE_BATCHES) {
            x->counts.dropped += x->open.points; /* the server is slower than the run */
            snprintf(x->counts.last_error, sizeof(x->counts.last_error), "%s",
                     copy ? "queue full (server too slow or absent)" : "out of memory");
            free(copy);
        } else {
            memcpy(copy, x->open.text, x->open.len);
            x->queue[(x->q_head + x->q_len) % INFLUX_QUEUE_BATCHES] =
                (struct batch){copy, x->open.len, x->open.points};
            x->q_len++;
            pthread_cond_signal(&x->wake);
        }
        pthread_mutex_unlock(&x->lock);
        break;
    }
    }
    x->open.len = 0;
    x->open.points = 0;
}

static int open_file(struct influx *x, char *err, size_t errlen)
{
    bool empty;
    if (atomic_file_open_append(&x->file, x->dest.text, &empty) != 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    x->file_open = true;
    return 0;
}

int influx_reopen(struct influx *x, char *err, size_t errlen)
{
    if (x->dest.kind != INFLUX_FILE)
        return 0;
    if (x->file_open)
        atomic_file_commit(&x->file);
    x->file_open = false;
    return open_file(x, err, errlen);
}

static int open_http(struct influx *x, char *err, size_t errlen)
{
    x->curl_lib = curl_api_load(&x->curl_api, err, errlen);
    if (!x->curl_lib)
        return -1;
    const struct curl_api *c = &x->curl_api;
    x->curl = c->easy_init();
    if (!x->curl) {
        snprintf(err, errlen, "cannot set up libcurl");
        return -1;
    }
    x->headers = c->slist_append(NULL, "Content-Type: text/plain; charset=utf-8");
    const char *token = getenv("INFLUX_TOKEN");
    if (token && *token) {
        char h[1024];
        snprintf(h, sizeof(h), "Authorization: Token %s", token);
        x->headers = c->slist_append(x->headers, h);
    }
    c->easy_setopt(x->curl, CURLOPT_URL, x->dest.text);
    c->easy_setopt(x->curl, CURLOPT_HTTPHEADER, x->headers);
    c->easy_setopt(x->curl, CURLOPT_NOSIGNAL, 1L);
    c->easy_setopt(x->curl, CURLOPT_TIMEOUT_MS, (long)INFLUX_HTTP_TIMEOUT_MS);
    c->easy_setopt(x->curl, CURLOPT_CONNECTTIMEOUT_MS, 2000L);
    c->easy_setopt(x->curl, CURLOPT_WRITEFUNCTION, curl_discard);
    c->easy_setopt(x->curl, CURLOPT_PROTOCOLS_STR, "http,https");
    pthread_mutex_init(&x->lock, NULL);
    pthread_cond_init(&x->wake, NULL);
    /* the thread takes no signal: they stay with the collector */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&x->thread, NULL, http_thread, x);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the writer thread: %s", strerror(rc));
        return -1;
    }
    x->thread_started = true;
    return 0;
}

struct influx *influx_open(const struct influx_dest *d, const char *host, bool with_deadline,
                           char *err, size_t errlen)
{
    struct influx *x = calloc(1, sizeof(*x));
    if (x)
        x->open.text = malloc(INFLUX_BATCH_BYTES);
    if (!x || !x->open.text) {
        free(x);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    x->dest = *d;
    x->sock = -1;
    x->with_deadline = with_deadline;
    char host_text[sizeof x->host];
    safe_text_term(host_text, sizeof host_text, host ? host : ""); /* UTF-8, no control byte */
    if (influx_escape(x->host, sizeof(x->host), host_text, INFLUX_KEY) == 0)
        snprintf(x->host, sizeof(x->host), "unknown"); /* a tag value may not be empty */
    int rc = 0;
    if (d->kind == INFLUX_FILE) {
        rc = open_file(x, err, errlen);
    } else if (d->kind == INFLUX_UDP) {
        x->sock = socket(d->sa.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (x->sock < 0 || connect(x->sock, (const struct sockaddr *)&d->sa, d->salen) != 0) {
            snprintf(err, errlen, "%s", strerror(errno));
            rc = -1;
        }
    } else {
        rc = open_http(x, err, errlen);
    }
    if (rc != 0) {
        influx_close(x, NULL);
        return NULL;
    }
    return x;
}

void influx_close(struct influx *x, struct influx_counts *out)
{
    if (!x)
        return;
    influx_flush(x);
    if (x->thread_started) {
        pthread_mutex_lock(&x->lock);
        x->stopping = true;
        x->give_up_ns = monotonic_now_ns() + INFLUX_FLUSH_AT_END_NS;
        pthread_cond_signal(&x->wake);
        pthread_mutex_unlock(&x->lock);
        pthread_join(x->thread, NULL);
    }
    if (x->curl) {
        x->curl_api.easy_cleanup(x->curl);
        x->curl_api.slist_free_all(x->headers);
        pthread_mutex_destroy(&x->lock);
        pthread_cond_destroy(&x->wake);
    }
    dynlib_close(x->curl_lib);
    if (x->file_open)
        atomic_file_commit(&x->file);
    if (x->sock >= 0)
        close(x->sock);
    if (out)
        *out = x->counts;
    free(x->open.text);
    free(x);
}
