/*
 * Atomic output files: temp file beside the target, fsync, rename. See
 * atomic_file.h. Used by every writer so that an interrupted or failed run
 * never leaves a half-written result behind.
 */
#include "out/atomic_file.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void dir_of(const char *path, char *buf, size_t len)
{
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s", path);
    snprintf(buf, len, "%s", dirname(tmp));
}

int atomic_file_check(const char *path, char *why, size_t whylen)
{
    char dir[4096];
    struct stat st;
    if (!path[0]) {
        snprintf(why, whylen, "empty path");
        return -1;
    }
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(why, whylen, "is a directory");
        return -1;
    }
    dir_of(path, dir, sizeof(dir));
    if (stat(dir, &st) != 0) {
        snprintf(why, whylen, "directory %s does not exist", dir);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(why, whylen, "%s is not a directory", dir);
        return -1;
    }
    if (access(dir, W_OK) != 0) {
        snprintf(why, whylen, "directory %s is not writable (%s)", dir, strerror(errno));
        return -1;
    }
    if (access(path, F_OK) == 0 && access(path, W_OK) != 0) {
        snprintf(why, whylen, "file is not writable (%s)", strerror(errno));
        return -1;
    }
    return 0;
}

int atomic_file_open(struct atomic_file *f, const char *path)
{
    char dir[4096], base[4096], tmp[4096];
    memset(f, 0, sizeof(*f));
    snprintf(f->path, sizeof(f->path), "%s", path);
    dir_of(path, dir, sizeof(dir));
    snprintf(tmp, sizeof(tmp), "%s", path);
    snprintf(base, sizeof(base), "%s", basename(tmp));
    int n = snprintf(f->tmp_path, sizeof(f->tmp_path), "%s/.%s.XXXXXX", dir, base);
    if (n < 0 || (size_t)n >= sizeof(f->tmp_path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = mkstemp(f->tmp_path);
    if (fd < 0)
        return -1;
    fchmod(fd, 0644);
    f->fp = fdopen(fd, "w");
    if (!f->fp) {
        int saved = errno;
        close(fd);
        unlink(f->tmp_path);
        errno = saved;
        return -1;
    }
    return 0;
}

int atomic_file_commit(struct atomic_file *f)
{
    int rc = 0;
    if (fflush(f->fp) != 0 || ferror(f->fp) || fsync(fileno(f->fp)) != 0)
        rc = -1;
    int saved = errno;
    if (fclose(f->fp) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    f->fp = NULL;
    if (rc == 0 && rename(f->tmp_path, f->path) != 0) {
        rc = -1;
        saved = errno;
    }
    if (rc != 0)
        unlink(f->tmp_path);
    errno = saved;
    return rc;
}

void atomic_file_abort(struct atomic_file *f)
{
    if (f->fp) {
        fclose(f->fp);
        f->fp = NULL;
        unlink(f->tmp_path);
    }
}
