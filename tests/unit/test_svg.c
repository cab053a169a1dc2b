/*
 * The report's plotting primitives (src/out/svg_axis.c, src/out/svg.c):
 * log axes with decade ticks and unlabelled 2..9 ticks, linear axes in
 * 1-2-5 steps, the unit of duration labels chosen by range, single values,
 * empty, huge and tiny ranges, the text of every label; the escaping that
 * keeps document strings from turning into markup; and what a plot line
 * writes (nothing for no points, a dot for one, gaps at NaN).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "out/svg.h"
#include "out/svg_axis.h"

#define MICRO "\xc2\xb5"

/* The labels of the major ticks, joined by "|". */
static const char *major_labels(const struct axis *a)
{
    static char buf[4096];
    buf[0] = '\0';
    for (int i = 0; i < a->nticks; i++)
        if (a->tick[i].major) {
            if (buf[0])
                strcat(buf, "|");
            strcat(buf, a->tick[i].label);
        }
    return buf;
}

static int count_ticks(const struct axis *a, bool major)
{
    int n = 0;
    for (int i = 0; i < a->nticks; i++)
        n += a->tick[i].major == major;
    return n;
}

static void assert_ascending(const struct axis *a)
{
    for (int i = 1; i < a->nticks; i++)
        if (!(a->tick[i - 1].value < a->tick[i].value))
            fail_msg("tick %d (%g) not above tick %d (%g)", i, a->tick[i].value, i - 1,
                     a->tick[i - 1].value);
    assert_true(a->lo < a->hi);
    double slack = (a->hi - a->lo) * 1e-12;
    assert_true(a->tick[0].value >= a->lo - slack);
    assert_true(a->tick[a->nticks - 1].value <= a->hi + slack);
}

static void test_log_axis_decades_for_3us_to_20ms(void **state)
{
    (void)state;
    struct axis a;
    assert_int_equal(axis_log(&a, 3e3, 2e7, AXIS_FMT_NS), 0);
    assert_true(a.scale == AXIS_LOG);
    assert_true(a.lo == 1e3);
    assert_true(a.hi == 1e8);
    assert_string_equal(major_labels(&a),
                        "1 " MICRO "s|10 " MICRO "s|100 " MICRO "s|1 ms|10 ms|100 ms");
    assert_int_equal(count_ticks(&a, true), 6);
    assert_int_equal(count_ticks(&a, false), 5 * 8); /* 2..9 in each of 5 decades */
    assert_ascending(&a);
    /* the minor ticks are 2..9 times a decade, without labels */
    assert_true(a.tick[1].value == 2e3);
    assert_false(a.tick[1].major);
    assert_string_equal(a.tick[1].label, "");
    assert_true(a.tick[8].value == 9e3);
    assert_true(a.tick[9].value == 1e4);
    assert_true(a.tick[9].major);
    assert_string_equal(a.unit, ""); /* each log label has its own unit */
}

static void test_log_axis_exact_powers_stay_in_their_decade(void **state)
{
    (void)state;
    struct axis a;
    assert_int_equal(axis_log(&a, 1e3, 1e6, AXIS_FMT_NS), 0);
    assert_true(a.lo == 1e3 && a.hi == 1e6);
    assert_string_equal(major_labels(&a), "1 " MICRO "s|10 " MICRO "s|100 " MICRO "s|1 ms");
    assert_int_equal(axis_log(&a, 999, 1001, AXIS_FMT_NS), 0);
    assert_true(a.lo == 100 && a.hi == 1e4);
}

static void test_log_axis_labels_of_counts_and_shares(void **state)
{
    (void)state;
    struct axis a;
    assert_int_equal(axis_log(&a, 0.5, 123456, AXIS_FMT_POWER), 0);
    assert_string_equal(major_labels(&a),
                        "0.1|1|10|100|1000|10\xe2\x81\xb4|10\xe2\x81\xb5|10\xe2\x81\xb6");
    assert_int_equal(axis_log(&a, 1.0 / 978, 1, AXIS_FMT_POWER), 0);
    assert_true(a.lo == 1e-3 && a.hi == 1);
    assert_string_equal(major_labels(&a), "10\xe2\x81\xbb\xc2\xb3|0.01|0.1|1");
    /* seconds: 1e-9 s is 1 ns */
    assert_int_equal(axis_log(&a, 2e-9, 5, AXIS_FMT_S), 0);
    assert_string_equal(major_labels(&a), "1 ns|10 ns|100 ns|1 " MICRO "s|10 " MICRO "s|100 " MICRO
                                          "s|1 ms|10 ms|100 ms|1 s|10 s");
}

