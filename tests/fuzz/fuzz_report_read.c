/*
 * Fuzz target: the report's reader of run documents (src/out/report_read*.c)
 * and the page drawn from whatever it accepts (src/out/report_*.c, svg.c):
 * hostile numbers, strings and shapes must be refused or drawn, never read
 * out of bounds, and the page must end with its closing tag.
 */
#include "fuzz.h"

#include "out/report_html.h"

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
    char *page = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&page, &len);
    if (!f)
        abort();
    int rc = report_html_write(f, &in, NULL);
    fclose(f);
    if (rc == 0 && (len < 7 || !strstr(page + (len > 64 ? len - 64 : 0), "</html>")))
        abort();
    free(page);
    report_run_free(&run);
    return 0;
}
