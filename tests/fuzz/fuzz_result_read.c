/*
 * Fuzz target: the result-document reader (src/out/result_read.c). An
 * accepted run document has bins that ascend and add up to the samples.
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
