/*
 * Atomic output files; see atomic_file.h for what each kind of target gets.
 * Used by every writer of an output file (run --json/--samples/
 * --histogram-file, inspect --json, load --json, the tune journal) so that
 * an interrupted or failed write never leaves a half-written result behind
 * and never turns /dev/null or a FIFO into a regular file. One resolver
 * serves the up-front check and the open, so they never disagree.
 */
#include "common/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SYMLINK_HOPS_MAX 40 /* the kernel's own limit */
#define TMP_NAME_TRIES   100

struct target {
    char path[4096]; /* symbolic links resolved, except /proc's magic ones */
    bool exists;
    struct stat st;
    int fd; /* >= 0: an open descriptor of ours the path names (/dev/stdout) */
};

static void dir_of(const char *path, char *buf, size_t len)
{
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s", path);
    snprintf(buf, len, "%s", dirname(tmp));
}

/* N when path is /proc/self/fd/N or /proc/<our pid>/fd/N, else -1. */
static int own_fd_of(const char *path)
{
    char self[64];
    const char *rest = NULL;
    snprintf(self, sizeof(self), "/proc/%ld/fd/", (long)getpid());
    if (strncmp(path, "/proc/self/fd/", 14) == 0)
        rest = path + 14;
    else if (strncmp(path, "/proc/thread-self/fd/", 21) == 0)
        rest = path + 21;
    else if (strncmp(path, self, strlen(self)) == 0)
        rest = path + strlen(self);
    if (!rest || !*rest)
        return -1;
    char *end;
    long n = strtol(rest, &end, 10);
    return *end == '\0' && n >= 0 && n < INT32_MAX ? (int)n : -1;
}

/* Follows symbolic links one hop at a time so that the file to replace is
 * the link's target, not the link. A link inside /proc (/dev/stdout ->
 * /proc/self/fd/1) is a descriptor, not a name to rename over: it ends the
 * walk. Returns 0 or -1 with errno set. */
