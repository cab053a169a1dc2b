/*
 * Result documents from text and from files (result_read.h): the text
 * parsed once, a file parsed as it is read, never past the size cap, and
 * the tree then read by result_read_tree.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/read_file.h"
#include "out/result_read.h"

int result_read_buffer(const char *text, size_t len, struct result_doc *doc, char *err,
                       size_t errlen)
{
    memset(doc, 0, sizeof *doc);
    if (len > RESULT_READ_MAX_BYTES) {
        snprintf(err, errlen, "document: larger than %u MiB", RESULT_READ_MAX_BYTES >> 20);
        return -1;
    }
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        snprintf(err, errlen, "document: not JSON (line %d: %s)", jerr.line, jerr.text);
        return -1;
    }
    int rc = result_read_tree(root, doc, err, errlen);
    json_decref(root);
    return rc;
}

/* The parser's source: the open file, cut off past the cap (a file that
 * grew after it was opened must not slip past it). */
struct capped_file {
    FILE *f;
    size_t left;
    bool over;
};

static size_t capped_read(void *buf, size_t len, void *arg)
{
    struct capped_file *c = arg;
    size_t got = fread(buf, 1, len, c->f);
    if (got > c->left) {
        c->over = true;
        return (size_t)-1;
    }
    c->left -= got;
    return got == 0 && ferror(c->f) ? (size_t)-1 : got;
}

json_t *result_load_file(const char *path, char *err, size_t errlen)
{
    size_t size;
    struct capped_file c = {open_input_file(path, RESULT_READ_MAX_BYTES, &size, err, errlen),
                            RESULT_READ_MAX_BYTES, false};
    if (!c.f)
        return NULL;
    json_error_t jerr;
    /* parsed from the stream: the text is never held beside its tree */
    json_t *root = json_load_callback(capped_read, &c, JSON_REJECT_DUPLICATES, &jerr);
    bool rd_err = ferror(c.f);
    fclose(c.f);
    if (root)
        return root;
    if (c.over)
        snprintf(err, errlen, "document: larger than %u MiB", RESULT_READ_MAX_BYTES >> 20);
    else if (rd_err)
        snprintf(err, errlen, "document: read error");
    else
        snprintf(err, errlen, "document: not JSON (line %d: %s)", jerr.line, jerr.text);
    return NULL;
}

int result_read_file(const char *path, struct result_doc *doc, char *err, size_t errlen)
{
    memset(doc, 0, sizeof *doc);
    json_t *root = result_load_file(path, err, errlen);
    if (!root)
        return -1;
    int rc = result_read_tree(root, doc, err, errlen);
    json_decref(root);
    return rc;
}
