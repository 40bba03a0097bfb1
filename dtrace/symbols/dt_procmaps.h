/* SPDX-License-Identifier: MIT */
/*
 * dt_procmaps.h: the one reader of /proc/PID/maps, for the engine, dtprobed
 * (both link it from libdtcommon.a) and the plugins (host->proc->maps).
 *
 * A process's mappings are read at one moment into an array, in the
 * kernel's (address) order, one entry per line.  Nothing is filtered: an
 * anonymous mapping has ino 0 and path "", a pseudo one ino 0 and its
 * bracketed name ("[vdso]", "[stack]"), a file its path as the kernel shows
 * it (spaces kept) with deleted set when the kernel marked it " (deleted)"
 * (the suffix stays in path: the file that path names now is another).
 * Nothing here calls into the engine; not thread safe per array.
 */
#ifndef DT_PROCMAPS_H
#define DT_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <dtrace/provider.h>

/* One mapping: the plugins' type (include/dtrace/provider.h). */
typedef dtrace_mapping_t dt_mapping_t;

/* The mappings of pid (0: the calling process) into *maps (free with
 * dt_proc_maps_free) and their count into *n.  0, or -errno: -ESRCH when
 * there is no such process. */
int dt_proc_maps(pid_t pid, dt_mapping_t **maps, size_t *n);
/* The same, from the text of a maps file (tests). */
int dt_proc_maps_read(FILE *fp, dt_mapping_t **maps, size_t *n);
void dt_proc_maps_free(dt_mapping_t *maps, size_t n);

/* Parse one line (without or with its newline) into *m, path pointing into
 * line, which is changed; false when it is not a maps line. */
bool dt_proc_maps_line(char *line, dt_mapping_t *m);

/* The mapping holding addr (start <= addr < end), or NULL.  maps is in
 * address order, as read. */
const dt_mapping_t *dt_proc_map_at(const dt_mapping_t *maps, size_t n,
				   uint64_t addr);

/* Whether m maps a file through a path (provider.h). */
static inline bool dt_mapping_is_file(const dt_mapping_t *m)
{
	return dtrace_mapping_is_file(m);
}

#endif /* DT_PROCMAPS_H */
