/* SPDX-License-Identifier: MIT */
/*
 * dt_ldso.h: which files the dynamic loader (glibc ld.so, x86-64) maps when
 * a program starts, computed from the files alone.
 *
 * Used by the exec gate (dt_gate.c): before an exec is allowed, it asks for
 * the executable, its interpreter and the DT_NEEDED closure, then looks for
 * USDT notes in each.  Every exec on the machine waits for this, so the
 * resolver reads files with pread() only, caches what it parsed per file
 * (validated by dev, inode, size and mtime) and bounds every loop against
 * hostile files.
 *
 * Thread-safety: a context is used by one thread at a time; nothing global
 * is mutable.  dt_ldso_has_section() keeps no state at all.
 */
#ifndef DT_LDSO_H
#define DT_LDSO_H

#include <stdint.h>
#include <sys/types.h>

typedef struct dt_ldso dt_ldso_t;

/* A resolver context.  Reads /etc/ld.so.cache (again whenever the file
 * changes); a missing or malformed cache is not an error: then only the
 * search paths are used.  NULL only when out of memory. */
dt_ldso_t *dt_ldso_open(void);
void dt_ldso_close(dt_ldso_t *ld);

/*
 * The files a program whose executable is open as fd maps at start: first
 * the executable's own path, then its interpreter (PT_INTERP), then the
 * transitive DT_NEEDED closure in the loader's breadth-first order, each
 * file once (by dev and inode).
 *
 * path is the executable's path, used for the first entry and for $ORIGIN
 * (it should be the real path, as the kernel's /proc/PID/exe);
 * NULL means readlink(/proc/self/fd/FD).  libpath is an LD_LIBRARY_PATH
 * value or NULL.
 *
 * Library paths are those the loader opens (the search directory joined
 * with the name, symlinks not resolved, as ld.so's l_name): compare files by
 * inode, not by name.  Where ld.so would pick one of several candidates by
 * CPU features (glibc-hwcaps and legacy hwcap subdirectories, ld.so.cache
 * entries of several hwcaps, $PLATFORM), every existing candidate is
 * returned: the caller attaches to all of them.
 *
 * Returns the number of paths and stores a malloc'ed array of malloc'ed
 * paths in *out (free with dt_ldso_free_list), or -errno (then *out is
 * NULL).  A non-ELF file (a #! script), a file of another class or machine,
 * or a static one (no PT_DYNAMIC or no PT_INTERP) gives 1.  Libraries not
 * found are left out.  At most DT_LDSO_MAX_FILES files; the search stops
 * early (the list is then partial) past a budget of file probes.
 */
#define DT_LDSO_MAX_FILES	1024
int dt_ldso_startup_files(dt_ldso_t *ld, int fd, const char *path,
			  const char *libpath, char ***out);
void dt_ldso_free_list(char **v, int n);

/* Whether the ELF file open as fd has a section named name, from the
 * section headers and the section name table only (pread, no state;
 * dt_ldso_sect.c).  1, 0, or -errno; a non-ELF file gives 0. */
int dt_ldso_has_section(int fd, const char *name);

/* Read up to len bytes at off of fd; short only at the end of the file.
 * Bytes read or -errno. */
ssize_t dt_ldso_pread(int fd, void *buf, size_t len, uint64_t off);

#endif
