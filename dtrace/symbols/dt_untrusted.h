/* SPDX-License-Identifier: MIT */
/*
 * dt_untrusted.h: opening a file that another process names, for the
 * engine and dtprobed (both link it from libdtcommon.a).
 *
 * A path found in /proc (a mapping's, /proc/PID/exe, /proc/PID/root/...),
 * read from a process's memory, built by the loader's search from a
 * process's environment and its files' run paths, or derived from such a
 * file (its debug file), names whatever its owner puts there when dtrace
 * gets to it: a FIFO, whose open() blocks until a writer comes, a symbolic
 * link to a device, whose open() may do anything.  Such a path is opened
 * only here: O_PATH first, which opens nothing but the name, then the
 * descriptor's own file type is checked, and a regular file is opened for
 * reading through that descriptor (/proc/self/fd/N), so that what is read
 * is the file that was checked.  Nothing here ever blocks on what a user
 * put at a path, and no caller stat()s a path and then opens it trusting
 * what stat() said.
 *
 * A regular file's read() and pread() do not block; what a caller reads
 * stops at the size fstat() gave for the open descriptor (st_size of the
 * returned stat) and at its own bound.
 */
#ifndef DT_UNTRUSTED_H
#define DT_UNTRUSTED_H

#include <sys/stat.h>
#include <sys/types.h>

/* Open the regular file at path for reading (O_RDONLY, O_CLOEXEC,
 * O_NOCTTY; O_NONBLOCK, which a regular file ignores, stays set), its
 * fstat() in *st when st is not NULL.  The descriptor, or -errno: -ENXIO
 * when path names anything but a regular file, -ESTALE when the name was
 * swapped between the check and the open (the /proc fallback). */
int dt_open_untrusted(const char *path, struct stat *st);

/* The same, refusing with -ESTALE a file other than (dev, ino): the file
 * /proc said a process maps, or the one a stat() found. */
int dt_open_untrusted_id(const char *path, dev_t dev, ino_t ino,
			 struct stat *st);

#endif /* DT_UNTRUSTED_H */
