/*
 * Shared by the report fuzz targets: draws the page of what a reader
 * accepted and aborts when the writer reports success without a complete
 * page (one ending in its closing tag).
 */
#ifndef JITTERLAB_TESTS_FUZZ_REPORT_H
#define JITTERLAB_TESTS_FUZZ_REPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/report_html.h"

static inline void fuzz_draw_page(const struct report_input *in)
{
    char *page = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&page, &len);
    if (!f)
        abort();
    int rc = report_html_write(f, in, NULL);
    fclose(f);
    if (rc == 0 && (len < 7 || !strstr(page + (len > 64 ? len - 64 : 0), "</html>")))
        abort();
    free(page);
}

#endif
