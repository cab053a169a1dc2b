/*
 * The steps of a plan that are not file writes (tune_dirs.c): making and
 * removing a resctrl group directory, mounting and unmounting resctrl. Used
 * by tune.c's apply and restore only.
 */
#ifndef JITTERLAB_TUNE_TUNE_DIRS_H
#define JITTERLAB_TUNE_TUNE_DIRS_H

#include <stdbool.h>

#include "tune/tune.h"

/* Does (apply) or undoes (restore) change c, an op other than a write:
 * 0 or -errno. An undo of what is not there (rmdir of an absent directory,
 * umount of what is not mounted) is 0. */
int tune_dir_step(const struct tune_dir_io *dirs, const struct sysroot *sr,
                  const struct tune_change *c, bool restore);
/* Whether c writes a file inside a directory one of the n changes makes. */
bool tune_inside_made_dir(struct tune_change *const *all, int n, const struct tune_change *c);

#endif