static void test_log_axis_single_value_gets_a_decade_either_side(void **state)
{
    (void)state;
    struct axis a;
    assert_int_equal(axis_log(&a, 1000, 1000, AXIS_FMT_NS), 0);
    assert_true(a.lo == 100 && a.hi == 1e4);
    assert_int_equal(axis_log(&a, 5, 5, AXIS_FMT_NS), 0);
    assert_true(a.lo == 1 && a.hi == 10);
    assert_string_equal(major_labels(&a), "1 ns|10 ns");
    assert_ascending(&a);
}

/* No data: the empty range of a histogram of 0 samples (lo = +inf, hi =
 * -inf), the exceedance axis of 0 samples (1/0 .. 1), zeros, NaN. */
static void test_log_axis_without_data_is_refused_but_drawable(void **state)
{
    (void)state;
    struct axis a;
    const double bad[][2] = {{0, 0},   {0, 10},       {-1, 10}, {INFINITY, -INFINITY},
                             {NAN, 1}, {1, INFINITY}, {10, 1},  {INFINITY, 1}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(axis_log(&a, bad[i][0], bad[i][1], AXIS_FMT_NS), -1);
        assert_true(a.lo == 1 && a.hi == 10);
        assert_true(a.nticks > 0);
        assert_ascending(&a);
    }
}

static void test_log_axis_huge_ranges_label_fewer_decades(void **state)
{
    (void)state;
    struct axis a;
    assert_int_equal(axis_log(&a, 1, 1e18, AXIS_FMT_POWER), 0);
    /* 18 decades: every second one labelled, no 2..9 ticks */
    assert_string_equal(major_labels(&a),
                        "1|100|10\xe2\x81\xb4|10\xe2\x81\xb6|10\xe2\x81\xb8|10\xc2\xb9\xe2\x81\xb0|"
                        "10\xc2\xb9\xc2\xb2|10\xc2\xb9\xe2\x81\xb4|10\xc2\xb9\xe2\x81\xb6|"
                        "10\xc2\xb9\xe2\x81\xb8");
    assert_int_equal(a.nticks, 19); /* the other decades unlabelled */
    assert_ascending(&a);
    assert_int_equal(axis_log(&a, 1e-300, 1e300, AXIS_FMT_POWER), 0);
    assert_true(a.nticks <= AXIS_MAX_TICKS);
    assert_int_equal(count_ticks(&a, true), 11); /* every 60 decades */
    assert_ascending(&a);
    /* beyond double's decades: clamped, still an axis */
    assert_int_equal(axis_log(&a, 4.9e-324, 1.7e308, AXIS_FMT_POWER), 0);
    assert_true(isfinite(a.lo) && isfinite(a.hi) && a.lo > 0);
    assert_ascending(&a);
}

static void test_log_axis_tiny_durations(void **state)
{
    (void)state;
    struct axis a;
    assert_int_equal(axis_log(&a, 2e-12, 5e-10, AXIS_FMT_NS), 0);
    assert_string_equal(major_labels(&a),
                        "10\xe2\x81\xbb\xc2\xb9\xc2\xb2 ns|10\xe2\x81\xbb\xc2\xb9\xc2\xb9 ns|"
                        "10\xe2\x81\xbb\xc2\xb9\xe2\x81\xb0 ns|10\xe2\x81\xbb\xe2\x81\xb9 ns");
}

