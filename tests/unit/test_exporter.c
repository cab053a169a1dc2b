/*
 * Unit tests for src/export/exporter.c: the listening addresses
 * --prometheus takes, and the server itself, started on 127.0.0.1 and
 * asked over plain sockets as a scraper or an abuser would: /metrics in
 * both formats, the home page, 404 and 405, a request too large for the
 * server's memory limit, the since-the-last-scrape maximum over HTTP, and
 * what exporter_counts counts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "common/units.h"
#include "export/exporter.h"
#include "export/prom_text.h"

/* ---- addresses ---------------------------------------------------------- */

static void expect_addr(const char *text, int family, uint16_t port, const char *shown)
{
    struct listen_addr a;
    char why[200] = "";
    if (listen_addr_parse(text, &a, why, sizeof(why)) != 0)
        fail_msg("'%s': refused: %s", text, why);
    assert_int_equal(a.sa.ss_family, family);
    if (family == AF_INET) {
        assert_int_equal(a.len, sizeof(struct sockaddr_in));
        assert_int_equal(ntohs(((struct sockaddr_in *)&a.sa)->sin_port), port);
    } else {
        assert_int_equal(a.len, sizeof(struct sockaddr_in6));
        assert_int_equal(ntohs(((struct sockaddr_in6 *)&a.sa)->sin6_port), port);
    }
    assert_string_equal(a.text, shown);
}

static void test_listen_addr_port_alone_is_loopback(void **state)
{
    (void)state;
    expect_addr("9808", AF_INET, 9808, "127.0.0.1:9808");
    struct listen_addr a;
    char why[200];
    assert_int_equal(listen_addr_parse("9808", &a, why, sizeof(why)), 0);
    assert_int_equal(ntohl(((struct sockaddr_in *)&a.sa)->sin_addr.s_addr), INADDR_LOOPBACK);
    expect_addr("1", AF_INET, 1, "127.0.0.1:1");
    expect_addr("65535", AF_INET, 65535, "127.0.0.1:65535");
}

static void test_listen_addr_ipv4_localhost_and_ipv6(void **state)
{
    (void)state;
    expect_addr("0.0.0.0:9100", AF_INET, 9100, "0.0.0.0:9100");
    expect_addr("192.168.1.20:9808", AF_INET, 9808, "192.168.1.20:9808");
    expect_addr("localhost:9808", AF_INET, 9808, "127.0.0.1:9808");
    expect_addr("[::1]:9808", AF_INET6, 9808, "[::1]:9808");
    expect_addr("[::]:9808", AF_INET6, 9808, "[::]:9808");
    expect_addr("[fe80::1]:80", AF_INET6, 80, "[fe80::1]:80");
    struct listen_addr a;
    char why[200];
    assert_int_equal(listen_addr_parse("[::1]:9808", &a, why, sizeof(why)), 0);
    assert_true(IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&a.sa)->sin6_addr));
}

