/* SPDX-License-Identifier: MIT */
/*
 * dt_procmaps.c: /proc/PID/maps into an array of mappings (dt_procmaps.h).
 *
 * A line is "start-end perms pgoff major:minor inode" then, after padding,
 * the path to the end of the line: a path may hold spaces, so it is taken
 * whole, never split.  The kernel shows a file deleted or replaced since it
 * was mapped with " (deleted)" appended; that is reported as deleted.  Each
 * entry's path is its own copy, so the array outlives the text.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>

#include "dt_array.h"
#include "dt_procmaps.h"

#define DELETED_SUFFIX	" (deleted)"

static unsigned perms_prot(const char *perms)
{
	return (perms[0] == 'r' ? PROT_READ : 0) |
	       (perms[1] == 'w' ? PROT_WRITE : 0) |
	       (perms[2] == 'x' ? PROT_EXEC : 0);
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len > n && memcmp(s + len - n, suffix, n) == 0;
}

bool dt_proc_maps_line(char *line, dt_mapping_t *m)
{
	char perms[8];
	unsigned maj, min;
	uint64_t ino;
	int pos = 0;
	size_t len;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %"
		   SCNu64 "%n", &m->start, &m->end, perms, &m->pgoff, &maj,
		   &min, &ino, &pos) < 7 || pos == 0 || strlen(perms) < 4)
		return false;
	m->dev = makedev(maj, min);
	m->ino = ino;
	m->prot = perms_prot(perms);
	m->shared = perms[3] == 's';
	line += pos;
	line += strspn(line, " \t");
	len = strcspn(line, "\n");
	line[len] = '\0';
	m->deleted = m->ino != 0 && ends_with(line, len, DELETED_SUFFIX);
	m->path = line;
	return true;
}

void dt_proc_maps_free(dt_mapping_t *maps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free((char *)maps[i].path);
	free(maps);
}

static int maps_push(dt_mapping_t **maps, size_t *n, size_t *cap,
		     const dt_mapping_t *m)
{
	if (DT_ARRAY_ROOM(*maps, *n, *cap) != 0)
		return -ENOMEM;
	(*maps)[*n] = *m;
	if (((*maps)[*n].path = strdup(m->path)) == NULL)
		return -ENOMEM;
	(*n)++;
	return 0;
}

int dt_proc_maps_read(FILE *fp, dt_mapping_t **maps, size_t *n)
{
	char *line = NULL;
	size_t linecap = 0, cap = 0;
	int err = 0;

	*maps = NULL;
	*n = 0;
	while (err == 0 && getline(&line, &linecap, fp) > 0) {
		dt_mapping_t m;

		if (dt_proc_maps_line(line, &m))
			err = maps_push(maps, n, &cap, &m);
	}
	if (err == 0 && ferror(fp))
		err = -EIO;
	free(line);
	if (err != 0) {
		dt_proc_maps_free(*maps, *n);
		*maps = NULL;
		*n = 0;
	}
	return err;
}

int dt_proc_maps(pid_t pid, dt_mapping_t **maps, size_t *n)
{
	char path[64];
	FILE *fp;
	int err;

	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/self/maps");
	else
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((fp = fopen(path, "re")) == NULL) {
		*maps = NULL;
		*n = 0;
		return errno == ENOENT ? -ESRCH : -errno;
	}
	err = dt_proc_maps_read(fp, maps, n);
	fclose(fp);
	return err;
}

const dt_mapping_t *dt_proc_map_at(const dt_mapping_t *maps, size_t n,
				   uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {	/* the first mapping ending after addr */
		size_t mid = lo + (hi - lo) / 2;

		if (maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && maps[lo].start <= addr ? &maps[lo] : NULL;
}
