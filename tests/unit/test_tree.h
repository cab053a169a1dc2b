/*
 * Temporary sysroot trees for unit tests that need files the fixtures do
 * not have (garbage, missing pieces): a cmocka setup/teardown pair making and
 * removing a directory, and writers that create the parents of a file.
 * Include after <cmocka.h>.
 */
#ifndef JITTERLAB_TEST_TREE_H
#define JITTERLAB_TEST_TREE_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Writes root + rel (rel starts with '/'), creating the directories above. */
static inline void write_file(const char *root, const char *rel, const void *data, size_t len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s%s", root, rel);
    for (char *slash = strchr(path + strlen(root) + 1, '/'); slash;
         slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST)
            fail_msg("mkdir %s: %s", path, strerror(errno));
        *slash = '/';
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        fail_msg("open %s: %s", path, strerror(errno));
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    close(fd);
}

static inline void write_text(const char *root, const char *rel, const char *text)
{
    write_file(root, rel, text, strlen(text));
}

/* cmocka group/test setup: *state = a new empty directory under $TMPDIR. */
static inline int temp_tree_setup(void **state)
{
    const char *tmp = getenv("TMPDIR");
    char *root = malloc(PATH_MAX);
    if (!root)
        return -1;
    snprintf(root, PATH_MAX, "%s/jitterlab-tree.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root)) {
        free(root);
        return -1;
    }
    *state = root;
    return 0;
}

static inline int temp_tree_remove_entry(const char *path, const struct stat *st, int flag,
                                         struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static inline int temp_tree_teardown(void **state)
{
    char *root = *state;
    int rc = nftw(root, temp_tree_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(root);
    return rc;
}

#endif
