/*
 * Fuzz target: the report's reader of run documents (src/out/report_read*.c)
 * and the page drawn from whatever it accepts (src/out/report_*.c, svg.c):
 * hostile numbers, strings and shapes must be refused or drawn, never read
 * out of bounds, and the page must end with its closing tag.
 */
#include "fuzz.h"

#include "fuzz_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct report_run run;
    char err[256] = "";
    if (report_run_read_buffer((const char *)data, size, &run, err, sizeof err) != 0) {
        if (!err[0])
            abort();
        return 0;
    }
    snprintf(run.label, sizeof run.label, "fuzz <&>");
    struct report_input in = {.run = &run, .nrun = 1, .version = "fuzz"};
    fuzz_draw_page(&in);
    report_run_free(&run);
    return 0;
}
