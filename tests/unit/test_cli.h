/*
 * Helpers for the option-parser tests (test_*_cli.c): split a command line
 * into argv, and capture what a parser prints on stdout and stderr (the
 * descriptors are pointed at temporary files for the call).
 */
#ifndef JITTERLAB_TEST_CLI_H
#define JITTERLAB_TEST_CLI_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CLI_MAX_ARGS 48

/* "run -i 1ms" -> argv (words split at spaces; the storage is args's). */
struct cli_args {
    char text[1024];
    char *argv[CLI_MAX_ARGS + 1];
    int argc;
};

static inline char **cli_args_split(struct cli_args *a, const char *line)
{
    snprintf(a->text, sizeof(a->text), "%s", line);
    a->argc = 0;
    for (char *save = NULL, *w = strtok_r(a->text, " ", &save); w && a->argc < CLI_MAX_ARGS;
         w = strtok_r(NULL, " ", &save))
        a->argv[a->argc++] = w;
    a->argv[a->argc] = NULL;
    return a->argv;
}

struct cli_capture {
    FILE *out, *err;
    int saved_out, saved_err;
    char out_text[16384];
    char err_text[4096];
};

static inline void cli_capture_begin(struct cli_capture *c)
{
    fflush(stdout);
    fflush(stderr);
    c->out = tmpfile();
    c->err = tmpfile();
    c->saved_out = dup(STDOUT_FILENO);
    c->saved_err = dup(STDERR_FILENO);
    dup2(fileno(c->out), STDOUT_FILENO);
    dup2(fileno(c->err), STDERR_FILENO);
}

static inline void cli_read_all(FILE *f, char *buf, size_t len)
{
    rewind(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

static inline void cli_capture_end(struct cli_capture *c)
{
    fflush(stdout);
    fflush(stderr);
    dup2(c->saved_out, STDOUT_FILENO);
    dup2(c->saved_err, STDERR_FILENO);
    close(c->saved_out);
    close(c->saved_err);
    cli_read_all(c->out, c->out_text, sizeof(c->out_text));
    cli_read_all(c->err, c->err_text, sizeof(c->err_text));
}

/* A bad command line and the one message it must give (exit 2). */
struct cli_bad_case {
    const char *line;
    const char *message;
};

#endif
