/*
 * Strings the machine hands us (thread names, IRQ names, hostnames, kernel
 * strings, file names) are bytes, not text: a process may name itself
 * anything. Two views of such bytes, used wherever they leave the program:
 *
 *   the text form (documents: JSON, journals, exporters): valid UTF-8 passes
 *   unchanged, each byte that is not part of a valid UTF-8 sequence becomes
 *   the four characters \xNN and a backslash becomes \\, so that the form is
 *   always valid UTF-8 and safe_text_decode gives back the original bytes;
 *
 *   the terminal form (what people read): printable characters pass, and
 *   control bytes (C0, DEL, C1 controls such as ESC) and bytes of no valid
 *   UTF-8 sequence are shown as \xNN, so that a name can neither move the
 *   cursor nor recolour the screen. Backslashes pass: the terminal form of
 *   raw bytes reads the same as their text form does.
 *
 * Both forms take at most SAFE_TEXT_GROWTH bytes per input byte.
 */
#ifndef JITTERLAB_COMMON_SAFE_TEXT_H
#define JITTERLAB_COMMON_SAFE_TEXT_H

#include <stddef.h>

#define SAFE_TEXT_GROWTH 4

/*
 * Writes the text form of s into out (len bytes), cut at a whole character
 * or escape if it does not fit; always terminated when len > 0. Returns
 * the length the whole form needs (as snprintf does).
 */
size_t safe_text(char *out, size_t len, const char *s);

/* The text form in a new allocation, or NULL when memory runs out. */
char *safe_text_dup(const char *s);

/*
 * The bytes a text form stands for, into out (len bytes, terminated; at
 * most strlen(s) + 1 are needed). A string that is not a text form (a
 * lone backslash, \x without two hex digits, \x00) is refused: returns -1.
 * Otherwise returns the number of bytes written, the terminator excluded.
 */
int safe_text_decode(const char *s, char *out, size_t len);

/*
 * Writes the terminal form of s into out (len bytes), cut at a whole
 * character or escape; returns out, so that it can be a printf argument.
 */
const char *safe_text_term(char *out, size_t len, const char *s);

/* Bytes that always hold the terminal form of a field of n bytes. */
#define SAFE_TEXT_TERM_LEN(n) ((n)*SAFE_TEXT_GROWTH + 1)

/* Length of the valid UTF-8 sequence at s (1-4), or 0 if s starts none. */
size_t safe_text_utf8_len(const unsigned char *s);

#endif