static int resolve_target(const char *path, struct target *t)
{
    memset(t, 0, sizeof(*t));
    t->fd = -1;
    if (snprintf(t->path, sizeof(t->path), "%s", path) >= (int)sizeof(t->path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (int hop = 0; hop <= SYMLINK_HOPS_MAX; hop++) {
        if (lstat(t->path, &t->st) != 0) {
            if (errno != ENOENT)
                return -1;
            t->exists = false;
            return 0;
        }
        t->exists = true;
        if (!S_ISLNK(t->st.st_mode))
            return 0;
        if (strncmp(t->path, "/proc/", 6) == 0) {
            t->fd = own_fd_of(t->path);
            if (t->fd >= 0)
                return fstat(t->fd, &t->st);
            return stat(t->path, &t->st);
        }
        char link[4096];
        ssize_t n = readlink(t->path, link, sizeof(link) - 1);
        if (n < 0)
            return -1;
        link[n] = '\0';
        if (link[0] == '/') {
            snprintf(t->path, sizeof(t->path), "%s", link);
        } else {
            char dir[4096];
            dir_of(t->path, dir, sizeof(dir));
            if (snprintf(t->path, sizeof(t->path), "%s/%s", dir, link) >= (int)sizeof(t->path)) {
                errno = ENAMETOOLONG;
                return -1;
            }
        }
    }
    errno = ELOOP;
    return -1;
}

static bool is_stream(const struct target *t)
{
    return t->fd >= 0 || (t->exists && (S_ISFIFO(t->st.st_mode) || S_ISCHR(t->st.st_mode)));
}

/* Why the target cannot be written at all, or NULL. */
static const char *refused_kind(const struct target *t)
{
    if (!t->exists || t->fd >= 0)
        return NULL;
    if (S_ISDIR(t->st.st_mode))
        return "is a directory";
    if (S_ISSOCK(t->st.st_mode))
        return "is a socket";
    if (S_ISBLK(t->st.st_mode))
        return "is a block device";
    return NULL;
}

int atomic_file_check(const char *path, char *why, size_t whylen)
{
    struct target t;
    struct stat st;
    char dir[4096];
    if (!path[0]) {
        snprintf(why, whylen, "empty path");
        return -1;
    }
    if (resolve_target(path, &t) != 0) {
        snprintf(why, whylen, "%s", strerror(errno));
        return -1;
    }
    const char *refused = refused_kind(&t);
    if (refused) {
        snprintf(why, whylen, "%s", refused);
        return -1;
    }
    if (t.fd >= 0) {
        int fl = fcntl(t.fd, F_GETFL);
        if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
            snprintf(why, whylen, "descriptor %d is not open for writing", t.fd);
            return -1;
        }
        return 0;
    }
    if (is_stream(&t)) {
        if (access(t.path, W_OK) != 0) {
            snprintf(why, whylen, "not writable (%s)", strerror(errno));
            return -1;
        }
        return 0;
    }
    dir_of(t.path, dir, sizeof(dir));
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
    if (t.exists && access(t.path, W_OK) != 0) {
        snprintf(why, whylen, "file is not writable (%s)", strerror(errno));
        return -1;
    }
    /* access() says yes to root everywhere, even in /proc or /sys: create
     * (and remove) the temporary file the write will use, to know. */
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/.jitterlab-probe.XXXXXX", dir);
    int fd = mkstemp(probe);
    if (fd < 0) {
        snprintf(why, whylen, "cannot create a file in %s (%s)", dir, strerror(errno));
        return -1;
    }
    close(fd);
    unlink(probe);
    return 0;
}

static int open_stream(struct atomic_file *f, const struct target *t)
{
    /* what the program already printed (inspect's report) comes first when
     * the stream is our own stdout */
    fflush(stdout);
    int fd = t->fd >= 0 ? fcntl(t->fd, F_DUPFD_CLOEXEC, 3)
                        : open(t->path, O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    f->stream = true;
    f->tmp_path[0] = '\0';
    f->fp = fdopen(fd, "w");
    if (!f->fp) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return 0;
}

/* Creates ".BASE.XXXXXX" beside the target with O_EXCL and mode 0666, so
 * that the kernel applies the umask exactly as for any new file (mkstemp
 * would force 0600). */
static int create_temp(struct atomic_file *f)
{
    char dir[4096], base[4096], tmp[4096];
    dir_of(f->path, dir, sizeof(dir));
    snprintf(tmp, sizeof(tmp), "%s", f->path);
    snprintf(base, sizeof(base), "%s", basename(tmp));
    for (int i = 0; i < TMP_NAME_TRIES; i++) {
        uint32_t r;
        if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            r = (uint32_t)ts.tv_nsec ^ ((uint32_t)getpid() << 16) ^ (uint32_t)i;
        }
        int n = snprintf(f->tmp_path, sizeof(f->tmp_path), "%s/.%s.%06x", dir, base,
                         (unsigned)(r & 0xffffff));
        if (n < 0 || (size_t)n >= sizeof(f->tmp_path)) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(f->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

/* The replacement keeps what the user set on the old file: owner first
 * (chown clears set-id bits), then mode. Only root may give a file away;
 * anyone may keep a group they belong to, so failure to chown is not an
 * error, failure to chmod is. */
static int keep_owner_and_mode(int fd, const struct stat *old)
{
    if (old->st_uid != geteuid() || old->st_gid != getegid()) {
        if (fchown(fd, old->st_uid, old->st_gid) != 0)
            (void)!fchown(fd, (uid_t)-1, old->st_gid);
    }
    return fchmod(fd, old->st_mode & 07777);
}

int atomic_file_open(struct atomic_file *f, const char *path)
{
    struct target t;
    memset(f, 0, sizeof(*f));
    if (resolve_target(path, &t) != 0)
        return -1;
    if (refused_kind(&t)) {
        errno = S_ISDIR(t.st.st_mode) ? EISDIR : EINVAL;
        return -1;
    }
    snprintf(f->path, sizeof(f->path), "%s", t.path);
    if (is_stream(&t))
        return open_stream(f, &t);
    int fd = create_temp(f);
    if (fd < 0)
        return -1;
    if ((t.exists && keep_owner_and_mode(fd, &t.st) != 0) || !(f->fp = fdopen(fd, "w"))) {
        int saved = errno;
        close(fd);
        unlink(f->tmp_path);
        errno = saved;
        return -1;
    }
    return 0;
}

/* Makes the rename itself durable: without this a crash can bring back the
 * old file, or no file, although commit returned success. */
static int fsync_dir_of(const char *path)
{
    char dir[4096];
    dir_of(path, dir, sizeof(dir));
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    int saved = errno;
    close(fd);
    errno = saved;
    /* some file systems cannot sync a directory; the data is already there */
    return rc != 0 && errno != EINVAL && errno != EROFS ? -1 : 0;
}

int atomic_file_open_append(struct atomic_file *f, const char *path, bool *empty)
{
    memset(f, 0, sizeof(*f));
    f->stream = true;
    snprintf(f->path, sizeof(f->path), "%s", path);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0666);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || S_ISSOCK(st.st_mode) || S_ISBLK(st.st_mode)) {
        close(fd);
        errno = S_ISBLK(st.st_mode) ? ENOTSUP : EINVAL;
        return -1;
    }
    /* only a new file starts with a header: never the middle of a stream */
    *empty = S_ISREG(st.st_mode) && st.st_size == 0;
    f->fp = fdopen(fd, "a");
    if (!f->fp) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return 0;
}

int atomic_file_commit(struct atomic_file *f)
{
    int rc = 0;
    if (fflush(f->fp) != 0 || ferror(f->fp))
        rc = -1;
    /* a pipe or terminal cannot be synced; a stream's fsync is best effort */
    if (rc == 0 && !f->stream && fsync(fileno(f->fp)) != 0)
        rc = -1;
    int saved = errno;
    if (fclose(f->fp) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    f->fp = NULL;
    if (f->stream) {
        errno = saved;
        return rc;
    }
    if (rc == 0 && rename(f->tmp_path, f->path) != 0) {
        rc = -1;
        saved = errno;
    }
    if (rc != 0) {
        unlink(f->tmp_path);
    } else if (fsync_dir_of(f->path) != 0) {
        rc = -1;
        saved = errno;
    }
    errno = saved;
    return rc;
}

void atomic_file_abort(struct atomic_file *f)
{
    if (f->fp) {
        fclose(f->fp);
        f->fp = NULL;
        if (!f->stream)
            unlink(f->tmp_path);
    }
}
