/*
 * Directories and mounts for the journal: the machine's mkdir and rmdir of
 * a resctrl group (in the parent directory opened beneath the sysroot, no
 * symlink followed) and its mount and umount of resctrl (only on the live
 * machine: a fixture tree has nothing to mount). The undo of a step that
 * never happened is no error, so that a restore after a crash between the
 * journal and the step comes out clean.
 */
#include "tune/tune_dirs.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/sysroot.h"

/* The parent of path opened beneath the sysroot, and *base its last name. */
static int open_parent(const struct sysroot *sr, const char *path, char *parent, size_t len,
                       const char **base)
{
    const char *slash = strrchr(path, '/');
    if (path[0] != '/' || !slash || !slash[1] || (size_t)(slash - path) + 2 > len)
        return -EINVAL;
    memcpy(parent, path, (size_t)(slash - path));
    parent[slash == path ? 1 : slash - path] = '\0';
    if (slash == path)
        parent[0] = '/';
    *base = slash + 1;
    return sysroot_open_beneath(sr, parent, O_PATH | O_DIRECTORY);
}

/* mkdirat or unlinkat(AT_REMOVEDIR) of path's last name, in its parent
 * opened beneath the sysroot. 0 or -errno. */
static int dir_at_parent(const struct sysroot *sr, const char *path, bool remove)
{
    char parent[4096];
    const char *base;
    int fd = open_parent(sr, path, parent, sizeof parent, &base);
    if (fd < 0)
        return fd;
    int done = remove ? unlinkat(fd, base, AT_REMOVEDIR) : mkdirat(fd, base, 0755);
    int rc = done == 0 ? 0 : -errno;
    close(fd);
    return rc;
}

static int machine_mkdir(const struct tune_dir_io *io, const struct sysroot *sr, const char *path)
{
    (void)io;
    return dir_at_parent(sr, path, false);
}

static int machine_rmdir(const struct tune_dir_io *io, const struct sysroot *sr, const char *path)
{
    (void)io;
    return dir_at_parent(sr, path, true);
}

static int machine_mount(const struct tune_dir_io *io, const struct sysroot *sr, const char *fstype,
                         const char *path)
{
    (void)io;
    if (sr->prefix[0])
        return -EOPNOTSUPP; /* a tree under --sysroot: nothing to mount */
    int fd = sysroot_open_beneath(sr, path, O_PATH | O_DIRECTORY); /* no symlink on the way */
    if (fd < 0)
        return fd;
    close(fd);
    return mount(fstype, path, fstype, MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0 ? 0 : -errno;
}

static int machine_umount(const struct tune_dir_io *io, const struct sysroot *sr, const char *path)
{
    (void)io;
    if (sr->prefix[0])
        return -EOPNOTSUPP;
    return umount2(path, UMOUNT_NOFOLLOW) == 0 ? 0 : -errno;
}

const struct tune_dir_io tune_dir_io_machine = {machine_mkdir, machine_rmdir, machine_mount,
                                                machine_umount, NULL};

int tune_dir_step(const struct tune_dir_io *dirs, const struct sysroot *sr,
                  const struct tune_change *c, bool restore)
{
    const struct tune_dir_io *m = &tune_dir_io_machine;
    if (!dirs)
        dirs = m;
    if (tune_op_refusal(c->action, c->op, c->path))
        return -EPERM;
    int rc;
    if (c->op == TUNE_OP_MKDIR && !restore)
        rc = (dirs->mkdir ? dirs->mkdir : m->mkdir)(dirs, sr, c->path);
    else if (c->op == TUNE_OP_MKDIR) {
        rc = (dirs->rmdir ? dirs->rmdir : m->rmdir)(dirs, sr, c->path);
        if (rc == -ENOENT)
            rc = 0; /* never made, or removed already */
    } else if (c->op == TUNE_OP_MOUNT && !restore)
        rc = (dirs->mount ? dirs->mount : m->mount)(dirs, sr, "resctrl", c->path);
    else if (c->op == TUNE_OP_MOUNT) {
        rc = (dirs->umount ? dirs->umount : m->umount)(dirs, sr, c->path);
        if (rc == -EINVAL || rc == -ENOENT)
            rc = 0; /* not a mount point: never mounted, or unmounted already */
    } else
        rc = -EINVAL;
    return rc;
}

bool tune_inside_made_dir(struct tune_change *const *all, int n, const struct tune_change *c)
{
    if (c->op != TUNE_OP_WRITE)
        return false;
    for (int i = 0; i < n; i++) {
        const struct tune_change *d = all[i];
        size_t len = strlen(d->path);
        if (d->op == TUNE_OP_MKDIR && strncmp(c->path, d->path, len) == 0 && c->path[len] == '/')
            return true;
    }
    return false;
}
