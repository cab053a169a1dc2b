/*
 * Text for many CPUs (see text_many.h). The top-N list is an insertion into
 * N slots, so a live view ranks 256 CPUs (or a c2c run 65280 pairs) without
 * a sort or an allocation. The strip's bands are fixed powers of a
 * latency a person recognises (10 µs, 50 µs, 100 µs, 1 ms) rather than a
 * split of the measured range: a strip of quiet CPUs stays quiet.
 */
#include "out/text_many.h"

#include <math.h>

#include "common/units.h"

void text_many_top_init(struct text_many_top *t, bool largest)
{
    t->largest = largest;
    t->n = 0;
}

static bool ranks_before(const struct text_many_top *t, double a, double b)
{
    return t->largest ? a > b : a < b;
}

void text_many_top_add(struct text_many_top *t, int idx, double value)
{
    if (isnan(value))
        return;
    if (t->n == TEXT_MANY_WORST && !ranks_before(t, value, t->value[t->n - 1]))
        return;
    int at = t->n < TEXT_MANY_WORST ? t->n++ : TEXT_MANY_WORST - 1;
    /* ties stay behind the earlier entries */
    while (at > 0 && ranks_before(t, value, t->value[at - 1])) {
        t->idx[at] = t->idx[at - 1];
        t->value[at] = t->value[at - 1];
        at--;
    }
    t->idx[at] = idx;
    t->value[at] = value;
}

void text_many_more(FILE *out, int more)
{
    if (more > 0)
        fprintf(out, "%d more CPU%s: --per-cpu prints all\n", more, more == 1 ? "" : "s");
}

static const int64_t band_below_ns[TEXT_MANY_BANDS - 1] = {10 * NS_PER_US, 50 * NS_PER_US,
                                                           100 * NS_PER_US, NS_PER_MS};
static const char band_char[TEXT_MANY_BANDS] = {'.', '-', '+', '*', '#'};
static const char *const band_label[TEXT_MANY_BANDS] = {"<10µs", "<50µs", "<100µs", "<1ms",
                                                        ">=1ms"};
static const char *const band_colour[TEXT_MANY_BANDS] = {"\033[32m", "\033[36m", "\033[33m",
                                                         "\033[35m", "\033[31m"};

int text_many_band(int64_t max_ns)
{
    if (max_ns < 0)
        return -1;
    int b = 0;
    while (b < TEXT_MANY_BANDS - 1 && max_ns >= band_below_ns[b])
        b++;
    return b;
}

char text_many_band_char(int band)
{
    return band < 0 || band >= TEXT_MANY_BANDS ? '?' : band_char[band];
}

static void end_line(struct text_strip *s)
{
    fputs(s->tty ? "\033[K\n" : "\n", s->out);
    s->lines++;
}

void text_strip_begin(struct text_strip *s, FILE *out, bool tty, const char *what)
{
    *s = (struct text_strip){.out = out, .tty = tty};
    fprintf(out, "  %s per CPU:", what);
    for (int b = 0; b < TEXT_MANY_BANDS; b++) {
        if (tty)
            fprintf(out, " %s%c\033[0m %s", band_colour[b], band_char[b], band_label[b]);
        else
            fprintf(out, " %c %s", band_char[b], band_label[b]);
    }
    fputs("  ? none", out);
    end_line(s);
}

void text_strip_cell(struct text_strip *s, int cpu, int64_t max_ns)
{
    if (s->cells == TEXT_MANY_STRIP_CELLS) {
        end_line(s);
        s->cells = 0;
    }
    if (s->cells == 0)
        fprintf(s->out, "%5d ", cpu);
    if (s->cells % 8 == 0)
        fputc(' ', s->out);
    int band = text_many_band(max_ns);
    if (s->tty && band >= 0)
        fprintf(s->out, "%s%c\033[0m", band_colour[band], band_char[band]);
    else
        fputc(text_many_band_char(band), s->out);
    s->cells++;
}

int text_strip_end(struct text_strip *s)
{
    if (s->cells > 0)
        end_line(s);
    s->cells = 0;
    return s->lines;
}
