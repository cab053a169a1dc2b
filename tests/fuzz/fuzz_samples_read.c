/*
 * Fuzz target: the samples file reader (src/out/samples_read.c). An
 * accepted file gives each CPU at most its rows and the reader's cap,
 * latencies of 0 .. 366 days, and rows that add up to the total.
 */
#include "fuzz.h"

#include "common/units.h"
#include "out/samples_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int cpus[] = {0, 1, 7};
    static const uint64_t expected[] = {SAMPLES_ANY_ROWS, SAMPLES_ANY_ROWS, 3};
    struct samples_data d;
    char err[256] = "";
    if (samples_data_init(&d, cpus, expected, 3, 4096, err, sizeof err) != 0)
        abort();
    FILE *f = fmemopen((void *)data, size, "r");
    if (!f) { /* an empty input: fmemopen refuses size 0 */
        samples_data_free(&d);
        return 0;
    }
    if (samples_read_stream(f, &d, 4096, err, sizeof err) == 0) {
        uint64_t rows = 0;
        for (size_t i = 0; i < d.ncpus; i++) {
            if (d.cpus[i].n > d.cpus[i].cap || d.cpus[i].n > 4096)
                abort();
            for (size_t k = 0; k < d.cpus[i].n; k++)
                if (d.cpus[i].latency_ns[k] < 0 || d.cpus[i].latency_ns[k] > DURATION_MAX_NS)
                    abort();
            rows += d.cpus[i].n;
        }
        if (rows != d.rows || d.cpus[2].n != 3)
            abort();
        samples_data_free(&d);
    } else if (!err[0] || d.cpus) {
        abort();
    }
    fclose(f);
    return 0;
}
