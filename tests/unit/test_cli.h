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

/* Defines `static int parse(const char *line, struct cli_capture *cap)`:
 * runs PARSE_FN(argc, argv, PARAMS) on the words of line, capturing. */
#define CLI_DEFINE_PARSE(PARSE_FN, PARAMS)                                                         \
    static int parse(const char *line, struct cli_capture *cap)                                    \
    {                                                                                              \
        static struct cli_args a; /* params keep pointers into it */                               \
        char **argv = cli_args_split(&a, line);                                                    \
        cli_capture_begin(cap);                                                                    \
        int rc = PARSE_FN(a.argc, argv, PARAMS);                                                   \
        cli_capture_end(cap);                                                                      \
        return rc;                                                                                 \
    }

/* A bad command line and the one message it must give (exit 2). */
struct cli_bad_case {
    const char *line;
    const char *message;
};

/* Each case: exit 2, exactly its message on stderr, nothing on stdout.
 * Needs cmocka.h included first. */
static inline void cli_expect_bad_cases(int (*parse_fn)(const char *, struct cli_capture *),
                                        const struct cli_bad_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct cli_capture cap;
        int rc = parse_fn(cases[i].line, &cap);
        if (rc != 2 || strcmp(cap.err_text, cases[i].message) != 0 || cap.out_text[0])
            fail_msg("'%s': rc %d, stderr '%s', want '%s'", cases[i].line, rc, cap.err_text,
                     cases[i].message);
    }
}

#endif
