/*
 * Fuzz target: the report's reader of c2c documents
 * (src/out/report_read_c2c.c) and the heat map drawn from whatever it
 * accepts (src/out/report_c2c.c): ragged or huge matrices, duplicate CPUs,
 * hostile numbers and strings must be refused or drawn, never read out of
 * bounds, and the page must end with its closing tag.
 */
#include "fuzz.h"

#include "fuzz_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct report_c2c c2c;
    char err[256] = "";
    if (report_c2c_read_buffer((const char *)data, size, &c2c, err, sizeof err) != 0) {
        if (!err[0])
            abort();
        return 0;
    }
    struct report_input in = {.nrun = 0, .version = "fuzz", .c2c = &c2c, .nc2c = 1};
    fuzz_draw_page(&in);
    report_c2c_free(&c2c);
    return 0;
}
