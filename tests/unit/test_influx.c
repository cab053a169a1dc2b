/*
 * Unit tests for src/export/influx.c: the InfluxDB output. Which
 * destinations --influx takes (a file, udp://HOST:PORT, http[s]://) and
 * the reasons for the rest; the exact line of a report window and of a
 * telemetry window (field order, integer suffixes, nanosecond timestamps,
 * unknown figures left out); and the destinations themselves: a file
 * appended to and reopened after logrotate moved it, a UDP datagram per
 * flush, an HTTP server that is not there, with what influx_close counts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "common/units.h"
#include "export/influx.h"

/* ---- destinations ------------------------------------------------------- */

static void expect_escape(const char *in, enum influx_part part, const char *want)
{
    char out[128];
    influx_escape(out, sizeof out, in, part);
    if (strcmp(out, want) != 0)
        fail_msg("'%s': '%s', want '%s'", in, out, want);
}

static void test_influx_escape_per_part_of_the_line(void **state)
{
    (void)state;
    expect_escape("a,b c=d", INFLUX_MEASUREMENT, "a\\,b\\ c=d");
    expect_escape("a,b c=d", INFLUX_KEY, "a\\,b\\ c\\=d");
    expect_escape("say \"hi\" \\o/", INFLUX_STRING, "say \\\"hi\\\" \\\\o/");
    /* a backslash: literal, unless a reader would take it for an escape */
    expect_escape("a\\b", INFLUX_KEY, "a\\b");
    expect_escape("host\\", INFLUX_KEY, "host\\x5c");
    expect_escape("a\\,b", INFLUX_KEY, "a\\x5c\\,b");
    expect_escape("a\\ b", INFLUX_KEY, "a\\x5c\\ b");
    expect_escape("a\\=b", INFLUX_KEY, "a\\x5c\\=b");
    expect_escape("a\\\\b", INFLUX_KEY, "a\\x5c\\b");
    expect_escape("a\"b", INFLUX_KEY, "a\"b");
    expect_escape("line\nbreak\r", INFLUX_KEY, "linebreak");
    /* cut between whole characters only */
    char out[6];
    assert_int_equal(influx_escape(out, sizeof out, "abc\\", INFLUX_KEY), 3);
    assert_string_equal(out, "abc");
    assert_int_equal(influx_escape(out, sizeof out, "ab,c", INFLUX_KEY), 5);
    assert_string_equal(out, "ab\\,c");
}

static void test_influx_dest_file_is_anything_without_a_scheme(void **state)
{
    (void)state;
    struct influx_dest d;
    char why[300] = "";
    assert_int_equal(influx_dest_parse("/var/log/jitterlab.lp", &d, why, sizeof(why)), 0);
    assert_int_equal(d.kind, INFLUX_FILE);
    assert_string_equal(d.text, "/var/log/jitterlab.lp");
    assert_int_equal(influx_dest_parse("out.lp", &d, why, sizeof(why)), 0);
    assert_int_equal(d.kind, INFLUX_FILE);
    assert_string_equal(d.text, "out.lp");
}

static void test_influx_dest_udp_resolves_ipv4_and_ipv6(void **state)
{
    (void)state;
    struct influx_dest d;
    char why[300] = "";
    assert_int_equal(influx_dest_parse("udp://127.0.0.1:8089", &d, why, sizeof(why)), 0);
    assert_int_equal(d.kind, INFLUX_UDP);
    assert_int_equal(d.sa.ss_family, AF_INET);
    assert_int_equal(d.salen, sizeof(struct sockaddr_in));
    const struct sockaddr_in *v4 = (const struct sockaddr_in *)&d.sa;
    assert_int_equal(ntohs(v4->sin_port), 8089);
    assert_int_equal(ntohl(v4->sin_addr.s_addr), INADDR_LOOPBACK);

    assert_int_equal(influx_dest_parse("udp://[::1]:8089", &d, why, sizeof(why)), 0);
    assert_int_equal(d.kind, INFLUX_UDP);
    assert_int_equal(d.sa.ss_family, AF_INET6);
    const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)&d.sa;
    assert_int_equal(ntohs(v6->sin6_port), 8089);
    assert_true(IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr));
    assert_string_equal(d.text, "udp://[::1]:8089");
}

