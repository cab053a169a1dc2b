/*
 * Fuzz target: the result-document reader (src/out/result_read.c). An
 * accepted run or noise document has bins that ascend and add up to the
 * samples (a noise document's gaps); a noise entry's noise lies within its
 * measured time and its windows are in time order.
 */
#include "fuzz.h"

#include "out/result_read.h"

static void check_cpu(const struct result_cpu *c)
{
    uint64_t total = c->overflow;
    for (int i = 0; i < c->nbins; i++) {
        if (c->bins[i].lo > c->bins[i].hi || (i > 0 && c->bins[i].lo <= c->bins[i - 1].hi))
            abort();
        total += c->bins[i].count;
    }
    if (total != c->samples)
        abort();
    const struct result_noise *n = &c->noise;
    if (n->present && (n->noise_ns > n->measured_ns || n->noise_ns < 0))
        abort();
    for (size_t i = 1; i < n->nwin; i++)
        if (n->win[i].t_s <= n->win[i - 1].t_s)
            abort();
    for (size_t i = 0; i < n->ncause; i++)
        if (!n->cause[i].name || n->cause[i].share < 0)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct result_doc doc;
    char err[256];
    if (result_read_buffer((const char *)data, size, &doc, err, sizeof err) == 0) {
        for (int i = 0; i < doc.ncpus; i++)
            check_cpu(&doc.cpus[i]);
        if (doc.ncpus)
            check_cpu(&doc.all);
        result_doc_free(&doc);
    } else if (!err[0]) {
        abort();
    }
    return 0;
}