static void test_linear_axis_125_steps_for_0_to_37(void **state)
{
    (void)state;
    struct axis a;
    assert_int_equal(axis_linear(&a, 0, 37, AXIS_FMT_NUMBER), 0);
    assert_true(a.scale == AXIS_LINEAR);
    assert_true(a.step == 5);
    assert_true(a.lo == 0 && a.hi == 40);
    assert_string_equal(major_labels(&a), "0|5|10|15|20|25|30|35|40");
    assert_int_equal(count_ticks(&a, false), 0);
    assert_ascending(&a);
    /* the other two steps of the 1-2-5 series */
    assert_int_equal(axis_linear(&a, 0, 15, AXIS_FMT_NUMBER), 0);
    assert_true(a.step == 2);
    assert_string_equal(major_labels(&a), "0|2|4|6|8|10|12|14|16");
    assert_int_equal(axis_linear(&a, 0, 0.37, AXIS_FMT_NUMBER), 0);
    assert_true(fabs(a.step - 0.05) < 1e-15);
    assert_string_equal(major_labels(&a), "0|0.05|0.10|0.15|0.20|0.25|0.30|0.35|0.40");
    assert_int_equal(axis_linear(&a, 0, 8, AXIS_FMT_NUMBER), 0);
    assert_true(a.step == 1);
}

static void test_linear_axis_negative_values_and_no_minus_zero(void **state)
{
    (void)state;
    struct axis a;
    assert_int_equal(axis_linear(&a, -3, 7, AXIS_FMT_NUMBER), 0);
    assert_true(a.step == 2 && a.lo == -4 && a.hi == 8);
    assert_string_equal(major_labels(&a), "-4|-2|0|2|4|6|8");
    assert_int_equal(axis_linear(&a, -0.3, 0.1, AXIS_FMT_NUMBER), 0);
    assert_string_equal(major_labels(&a), "-0.30|-0.25|-0.20|-0.15|-0.10|-0.05|0|0.05|0.10");
}

static void test_linear_axis_duration_unit_follows_the_range(void **state)
{
    (void)state;
    struct axis a;
    assert_int_equal(axis_linear(&a, 0, 250000, AXIS_FMT_NS), 0);
    assert_string_equal(a.unit, MICRO "s");
    assert_string_equal(major_labels(&a), "0|50|100|150|200|250");
    assert_int_equal(axis_linear(&a, 0, 800, AXIS_FMT_NS), 0);
    assert_string_equal(a.unit, "ns");
    assert_string_equal(major_labels(&a), "0|100|200|300|400|500|600|700|800");
    assert_int_equal(axis_linear(&a, 0, 3.5e6, AXIS_FMT_NS), 0);
    assert_string_equal(a.unit, "ms");
    assert_string_equal(major_labels(&a), "0|0.5|1.0|1.5|2.0|2.5|3.0|3.5");
    /* seconds given as seconds: a 2 s run, a 1 h run */
    assert_int_equal(axis_linear(&a, 0, 2.0018, AXIS_FMT_S), 0);
    assert_string_equal(a.unit, "s");
    assert_string_equal(major_labels(&a), "0|0.5|1.0|1.5|2.0|2.5");
    assert_int_equal(axis_linear(&a, 0, 3600, AXIS_FMT_S), 0);
    assert_string_equal(a.unit, "s");
    assert_string_equal(major_labels(&a), "0|500|1000|1500|2000|2500|3000|3500|4000");
    assert_int_equal(axis_linear(&a, 0, 0.004, AXIS_FMT_S), 0);
    assert_string_equal(a.unit, "ms");
    assert_string_equal(major_labels(&a), "0|0.5|1.0|1.5|2.0|2.5|3.0|3.5|4.0");
}

static void test_linear_axis_single_value(void **state)
{
    (void)state;
    struct axis a;
    assert_int_equal(axis_linear(&a, 37, 37, AXIS_FMT_NUMBER), 0);
    assert_true(a.lo < 37 && a.hi > 37);
    assert_true(a.step == 0.5);
    assert_string_equal(major_labels(&a), "35.0|35.5|36.0|36.5|37.0|37.5|38.0|38.5|39.0");
    assert_int_equal(axis_linear(&a, 0, 0, AXIS_FMT_NUMBER), 0);
    assert_true(a.lo == 0 && a.hi == 1);
    assert_int_equal(axis_linear(&a, -2, -2, AXIS_FMT_NUMBER), 0);
    assert_true(a.lo < -2 && a.hi > -2);
    assert_ascending(&a);
}

