/*
 * Words of a command line as a POSIX shell splits them, without any
 * expansion: blanks separate words, 'single quotes' keep everything,
 * "double quotes" keep everything but \" \\ \$ \` and \newline, a backslash
 * outside quotes keeps the next character. No variables, no globbing, no
 * command substitution: $, *, ~ and ` are plain characters. The experiment
 * file's `run` and `load` values are split with it; words_quote() writes a
 * word back so that a shell (and words_split) reads it unchanged.
 */
#ifndef JITTERLAB_EXPERIMENT_WORDS_H
#define JITTERLAB_EXPERIMENT_WORDS_H

#include <stddef.h>

/* More words than any jitterlab run command line needs. */
#define WORDS_MAX 256

struct words {
    int count;
    char **word; /* count entries and a NULL; each word its own allocation */
};

/* 0, or -1 with why ("unterminated double quote"); w is empty then. */
int words_split(const char *text, struct words *w, char *why, size_t whylen);
/* Appends a copy of word (w empty or from words_split). 0, or -1 with why. */
int words_append(struct words *w, const char *word, char *why, size_t whylen);
void words_free(struct words *w);
/* Appends word to buf (always terminated), quoted where a shell needs it. */
void words_quote(const char *word, char *buf, size_t len);

#endif