static void test_influx_dest_http_keeps_the_url(void **state)
{
    (void)state;
    struct influx_dest d;
    char why[300] = "";
    assert_int_equal(influx_dest_parse("http://127.0.0.1:8086/write?db=x", &d, why, sizeof(why)),
                     0);
    assert_int_equal(d.kind, INFLUX_HTTP);
    assert_string_equal(d.text, "http://127.0.0.1:8086/write?db=x");
    assert_int_equal(
        influx_dest_parse("https://influx.example.org:8086/api/v2/write?org=o&bucket=b", &d, why,
                          sizeof(why)),
        0);
    assert_int_equal(d.kind, INFLUX_HTTP);
    assert_string_equal(d.text, "https://influx.example.org:8086/api/v2/write?org=o&bucket=b");
}

static void test_influx_dest_refuses_bad_destinations_with_the_reason(void **state)
{
    (void)state;
    static const struct {
        const char *text, *why;
    } cases[] = {
        {"ftp://x", "not a file, udp://HOST:PORT or http[s]://HOST:PORT/PATH"},
        {"tcp://127.0.0.1:8094", "not a file, udp://HOST:PORT or http[s]://HOST:PORT/PATH"},
        {"http://", "no host in the URL"},
        {"https://", "no host in the URL"},
        {"http:///write?db=x", "no host in the URL"},
        {"udp://nohost", "a UDP destination is udp://HOST:PORT"},
        {"udp://", "a UDP destination is udp://HOST:PORT"},
        {"udp://:8089", "a UDP destination is udp://HOST:PORT"},
        {"udp://127.0.0.1:", "a UDP destination is udp://HOST:PORT"},
        {"udp://127.0.0.1:0", "the port must be a number from 1 to 65535"},
        {"udp://127.0.0.1:65536", "the port must be a number from 1 to 65535"},
        {"udp://127.0.0.1:89x", "the port must be a number from 1 to 65535"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct influx_dest d;
        char why[300] = "";
        int rc = influx_dest_parse(cases[i].text, &d, why, sizeof(why));
        if (rc != -1 || strcmp(why, cases[i].why) != 0)
            fail_msg("'%s': rc %d, why '%s', want '%s'", cases[i].text, rc, why, cases[i].why);
    }
    /* a path longer than the destination holds */
    char *longest = malloc(sizeof(((struct influx_dest *)0)->text) + 1);
    assert_non_null(longest);
    memset(longest, 'a', sizeof(((struct influx_dest *)0)->text));
    longest[sizeof(((struct influx_dest *)0)->text)] = '\0';
    struct influx_dest d;
    char why[300] = "";
    assert_int_equal(influx_dest_parse(longest, &d, why, sizeof(why)), -1);
    assert_string_equal(why, "too long");
    free(longest);
}

/* ---- lines -------------------------------------------------------------- */

#define T_NS INT64_C(1700000000123456789)

static struct latency_hist hist; /* about 30 KB: not on the stack */

/* CPU 2: latencies 10, 20, 30, 40, 100 ns (exact histogram buckets), 3
 * missed periods, one deadline miss. */
static void window_known(struct interval_stats *w, struct latency_hist *h)
{
    static const int64_t lat[] = {10, 20, 30, 40, 100};
    static const int64_t exec[] = {5, 5, 5, 5, 1000};
    static const uint32_t missed[] = {0, 2, 0, 1, 0};
    struct window_rules rules = {.interval_ns = NS_PER_MS, .deadline_ns = 500, .tolerance_ns = -1};
    window_reset(w, 2);
    latency_hist_init(h);
    for (size_t k = 0; k < sizeof(lat) / sizeof(lat[0]); k++) {
        struct window_sample s = {.latency_ns = lat[k],
                                  .exec_ns = exec[k],
                                  .period_ns = NS_PER_MS,
                                  .missed_before = missed[k]};
        window_add(w, &rules, &s);
        latency_hist_add(h, lat[k]);
    }
}

static void test_influx_window_line_exact(void **state)
{
    (void)state;
    struct interval_stats w;
    window_known(&w, &hist);
    char buf[1024];
    size_t n = influx_window_line(buf, sizeof(buf), "rig1", true, &w, &hist, T_NS);
    const char *want = "jitterlab,host=rig1,cpu=2 samples=5i,missed=3i,min_ns=10i,mean_ns=40.0,"
                       "max_ns=100i,p50_ns=30i,p99_ns=100i,p999_ns=100i,deadline_misses=1i "
                       "1700000000123456789\n";
    assert_string_equal(buf, want);
    assert_int_equal(n, strlen(want));
}

/* A run without a deadline counted no misses: its points carry no
 * deadline_misses field (not a 0 that reads as "none missed"). */
static void test_influx_window_line_without_deadline_has_no_deadline_field(void **state)
{
    (void)state;
    struct interval_stats w;
    struct window_rules rules = {.interval_ns = NS_PER_MS, .deadline_ns = 0, .tolerance_ns = -1};
    window_reset(&w, 1);
    latency_hist_init(&hist);
    struct window_sample s = {.latency_ns = 5 * NS_PER_MS, .period_ns = NS_PER_MS};
    window_add(&w, &rules, &s); /* far beyond any interval: still no miss */
    latency_hist_add(&hist, s.latency_ns);
    assert_int_equal(w.deadline_misses, 0);
    char buf[1024];
    influx_window_line(buf, sizeof(buf), "h", false, &w, &hist, 42);
    assert_string_equal(buf, "jitterlab,host=h,cpu=1 samples=1i,missed=0i,min_ns=5000000i,"
                             "mean_ns=5000000.0,max_ns=5000000i,p50_ns=5000000i,"
                             "p99_ns=5000000i,p999_ns=5000000i 42\n");
}

static void test_influx_window_line_percentiles_within_min_and_max(void **state)
{
    (void)state;
    struct interval_stats w;
    struct window_rules rules = {
        .interval_ns = NS_PER_MS, .deadline_ns = NS_PER_MS, .tolerance_ns = -1};
    window_reset(&w, 0);
    latency_hist_init(&hist);
    struct window_sample s = {.latency_ns = 12345, .period_ns = NS_PER_MS};
    window_add(&w, &rules, &s);
    latency_hist_add(&hist, 12345);
    char buf[1024];
    influx_window_line(buf, sizeof(buf), "h", true, &w, &hist, 42);
    assert_string_equal(buf, "jitterlab,host=h,cpu=0 samples=1i,missed=0i,min_ns=12345i,"
                             "mean_ns=12345.0,max_ns=12345i,p50_ns=12345i,p99_ns=12345i,"
                             "p999_ns=12345i,deadline_misses=0i 42\n");
    /* without the histogram: no percentiles, the rest stays */
    influx_window_line(buf, sizeof(buf), "h", true, &w, NULL, 42);
    assert_string_equal(buf, "jitterlab,host=h,cpu=0 samples=1i,missed=0i,min_ns=12345i,"
                             "mean_ns=12345.0,max_ns=12345i,deadline_misses=0i 42\n");
}

static void test_influx_window_with_only_missed_periods_has_no_latency_fields(void **state)
{
    (void)state;
    struct interval_stats w;
    window_reset(&w, 4);
    w.missed = 9;
    latency_hist_init(&hist);
    char buf[1024];
    size_t n = influx_window_line(buf, sizeof(buf), "rig1", true, &w, &hist, T_NS);
    const char *want = "jitterlab,host=rig1,cpu=4 samples=0i,missed=9i,deadline_misses=0i "
                       "1700000000123456789\n";
    assert_string_equal(buf, want);
    assert_int_equal(n, strlen(want));
    assert_null(strstr(buf, "min_ns"));
    assert_null(strstr(buf, "p99_ns"));
}

static void test_influx_window_line_that_does_not_fit_is_0(void **state)
{
    (void)state;
    struct interval_stats w;
    window_known(&w, &hist);
    char buf[1024];
    size_t full = influx_window_line(buf, sizeof(buf), "rig1", true, &w, &hist, T_NS);
    assert_true(full > 0);
    assert_int_equal(influx_window_line(buf, full, "rig1", true, &w, &hist, T_NS),
                     0); /* no NUL room */
    assert_int_equal(influx_window_line(buf, 30, "rig1", true, &w, &hist, T_NS), 0);
    assert_int_equal(influx_window_line(buf, full + 1, "rig1", true, &w, &hist, T_NS), full);
}

static void fig_unknown(struct telemetry_cpu_figures *f, int cpu)
{
    memset(f, 0, sizeof(*f));
    f->cpu = cpu;
    f->avg_mhz = f->busy_pct = f->bzy_mhz = f->tsc_mhz = NAN;
    f->steal_pct = f->irq_pct = f->softirq_pct = NAN;
    f->core_temp_c = f->pkg_temp_c = f->pkg_watts = NAN;
    f->smi = f->ctxt = f->irqs = f->softirqs = -1;
}

static void test_influx_telemetry_line_leaves_out_what_is_unknown(void **state)
{
    (void)state;
    struct telemetry_cpu_figures f;
    fig_unknown(&f, 1);
    f.avg_mhz = 2400.5;
    f.irqs = 1234;
    f.smi = 0; /* known and zero: written */
    f.pkg_watts = 15.25;
    f.nidle = 3;
    snprintf(f.idle[0].name, sizeof(f.idle[0].name), "POLL");
    f.idle[0].residency_pct = NAN;
    snprintf(f.idle[1].name, sizeof(f.idle[1].name), "C1");
    f.idle[1].residency_pct = 45.25;
    snprintf(f.idle[2].name, sizeof(f.idle[2].name), "C6 deep");
    f.idle[2].residency_pct = 10;
    char buf[2048];
    size_t n = influx_telemetry_line(buf, sizeof(buf), "rig1", &f, T_NS);
    const char *want = "jitterlab,host=rig1,cpu=1 avg_mhz=2400.500,irqs=1234i,smi=0i,"
                       "pkg_watts=15.250,C1_pct=45.250,C6\\ deep_pct=10.000 1700000000123456789\n";
    assert_string_equal(buf, want);
    assert_int_equal(n, strlen(want));
}

static void test_influx_telemetry_line_every_field_in_order(void **state)
{
    (void)state;
    struct telemetry_cpu_figures f;
    fig_unknown(&f, 3);
    f.avg_mhz = 1;
    f.busy_pct = 2;
    f.bzy_mhz = 3;
    f.tsc_mhz = 99; /* not a field */
    f.steal_pct = 4;
    f.irq_pct = 5;
    f.softirq_pct = 6;
    f.irqs = 7;
    f.softirqs = 8;
    f.ctxt = 9;
    f.smi = 10;
    f.core_temp_c = 11;
    f.pkg_temp_c = 12;
    f.pkg_watts = 13;
    char buf[2048];
    influx_telemetry_line(buf, sizeof(buf), "h", &f, 5);
    assert_string_equal(buf, "jitterlab,host=h,cpu=3 avg_mhz=1.000,busy_pct=2.000,bzy_mhz=3.000,"
                             "steal_pct=4.000,irq_pct=5.000,softirq_pct=6.000,irqs=7i,"
                             "softirqs=8i,ctxt=9i,smi=10i,core_temp_c=11.000,pkg_temp_c=12.000,"
                             "pkg_watts=13.000 5\n");
}

static void test_influx_telemetry_line_is_0_when_nothing_is_known(void **state)
{
    (void)state;
    struct telemetry_cpu_figures f;
    fig_unknown(&f, 1);
    char buf[2048] = "";
    assert_int_equal(influx_telemetry_line(buf, sizeof(buf), "rig1", &f, T_NS), 0);
    /* idle states whose residency is unknown are nothing either */
    f.nidle = 1;
    snprintf(f.idle[0].name, sizeof(f.idle[0].name), "C1");
    f.idle[0].residency_pct = NAN;
    assert_int_equal(influx_telemetry_line(buf, sizeof(buf), "rig1", &f, T_NS), 0);
    /* and a line that does not fit is 0 too */
    f.avg_mhz = 1000;
    assert_int_equal(influx_telemetry_line(buf, 20, "rig1", &f, T_NS), 0);
}

/* ---- the FILE destination ----------------------------------------------- */

static char *file_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    static char text[8192];
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static void window_line_for(char *buf, size_t len, const char *host, int64_t t)
{
    struct interval_stats w;
    window_known(&w, &hist);
    assert_true(influx_window_line(buf, len, host, true, &w, &hist, t) > 0);
}

static void test_influx_file_appends_reopens_and_counts(void **state)
{
    (void)state;
    char dir[] = "/tmp/jitterlab-influx-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256], moved[256], moved2[256];
    snprintf(path, sizeof(path), "%s/j.lp", dir);
    snprintf(moved, sizeof(moved), "%s/j.lp.1", dir);
    snprintf(moved2, sizeof(moved2), "%s/j.lp.2", dir);

    /* something there before: appended to, never replaced */
    FILE *pre = fopen(path, "w");
    assert_non_null(pre);
    fputs("old\n", pre);
    fclose(pre);

    struct influx_dest d;
    char why[300] = "";
    assert_int_equal(influx_dest_parse(path, &d, why, sizeof(why)), 0);
    char err[300] = "";
    struct influx *x = influx_open(&d, "my host,lab=1", true, err, sizeof(err));
    assert_non_null(x);
    struct interval_stats w;
    window_known(&w, &hist);

    /* the host's space, comma and equals sign are escaped in its tag */
    char l1[1024], l2[1024], l3[1024];
    window_line_for(l1, sizeof(l1), "my\\ host\\,lab\\=1", 1000);
    window_line_for(l2, sizeof(l2), "my\\ host\\,lab\\=1", 2000);
    window_line_for(l3, sizeof(l3), "my\\ host\\,lab\\=1", 3000);

    influx_window(x, &w, &hist, 1000);
    assert_string_equal(file_text(path), "old\n"); /* not before the flush */
    influx_flush(x);
    char want[4096];
    snprintf(want, sizeof(want), "old\n%s", l1);
    assert_string_equal(file_text(path), want);
    influx_flush(x); /* nothing new: nothing written */
    assert_string_equal(file_text(path), want);

    /* logrotate moves the file: what comes before the reopen goes with it */
    assert_int_equal(rename(path, moved), 0);
    influx_window(x, &w, &hist, 2000);
    influx_flush(x);
    snprintf(want, sizeof(want), "old\n%s%s", l1, l2);
    assert_string_equal(file_text(moved), want);
    assert_null(file_text(path));

    /* the reopen creates the file anew */
    assert_int_equal(influx_reopen(x, err, sizeof(err)), 0);
    assert_string_equal(file_text(path), "");
    influx_window(x, &w, &hist, 3000);
    influx_flush(x);
    assert_string_equal(file_text(path), l3);
    assert_string_equal(file_text(moved), want);

    /* a reopen that fails (a directory took the name): the points are lost
     * and counted */
    assert_int_equal(rename(path, moved2), 0);
    assert_int_equal(mkdir(path, 0700), 0);
    err[0] = '\0';
    assert_int_equal(influx_reopen(x, err, sizeof(err)), -1);
    assert_string_equal(err, "Is a directory");
    influx_window(x, &w, &hist, 4000);
    influx_flush(x);

    struct influx_counts c;
    memset(&c, 0xff, sizeof(c));
    influx_close(x, &c);
    assert_int_equal(c.points, 4);
    assert_int_equal(c.sent, 3);
    assert_int_equal(c.dropped, 1);
    assert_string_equal(c.last_error, "not open");
    assert_string_equal(file_text(moved2), l3);

    assert_int_equal(rmdir(path), 0);
    assert_int_equal(unlink(moved), 0);
    assert_int_equal(unlink(moved2), 0);
    assert_int_equal(rmdir(dir), 0);
}

static void test_influx_file_close_writes_what_is_left(void **state)
{
    (void)state;
    char dir[] = "/tmp/jitterlab-influx-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof(path), "%s/end.lp", dir);
    struct influx_dest d;
    char why[300] = "", err[300] = "";
    assert_int_equal(influx_dest_parse(path, &d, why, sizeof(why)), 0);
    struct influx *x = influx_open(&d, "", true, err, sizeof(err)); /* no host name: "unknown" */
    assert_non_null(x);
    struct interval_stats w;
    window_known(&w, &hist);
    influx_window(x, &w, &hist, 7);
    struct telemetry_cpu_figures f;
    fig_unknown(&f, 2);
    influx_telemetry(x, &f, 7); /* nothing known: not a point */
    f.busy_pct = 12.5;
    influx_telemetry(x, &f, 7);
    struct influx_counts c;
    influx_close(x, &c); /* without a flush */
    assert_int_equal(c.points, 2);
    assert_int_equal(c.sent, 2);
    assert_int_equal(c.dropped, 0);
    assert_string_equal(c.last_error, "");
    char l1[1024], want[2048];
    window_line_for(l1, sizeof(l1), "unknown", 7);
    snprintf(want, sizeof(want), "%sjitterlab,host=unknown,cpu=2 busy_pct=12.500 7\n", l1);
    assert_string_equal(file_text(path), want);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

static void test_influx_file_in_a_missing_directory_does_not_open(void **state)
{
    (void)state;
    struct influx_dest d;
    char why[300] = "", err[300] = "";
    assert_int_equal(influx_dest_parse("/nonexistent-dir-of-jitterlab/x.lp", &d, why, sizeof(why)),
                     0);
    assert_null(influx_open(&d, "h", true, err, sizeof(err)));
    assert_string_equal(err, "No such file or directory");
}

/* ---- UDP and HTTP ------------------------------------------------------- */

static void test_influx_udp_sends_a_datagram_per_flush(void **state)
{
    (void)state;
    int rx = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(rx >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(rx, (struct sockaddr *)&a, sizeof(a)), 0);
    socklen_t alen = sizeof(a);
    assert_int_equal(getsockname(rx, (struct sockaddr *)&a, &alen), 0);
    struct timeval tv = {.tv_sec = 5};
    setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

    char url[64];
    snprintf(url, sizeof(url), "udp://127.0.0.1:%u", (unsigned)ntohs(a.sin_port));
    struct influx_dest d;
    char why[300] = "", err[300] = "";
    assert_int_equal(influx_dest_parse(url, &d, why, sizeof(why)), 0);
    struct influx *x = influx_open(&d, "rig1", true, err, sizeof(err));
    assert_non_null(x);
    struct interval_stats w;
    window_known(&w, &hist);
    influx_window(x, &w, &hist, T_NS);
    w.cpu = 3;
    influx_window(x, &w, &hist, T_NS);
    influx_flush(x);

    char got[2048];
    ssize_t n = recv(rx, got, sizeof(got) - 1, 0);
    assert_true(n > 0);
    got[n] = '\0';
    char l1[1024], l2[1024], want[2048];
    window_line_for(l1, sizeof(l1), "rig1", T_NS);
    window_known(&w, &hist);
    w.cpu = 3;
    assert_true(influx_window_line(l2, sizeof(l2), "rig1", true, &w, &hist, T_NS) > 0);
    snprintf(want, sizeof(want), "%s%s", l1, l2);
    assert_string_equal(got, want);

    struct influx_counts c;
    influx_close(x, &c);
    assert_int_equal(c.points, 2);
    assert_int_equal(c.sent, 2);
    assert_int_equal(c.dropped, 0);
    close(rx);
}

static void test_influx_http_to_a_closed_port_counts_the_points_dropped(void **state)
{
    (void)state;
    /* a port nobody listens on: bound, then closed */
    int s = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(s >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
    socklen_t alen = sizeof(a);
    assert_int_equal(getsockname(s, (struct sockaddr *)&a, &alen), 0);
    close(s);

    char url[96];
    snprintf(url, sizeof(url), "http://127.0.0.1:%u/write?db=x", (unsigned)ntohs(a.sin_port));
    struct influx_dest d;
    char why[300] = "", err[300] = "";
    assert_int_equal(influx_dest_parse(url, &d, why, sizeof(why)), 0);
    struct influx *x = influx_open(&d, "rig1", true, err, sizeof(err));
    assert_non_null(x);
    struct interval_stats w;
    window_known(&w, &hist);
    influx_window(x, &w, &hist, 1);
    influx_window(x, &w, &hist, 2);
    influx_flush(x);
    influx_window(x, &w, &hist, 3);
    struct influx_counts c;
    influx_close(x, &c);
    assert_int_equal(c.points, 3);
    assert_int_equal(c.sent, 0);
    assert_int_equal(c.dropped, 3);
    assert_true(c.last_error[0] != '\0');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_influx_escape_per_part_of_the_line),
        cmocka_unit_test(test_influx_dest_file_is_anything_without_a_scheme),
        cmocka_unit_test(test_influx_dest_udp_resolves_ipv4_and_ipv6),
        cmocka_unit_test(test_influx_dest_http_keeps_the_url),
        cmocka_unit_test(test_influx_dest_refuses_bad_destinations_with_the_reason),
        cmocka_unit_test(test_influx_window_line_exact),
        cmocka_unit_test(test_influx_window_line_percentiles_within_min_and_max),
        cmocka_unit_test(test_influx_window_line_without_deadline_has_no_deadline_field),
        cmocka_unit_test(test_influx_window_with_only_missed_periods_has_no_latency_fields),
        cmocka_unit_test(test_influx_window_line_that_does_not_fit_is_0),
        cmocka_unit_test(test_influx_telemetry_line_leaves_out_what_is_unknown),
        cmocka_unit_test(test_influx_telemetry_line_every_field_in_order),
        cmocka_unit_test(test_influx_telemetry_line_is_0_when_nothing_is_known),
        cmocka_unit_test(test_influx_file_appends_reopens_and_counts),
        cmocka_unit_test(test_influx_file_close_writes_what_is_left),
        cmocka_unit_test(test_influx_file_in_a_missing_directory_does_not_open),
        cmocka_unit_test(test_influx_udp_sends_a_datagram_per_flush),
        cmocka_unit_test(test_influx_http_to_a_closed_port_counts_the_points_dropped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