static void test_linear_axis_without_data_is_refused_but_drawable(void **state)
{
    (void)state;
    struct axis a;
    const double bad[][2] = {{INFINITY, -INFINITY}, {NAN, NAN}, {0, INFINITY}, {5, 1}, {-1e301, 0}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(axis_linear(&a, bad[i][0], bad[i][1], AXIS_FMT_NUMBER), -1);
        assert_true(a.lo == 0 && a.hi == 1);
        assert_true(a.nticks > 1);
        assert_ascending(&a);
    }
}

static void test_linear_axis_huge_and_tiny_ranges(void **state)
{
    (void)state;
    struct axis a;
    assert_int_equal(axis_linear(&a, 0, 1e15, AXIS_FMT_NUMBER), 0);
    assert_string_equal(major_labels(&a), "0|200T|400T|600T|800T|1000T");
    assert_int_equal(axis_linear(&a, 0, 37000, AXIS_FMT_NUMBER), 0);
    assert_string_equal(major_labels(&a), "0|5k|10k|15k|20k|25k|30k|35k|40k");
    assert_int_equal(axis_linear(&a, 0, 1e300, AXIS_FMT_NUMBER), 0);
    assert_true(isfinite(a.hi));
    assert_string_equal(a.tick[a.nticks - 1].label, "1e+300");
    assert_ascending(&a);
    assert_int_equal(axis_linear(&a, 0, 3e-9, AXIS_FMT_NUMBER), 0);
    assert_string_equal(major_labels(&a), "0|5e-10|1e-09|1.5e-09|2e-09|2.5e-09|3e-09");
    /* a range tiny against its values: one value */
    assert_int_equal(axis_linear(&a, 1e9, 1e9 + 1e-6, AXIS_FMT_NUMBER), 0);
    assert_true(a.lo < 1e9 && a.hi > 1e9);
    assert_ascending(&a);
    assert_int_equal(axis_linear(&a, 0, 0.5, AXIS_FMT_NS), 0);
    assert_string_equal(a.unit, "ns");
    assert_string_equal(major_labels(&a), "0|0.1|0.2|0.3|0.4|0.5");
}

static void test_axis_fraction(void **state)
{
    (void)state;
    struct axis a;
    axis_log(&a, 1e3, 1e6, AXIS_FMT_NS);
    assert_true(fabs(axis_fraction(&a, 1e3)) < 1e-12);
    assert_true(fabs(axis_fraction(&a, 1e4) - 1.0 / 3) < 1e-12);
    assert_true(fabs(axis_fraction(&a, 1e6) - 1) < 1e-12);
    assert_true(isinf(axis_fraction(&a, 0)) && axis_fraction(&a, 0) < 0);
    axis_linear(&a, 0, 37, AXIS_FMT_NUMBER);
    assert_true(fabs(axis_fraction(&a, 20) - 0.5) < 1e-12);
}

