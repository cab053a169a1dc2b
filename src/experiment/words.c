/*
 * The shell-like word splitter and quoter (words.h). The splitter is a
 * small state machine over the text: outside a word, in a word, in single
 * quotes, in double quotes; it never looks anything up, so the words are
 * exactly what the experiment file says.
 */
#include "experiment/words.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Ends the word in cur (length n) and stores a copy. */
static int push_word(struct words *w, const char *cur, size_t n, char *why, size_t whylen)
{
    if (!w->word && !(w->word = calloc(WORDS_MAX + 1, sizeof(*w->word)))) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    if (w->count == WORDS_MAX) {
        snprintf(why, whylen, "more than %d words", WORDS_MAX);
        return -1;
    }
    char *copy = malloc(n + 1);
    if (!copy) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    memcpy(copy, cur, n);
    copy[n] = '\0';
    w->word[w->count++] = copy;
    w->word[w->count] = NULL;
    return 0;
}

int words_split(const char *text, struct words *w, char *why, size_t whylen)
{
    w->count = 0;
    w->word = calloc(WORDS_MAX + 1, sizeof(*w->word));
    size_t len = strlen(text);
    char *cur = malloc(len + 1); /* a word is never longer than the text */
    if (!w->word || !cur) {
        free(cur);
        words_free(w);
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    enum { BETWEEN, WORD, SINGLE, DOUBLE } st = BETWEEN;
    size_t n = 0;
    int rc = 0;
    for (const char *s = text; rc == 0; s++) {
        char c = *s;
        if (st == SINGLE) {
            if (!c) {
                snprintf(why, whylen, "unterminated single quote");
                rc = -1;
            } else if (c == '\'') {
                st = WORD;
            } else {
                cur[n++] = c;
            }
        } else if (st == DOUBLE) {
            if (!c) {
                snprintf(why, whylen, "unterminated double quote");
                rc = -1;
            } else if (c == '"') {
                st = WORD;
            } else if (c == '\\' && s[1] && strchr("\"\\$`\n", s[1])) {
                if (s[1] != '\n')
                    cur[n++] = s[1];
                s++;
            } else {
                cur[n++] = c;
            }
        } else if (!c || is_blank(c)) {
            if (st == WORD)
                rc = push_word(w, cur, n, why, whylen);
            st = BETWEEN;
            n = 0;
            if (!c)
                break;
        } else if (c == '\\') {
            if (!s[1]) {
                snprintf(why, whylen, "ends with a backslash");
                rc = -1;
            } else if (s[1] == '\n') {
                s++; /* a line continuation joins, as in a shell */
            } else {
                cur[n++] = *++s;
                st = WORD;
            }
        } else if (c == '\'') {
            st = SINGLE;
        } else if (c == '"') {
            st = DOUBLE;
        } else {
            cur[n++] = c;
            st = WORD;
        }
    }
    free(cur);
    if (rc != 0)
        words_free(w);
    return rc;
}

int words_append(struct words *w, const char *word, char *why, size_t whylen)
{
    return push_word(w, word, strlen(word), why, whylen);
}

void words_free(struct words *w)
{
    if (w->word)
        for (int i = 0; i < w->count; i++)
            free(w->word[i]);
    free(w->word);
    w->word = NULL;
    w->count = 0;
}

static bool is_plain(const char *word)
{
    if (!*word)
        return false;
    for (const char *s = word; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-", *s))
            return false;
    return true;
}

void words_quote(const char *word, char *buf, size_t len)
{
    size_t used = strnlen(buf, len);
    if (used + 1 >= len)
        return;
    if (is_plain(word)) {
        snprintf(buf + used, len - used, "%s", word);
        return;
    }
    /* 'it'\''s': a single quote ends the quoted part, is escaped, resumes. */
    char *p = buf + used, *end = buf + len - 1;
    if (p < end)
        *p++ = '\'';
    for (const char *s = word; *s && p < end; s++) {
        if (*s == '\'') {
            for (const char *e = "'\\''"; *e && p < end; e++)
                *p++ = *e;
        } else {
            *p++ = *s;
        }
    }
    if (p < end)
        *p++ = '\'';
    *p = '\0';
}