static void test_listen_addr_refuses_bad_addresses_with_the_reason(void **state)
{
    (void)state;
    static const struct {
        const char *text, *why;
    } cases[] = {
        {"0", "the port must be a number from 1 to 65535"}, /* a scraper must know it */
        {"65536", "the port must be a number from 1 to 65535"},
        {"-1", "the port must be a number from 1 to 65535"},
        {"abc", "the port must be a number from 1 to 65535"},
        {"", "the port must be a number from 1 to 65535"},
        {"98o8", "the port must be a number from 1 to 65535"},
        {"127.0.0.1:", "the port must be a number from 1 to 65535"},
        {"127.0.0.1:0", "the port must be a number from 1 to 65535"},
        {"[::1]:", "the port must be a number from 1 to 65535"},
        {":9808", "not [ADDR:]PORT"},
        {"[::1]", "an IPv6 address is written [ADDR]:PORT"},
        {"[::1]9808", "an IPv6 address is written [ADDR]:PORT"},
        {"[::1:9808", "an IPv6 address is written [ADDR]:PORT"},
        {"example.com:9808", "example.com is not an IPv4 address, [IPv6] address or localhost"},
        {"300.1.1.1:9808", "300.1.1.1 is not an IPv4 address, [IPv6] address or localhost"},
        {"[nope]:9808", "nope is not an IPv4 address, [IPv6] address or localhost"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct listen_addr a;
        char why[200] = "";
        int rc = listen_addr_parse(cases[i].text, &a, why, sizeof(why));
        if (rc != -1 || strcmp(why, cases[i].why) != 0)
            fail_msg("'%s': rc %d, why '%s', want '%s'", cases[i].text, rc, why, cases[i].why);
    }
}

/* ---- the server --------------------------------------------------------- */

static const int test_cpus[] = {3, 5};

struct server {
    struct metrics m;
    struct exporter *x;
    uint16_t port;
};

/* A port free a moment ago: bound to port 0 and closed. */
static uint16_t free_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(s >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
    socklen_t len = sizeof(a);
    assert_int_equal(getsockname(s, (struct sockaddr *)&a, &len), 0);
    close(s);
    return ntohs(a.sin_port);
}

static int server_setup(void **state)
{
    struct server *s = calloc(1, sizeof(*s));
    assert_non_null(s);
    struct metrics_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    metrics_default_bounds(&cfg.bounds);
    snprintf(cfg.info.version, sizeof(cfg.info.version), "test");
    assert_int_equal(metrics_init(&s->m, &cfg, test_cpus, 2), 0);
    char err[300] = "";
    for (int attempt = 0; attempt < 3 && !s->x; attempt++) {
        s->port = free_port();
        char text[16];
        snprintf(text, sizeof(text), "%u", (unsigned)s->port);
        struct listen_addr a;
        char why[200];
        assert_int_equal(listen_addr_parse(text, &a, why, sizeof(why)), 0);
        s->x = exporter_start(&a, &s->m, err, sizeof(err)); /* taken meanwhile: again */
    }
    if (!s->x)
        fail_msg("exporter_start: %s", err);
    *state = s;
    return 0;
}

static int server_teardown(void **state)
{
    struct server *s = *state;
    exporter_stop(s->x);
    metrics_free(&s->m);
    free(s);
    return 0;
}

struct reply {
    int status; /* 0: the connection closed without a status line */
    char content_type[128];
    char *body;
    size_t body_len;
    char *raw;
};

static void reply_free(struct reply *r)
{
    free(r->raw);
    memset(r, 0, sizeof(*r));
}

static int connect_to(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct timeval tv = {.tv_sec = 10};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    struct sockaddr_in a = {
        .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    return fd;
}

/* Sends all of it; false when the server closed first. */
static bool send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* Reads until the server closes (requests say Connection: close). */
static void read_reply(int fd, struct reply *r)
{
    memset(r, 0, sizeof(*r));
    size_t cap = 65536, len = 0;
    r->raw = malloc(cap + 1);
    assert_non_null(r->raw);
    for (;;) {
        if (len == cap) {
            cap *= 2;
            r->raw = realloc(r->raw, cap + 1);
            assert_non_null(r->raw);
        }
        ssize_t n = recv(fd, r->raw + len, cap - len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* closed, reset or timed out */
        len += (size_t)n;
    }
    r->raw[len] = '\0';
    if (sscanf(r->raw, "HTTP/1.%*d %d", &r->status) != 1)
        r->status = 0;
    char *end = strstr(r->raw, "\r\n\r\n");
    if (!end)
        return;
    *end = '\0'; /* the headers end here */
    r->body = end + 4;
    r->body_len = len - (size_t)(r->body - r->raw);
    for (char *h = strstr(r->raw, "\r\n"); h; h = strstr(h + 2, "\r\n"))
        if (strncasecmp(h + 2, "Content-Type:", 13) == 0) {
            const char *v = h + 15;
            while (*v == ' ')
                v++;
            size_t l = strcspn(v, "\r");
            snprintf(r->content_type, sizeof(r->content_type), "%.*s", (int)l, v);
        }
}

static void request(struct server *s, const char *method, const char *path, const char *headers,
                    struct reply *r)
{
    int fd = connect_to(s->port);
    char req[1024];
    snprintf(req, sizeof(req), "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n%s\r\n",
             method, path, headers ? headers : "");
    assert_true(send_all(fd, req, strlen(req)));
    read_reply(fd, r);
    close(fd);
}

static bool body_has(const struct reply *r, const char *text)
{
    return r->body && strstr(r->body, text) != NULL;
}

static void test_exporter_serves_metrics_as_prometheus_text(void **state)
{
    struct server *s = *state;
    metrics_sample(&s->m, 0, 1000, 0, 0, false);
    metrics_sample(&s->m, 0, 5000, 0, 0, false);
    metrics_sample(&s->m, 1, 2000, 0, 0, false);
    metrics_publish(&s->m);
    struct reply r;
    request(s, "GET", "/metrics", NULL, &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.content_type, PROM_TEXT_CONTENT_TYPE);
    assert_string_equal(r.content_type, "text/plain; version=0.0.4; charset=utf-8");
    assert_true(body_has(&r, "\njitterlab_samples_total{cpu=\"3\"} 2\n"));
    assert_true(body_has(&r, "\njitterlab_samples_total{cpu=\"5\"} 1\n"));
    assert_true(
        body_has(&r, "\njitterlab_wakeup_latency_seconds_bucket{cpu=\"3\",le=\"1e-06\"} 1\n"));
    assert_true(body_has(&r, "\n# TYPE jitterlab_samples_total counter\n"));
    assert_false(body_has(&r, "# EOF"));
    assert_int_equal(r.body_len, strlen(r.body));
    reply_free(&r);
}

static void test_exporter_serves_openmetrics_when_asked(void **state)
{
    struct server *s = *state;
    metrics_sample(&s->m, 1, 1000, 0, 0, false);
    metrics_publish(&s->m);
    struct reply r;
    request(s, "GET", "/metrics", "Accept: application/openmetrics-text; version=1.0.0\r\n", &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.content_type, PROM_OPENMETRICS_CONTENT);
    assert_non_null(strstr(r.content_type, "application/openmetrics-text"));
    assert_true(body_has(&r, "\n# TYPE jitterlab_samples counter\n"));
    assert_true(body_has(&r, "\njitterlab_samples_total{cpu=\"5\"} 1\n"));
    assert_true(r.body_len >= 6);
    assert_string_equal(r.body + r.body_len - 6, "# EOF\n");
    reply_free(&r);
}

static void test_exporter_max_since_scrape_over_http(void **state)
{
    struct server *s = *state;
    metrics_sample(&s->m, 0, 7000, 0, 0, false);
    metrics_publish(&s->m);
    struct reply r;
    request(s, "GET", "/metrics", NULL, &r);
    assert_true(body_has(&r, "\njitterlab_wakeup_latency_max_seconds{cpu=\"3\"} 7e-06\n"));
    reply_free(&r);
    metrics_publish(&s->m); /* a drain pass without samples */
    request(s, "GET", "/metrics", NULL, &r);
    assert_true(body_has(&r, "\njitterlab_wakeup_latency_max_seconds{cpu=\"3\"} 0\n"));
    assert_true(body_has(&r, "\njitterlab_wakeup_latency_max_total_seconds{cpu=\"3\"} 7e-06\n"));
    reply_free(&r);
}

/* A HEAD /metrics delivers no body, so it must not take the maximum since
 * the previous scrape (nor count as a scrape): the next GET shows it. */
static void test_exporter_head_does_not_take_the_max_since_scrape(void **state)
{
    struct server *s = *state;
    metrics_sample(&s->m, 0, 9000, 0, 0, false);
    metrics_publish(&s->m);
    struct exporter_counts before, after;
    exporter_counts(s->x, &before);
    struct reply r;
    request(s, "HEAD", "/metrics", NULL, &r);
    assert_int_equal(r.status, 200);
    assert_true(r.body == NULL || r.body_len == 0);
    reply_free(&r);
    request(s, "GET", "/metrics", NULL, &r);
    int status = r.status;
    bool kept = body_has(&r, "\njitterlab_wakeup_latency_max_seconds{cpu=\"3\"} 9e-06\n");
    reply_free(&r);
    assert_int_equal(status, 200);
    assert_true(kept); /* fails: the HEAD took it */
    exporter_counts(s->x, &after);
    assert_int_equal(after.scrapes - before.scrapes, 1);
}

static void test_exporter_home_page_and_refusals(void **state)
{
    struct server *s = *state;
    struct reply r;
    request(s, "GET", "/", NULL, &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.content_type, "text/html; charset=utf-8");
    assert_true(body_has(&r, "<a href=\"/metrics\">"));
    reply_free(&r);

    request(s, "GET", "/nope", NULL, &r);
    assert_int_equal(r.status, 404);
    assert_true(body_has(&r, "/metrics"));
    reply_free(&r);

    request(s, "GET", "/metrics/", NULL, &r);
    assert_int_equal(r.status, 404);
    reply_free(&r);

    request(s, "POST", "/metrics", "Content-Length: 5\r\n", &r);
    assert_int_equal(r.status, 405);
    assert_non_null(strstr(r.raw, "\r\nAllow: GET, HEAD"));
    reply_free(&r);

    request(s, "DELETE", "/", NULL, &r);
    assert_int_equal(r.status, 405);
    reply_free(&r);
}

static void test_exporter_survives_a_huge_header_line(void **state)
{
    struct server *s = *state;
    size_t big = 100 * 1024;
    char *req = malloc(big + 256);
    assert_non_null(req);
    int head = snprintf(req, 256, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ");
    memset(req + head, 'a', big);
    memcpy(req + (size_t)head + big, "\r\nConnection: close\r\n\r\n", 24);
    int fd = connect_to(s->port);
    send_all(fd, req, strlen(req)); /* the server may close before the end */
    free(req);
    struct reply r;
    read_reply(fd, &r);
    close(fd);
    /* an error status, or the connection closed without one */
    if (r.status != 0 && r.status < 400)
        fail_msg("a 100 KB header line was answered %d", r.status);
    assert_false(body_has(&r, "jitterlab_samples_total"));
    reply_free(&r);

    /* and the next scraper is served */
    request(s, "GET", "/metrics", NULL, &r);
    assert_int_equal(r.status, 200);
    assert_true(body_has(&r, "jitterlab_samples_total"));
    reply_free(&r);
}

static void test_exporter_counts_scrapes_and_refusals(void **state)
{
    struct server *s = *state;
    struct exporter_counts c;
    exporter_counts(s->x, &c);
    assert_int_equal(c.scrapes, 0);
    assert_int_equal(c.refused, 0);
    struct reply r;
    for (int k = 0; k < 3; k++) {
        request(s, "GET", "/metrics", NULL, &r);
        assert_int_equal(r.status, 200);
        reply_free(&r);
    }
    request(s, "GET", "/", NULL, &r); /* neither */
    reply_free(&r);
    request(s, "GET", "/nope", NULL, &r);
    reply_free(&r);
    request(s, "POST", "/metrics", "Content-Length: 0\r\n", &r);
    reply_free(&r);
    exporter_counts(s->x, &c);
    assert_int_equal(c.scrapes, 3);
    assert_int_equal(c.refused, 2);
}

static void test_exporter_start_on_a_port_in_use_says_so(void **state)
{
    struct server *s = *state;
    struct listen_addr a;
    char text[16], why[200], err[300] = "";
    snprintf(text, sizeof(text), "%u", (unsigned)s->port);
    assert_int_equal(listen_addr_parse(text, &a, why, sizeof(why)), 0);
    struct exporter *second = exporter_start(&a, &s->m, err, sizeof(err));
    if (second) {
        exporter_stop(second);
        fail_msg("a second server on port %u started", (unsigned)s->port);
    }
    char want[64];
    snprintf(want, sizeof(want), "cannot listen on 127.0.0.1:%u: ", (unsigned)s->port);
    if (strncmp(err, want, strlen(want)) != 0)
        fail_msg("err '%s', want it to start '%s'", err, want);
    /* the first one still answers */
    struct reply r;
    request(s, "GET", "/metrics", NULL, &r);
    assert_int_equal(r.status, 200);
    reply_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_listen_addr_port_alone_is_loopback),
        cmocka_unit_test(test_listen_addr_ipv4_localhost_and_ipv6),
        cmocka_unit_test(test_listen_addr_refuses_bad_addresses_with_the_reason),
        cmocka_unit_test_setup_teardown(test_exporter_serves_metrics_as_prometheus_text,
                                        server_setup, server_teardown),
        cmocka_unit_test_setup_teardown(test_exporter_serves_openmetrics_when_asked, server_setup,
                                        server_teardown),
        cmocka_unit_test_setup_teardown(test_exporter_max_since_scrape_over_http, server_setup,
                                        server_teardown),
        cmocka_unit_test_setup_teardown(test_exporter_head_does_not_take_the_max_since_scrape,
                                        server_setup, server_teardown),
        cmocka_unit_test_setup_teardown(test_exporter_home_page_and_refusals, server_setup,
                                        server_teardown),
        cmocka_unit_test_setup_teardown(test_exporter_survives_a_huge_header_line, server_setup,
                                        server_teardown),
        cmocka_unit_test_setup_teardown(test_exporter_counts_scrapes_and_refusals, server_setup,
                                        server_teardown),
        cmocka_unit_test_setup_teardown(test_exporter_start_on_a_port_in_use_says_so, server_setup,
                                        server_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