static void test_format_ns_for_tables(void **state)
{
    (void)state;
    static const struct {
        double ns;
        const char *text;
    } cases[] = {
        {0, "0 ns"},
        {850, "850 ns"},
        {999.4, "999 ns"},
        {999.6, "1.000 " MICRO "s"},
        {92927, "92.93 " MICRO "s"},
        {110335, "110.3 " MICRO "s"},
        {1798143, "1.798 ms"},
        {999999, "1.000 ms"},
        {2e9, "2.000 s"},
        {6e10, "60.00 s"},
        {3.6e12, "3600 s"},
        {-43000, "-43.00 " MICRO "s"},
        {NAN, "?"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[48];
        format_ns(cases[i].ns, buf, sizeof buf);
        if (strcmp(buf, cases[i].text) != 0)
            fail_msg("format_ns(%g) = '%s', want '%s'", cases[i].ns, buf, cases[i].text);
    }
    double scale;
    assert_string_equal(duration_unit(999, &scale), "ns");
    assert_true(scale == 1);
    assert_string_equal(duration_unit(1e3, &scale), MICRO "s");
    assert_string_equal(duration_unit(5e8, &scale), "ms");
    assert_string_equal(duration_unit(1e9, &scale), "s");
    assert_true(scale == 1e9);
}

/* What a function writes into a memory stream. */
static char captured[65536];

static FILE *capture_begin(void)
{
    memset(captured, 0, sizeof captured);
    FILE *f = fmemopen(captured, sizeof captured, "w");
    assert_non_null(f);
    return f;
}

static const char *capture_end(FILE *f)
{
    fclose(f);
    return captured;
}

static const char *escaped(const char *s, size_t max_chars)
{
    FILE *f = capture_begin();
    markup_escape(f, s, max_chars);
    return capture_end(f);
}

static void test_markup_escape_turns_markup_into_text(void **state)
{
    (void)state;
    assert_string_equal(escaped("<script>alert('x')</script>", 0),
                        "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
    assert_string_equal(escaped("a & b \"c\"", 0), "a &amp; b &quot;c&quot;");
    assert_string_equal(escaped("&amp;", 0), "&amp;amp;");
    assert_string_equal(escaped("]]><!--", 0), "]]&gt;&lt;!--");
    assert_string_equal(escaped("92 \xc2\xb5s", 0), "92 \xc2\xb5s"); /* UTF-8 kept */
    assert_string_equal(escaped("", 0), "");
    FILE *f = capture_begin();
    markup_escape(f, NULL, 0);
    assert_string_equal(capture_end(f), "");
}

static void test_markup_escape_replaces_what_xml_forbids(void **state)
{
    (void)state;
    /* controls but tab and newline, DEL, U+FFFE, U+FFFF, malformed UTF-8 */
    assert_string_equal(escaped("a\x01"
                                "b",
                                0),
                        "a\xef\xbf\xbd"
                        "b");
    assert_string_equal(escaped("t\tn\n", 0), "t\tn\n");
    assert_string_equal(escaped("\x1b[31m", 0), "\xef\xbf\xbd[31m");
    assert_string_equal(escaped("\x7f", 0), "\xef\xbf\xbd");
    assert_string_equal(escaped("\xef\xbf\xbe\xef\xbf\xbf", 0), "\xef\xbf\xbd\xef\xbf\xbd");
    assert_string_equal(escaped("\xff"
                                "x",
                                0),
                        "\xef\xbf\xbd"
                        "x");
    assert_string_equal(escaped("\xc3", 0), "\xef\xbf\xbd");                 /* cut sequence */
    assert_string_equal(escaped("\xc0\xbc", 0), "\xef\xbf\xbd\xef\xbf\xbd"); /* overlong '<' */
    assert_string_equal(escaped("\xed\xa0\x80", 0),
                        "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"); /* a surrogate */
}

static void test_markup_escape_cuts_at_characters(void **state)
{
    (void)state;
    assert_string_equal(escaped("abcdef", 3), "abc\xe2\x80\xa6");
    assert_string_equal(escaped("abc", 3), "abc");
    assert_string_equal(escaped("\xc2\xb5\xc2\xb5\xc2\xb5", 2), "\xc2\xb5\xc2\xb5\xe2\x80\xa6");
    assert_string_equal(escaped("<<<<", 2), "&lt;&lt;\xe2\x80\xa6");
    assert_int_equal(markup_chars("\xc2\xb5s"), 2);
    assert_int_equal(markup_chars("\xff\xfe"), 2);
    assert_int_equal(markup_chars(""), 0);
}

static void test_plot_paths_write_only_what_has_points(void **state)
{
    (void)state;
    struct svg_plot p;
    svg_plot_init(&p, 400, 200);
    axis_linear(&p.x, 0, 10, AXIS_FMT_NUMBER);
    axis_linear(&p.y, 0, 10, AXIS_FMT_NUMBER);
    struct svg_path l;
    FILE *f = capture_begin();
    svg_path_begin(&l, f, &p, "#123456", NULL, 1);
    assert_int_equal(svg_path_end(&l), 0);
    assert_string_equal(capture_end(f), "");

    f = capture_begin();
    svg_path_begin(&l, f, &p, "#123456", NULL, 1);
    svg_path_point(&l, 5, 5);
    assert_int_equal(svg_path_end(&l), 1);
    const char *out = capture_end(f);
    assert_non_null(strstr(out, "<circle"));
    assert_non_null(strstr(out, "fill=\"#123456\""));

    f = capture_begin();
    svg_path_begin(&l, f, &p, "#123456", "6 3", 1.5);
    svg_path_point(&l, 0, 0);
    svg_path_point(&l, 1, 1);
    svg_path_point(&l, 1.0001, 1.0001); /* under a quarter pixel: left out */
    svg_path_point(&l, NAN, NAN);
    svg_path_point(&l, 5, 5);
    svg_path_point(&l, 20, 20); /* beyond the axes: clamped into the area */
    assert_int_equal(svg_path_end(&l), 4);
    out = capture_end(f);
    assert_non_null(strstr(out, "<path fill=\"none\" stroke=\"#123456\""));
    assert_non_null(strstr(out, "stroke-dasharray=\"6 3\""));
    /* x 0 -> the area's left edge (70), y 0 -> its bottom (200 - 42) */
    assert_non_null(strstr(out, "d=\"M70.0 158.0 L"));
    assert_non_null(strstr(out, " M")); /* the NaN gap */
    assert_null(strstr(out, "nan"));
    /* the clamped last point: the area's top right corner (the top margin
     * is 30 until svg_plot_begin lays out a legend) */
    assert_non_null(strstr(out, "382.0 30.0\""));
}

static void test_plot_frame_escapes_titles_and_legend(void **state)
{
    (void)state;
    struct svg_plot p;
    svg_plot_init(&p, 400, 200);
    axis_log(&p.x, 1e3, 1e6, AXIS_FMT_NS);
    axis_linear(&p.y, 0, 37, AXIS_FMT_NUMBER);
    p.title = "CPU <1> & \"x\"";
    p.x_title = "latency";
    p.y_title = "count";
    svg_plot_legend(&p, "<script>alert(1)</script>", "#4e79a7", NULL);
    svg_plot_legend(&p, "mean", "#777", "6 3");
    FILE *f = capture_begin();
    svg_plot_begin(f, &p, false);
    svg_plot_end(f);
    const char *out = capture_end(f);
    assert_true(strncmp(out, "<svg ", 5) == 0);
    assert_null(strstr(out, "xmlns")); /* inline: the HTML parser knows SVG */
    assert_null(strstr(out, "<script"));
    assert_non_null(strstr(out, "&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert_non_null(strstr(out, "CPU &lt;1&gt; &amp; &quot;x&quot;"));
    assert_non_null(strstr(out, ">100 " MICRO "s<"));
    assert_non_null(strstr(out, ">35<"));
    assert_non_null(strstr(out, "stroke-dasharray=\"6 3\""));
    assert_true(p.top > 30); /* room for the legend */
    assert_non_null(strstr(out, "</svg>\n"));
    f = capture_begin();
    svg_plot_begin(f, &p, true);
    svg_plot_end(f);
    out = capture_end(f);
    assert_true(strncmp(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=", 50) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_log_axis_decades_for_3us_to_20ms),
        cmocka_unit_test(test_log_axis_exact_powers_stay_in_their_decade),
        cmocka_unit_test(test_log_axis_labels_of_counts_and_shares),
        cmocka_unit_test(test_log_axis_single_value_gets_a_decade_either_side),
        cmocka_unit_test(test_log_axis_without_data_is_refused_but_drawable),
        cmocka_unit_test(test_log_axis_huge_ranges_label_fewer_decades),
        cmocka_unit_test(test_log_axis_tiny_durations),
        cmocka_unit_test(test_linear_axis_125_steps_for_0_to_37),
        cmocka_unit_test(test_linear_axis_negative_values_and_no_minus_zero),
        cmocka_unit_test(test_linear_axis_duration_unit_follows_the_range),
        cmocka_unit_test(test_linear_axis_single_value),
        cmocka_unit_test(test_linear_axis_without_data_is_refused_but_drawable),
        cmocka_unit_test(test_linear_axis_huge_and_tiny_ranges),
        cmocka_unit_test(test_axis_fraction),
        cmocka_unit_test(test_format_ns_for_tables),
        cmocka_unit_test(test_markup_escape_turns_markup_into_text),
        cmocka_unit_test(test_markup_escape_replaces_what_xml_forbids),
        cmocka_unit_test(test_markup_escape_cuts_at_characters),
        cmocka_unit_test(test_plot_paths_write_only_what_has_points),
        cmocka_unit_test(test_plot_frame_escapes_titles_and_legend),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
