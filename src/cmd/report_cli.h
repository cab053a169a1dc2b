/*
 * The options of `jitterlab report`, parsed without reading any file
 * (src/cmd/report.c), so that unit tests can call the parser.
 */
#ifndef JITTERLAB_CMD_REPORT_CLI_H
#define JITTERLAB_CMD_REPORT_CLI_H

#include "cmd/options.h"
#include "out/report_model.h"

#define REPORT_DEFAULT_OUTPUT "report.html"
#define REPORT_GROUP_TEXT     8192 /* bytes of one --group's list */

struct report_params {
    struct cli_common common; /* cpus: only these CPU sections; empty: every one */
    const char *output;       /* -o, default REPORT_DEFAULT_OUTPUT */
    const char *labels[REPORT_MAX_RESULTS];
    int nlabels;
    const char *compare_path;              /* --compare: a compare document */
    const char *inspect_path;              /* --inspect: an inspect document */
    const char *c2c_paths[REPORT_MAX_C2C]; /* --c2c: c2c documents */
    int nc2c;
    const char *svg_dir; /* --svg: every plot as a file in DIR */
    const char *title;   /* --title; NULL: "jitterlab report" */
    const char *files[REPORT_MAX_RESULTS];
    int nfiles;
    /* --group FILES: each result is the runs named, comma-separated */
    bool grouped;
    char group_text[REPORT_MAX_RESULTS][REPORT_GROUP_TEXT];
    const char *group_file[REPORT_MAX_RESULTS][REPORT_GROUP_MAX];
    int group_n[REPORT_MAX_RESULTS];
};

/* -1 to continue, or an exit code (the help text or the message printed). */
int report_parse_args(int argc, char **argv, struct report_params *p);

#endif
