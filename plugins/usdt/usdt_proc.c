/* SPDX-License-Identifier: MIT */
/*
 * usdt_proc.c: the files a process maps, from /proc/PID/maps.
 *
 * Only file-backed mappings of regular files count (a probe site lives in
 * an executable mapping, but a note may be read from any mapping of the
 * file, so every mapping of it is taken).  Each file appears once per
 * process, keyed on (dev, inode) as the maps line gives them.  When the process lives in
 * another mount namespace, the path it shows does not name the same file
 * here; it is then reached through /proc/PID/root, which both libelf and the
 * kernel's uprobe path lookup follow.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "usdt_impl.h"

typedef struct mapping_set {
	usdt_mapping_t *v;
	int n, cap;
} mapping_set_t;

static bool set_has(const mapping_set_t *s, pid_t pid, dev_t dev, ino_t ino)
{
	for (int i = s->n - 1; i >= 0 && s->v[i].pid == pid; i--)
		if (s->v[i].dev == dev && s->v[i].ino == ino)
			return true;
	return false;
}

static int set_add(mapping_set_t *s, pid_t pid, char *path, dev_t dev,
		   ino_t ino)
{
	if (s->n == s->cap) {
		int cap = s->cap ? s->cap * 2 : 32;
		usdt_mapping_t *v = realloc(s->v, (size_t)cap * sizeof(*v));
		if (v == NULL) {
			free(path);
			return -ENOMEM;
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = (usdt_mapping_t){ .path = path, .dev = dev, .ino = ino,
					 .pid = pid };
	return 0;
}

/* The path to open for a mapped file: as shown if it is the same file here,
 * else through the process's root. */
static char *openable_path(pid_t pid, const char *path, dev_t dev, ino_t ino)
{
	struct stat sb;
	char *s = NULL;
	if (stat(path, &sb) == 0 && sb.st_ino == ino && sb.st_dev == dev)
		return strdup(path);
	if (asprintf(&s, "/proc/%d/root%s", (int)pid, path) < 0)
		return NULL;
	if (stat(s, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		free(s);
		return NULL;	/* gone, or (deleted): nothing to probe */
	}
	return s;
}

/* One line of /proc/PID/maps: "lo-hi perms off MAJ:MIN inode  path". */
static int maps_line(pid_t pid, const char *line, mapping_set_t *s)
{
	unsigned maj, min;
	uint64_t ino;
	int pos = 0;
	if (sscanf(line, "%*x-%*x %*s %*x %x:%x %" SCNu64 " %n",
		   &maj, &min, &ino, &pos) < 3 || pos == 0 || ino == 0)
		return 0;
	const char *path = line + pos;
	if (*path != '/')
		return 0;
	dev_t dev = makedev(maj, min);
	if (set_has(s, pid, dev, (ino_t)ino))
		return 0;
	char *copy = strndup(path, strcspn(path, "\n"));
	if (copy == NULL)
		return -ENOMEM;
	char *open = openable_path(pid, copy, dev, (ino_t)ino);
	free(copy);
	if (open == NULL)
		return 0;
	return set_add(s, pid, open, dev, (ino_t)ino);
}

static int proc_scan(pid_t pid, mapping_set_t *s)
{
	char name[64];
	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	FILE *fp = fopen(name, "re");
	if (fp == NULL)
		return -errno;
	char *line = NULL;
	size_t cap = 0;
	int err = 0;
	while (err == 0 && getline(&line, &cap, fp) > 0)
		err = maps_line(pid, line, s);
	free(line);
	fclose(fp);
	return err;
}

int usdt_proc_mappings(pid_t pid, usdt_mapping_t **out)
{
	mapping_set_t s = { 0 };
	int err = proc_scan(pid, &s);
	if (err) {
		usdt_mappings_free(s.v, s.n);
		return err;
	}
	*out = s.v;
	return s.n;
}

int usdt_all_mappings(usdt_mapping_t **out)
{
	mapping_set_t s = { 0 };
	DIR *d = opendir("/proc");
	if (d == NULL)
		return -errno;
	struct dirent *de;
	int err = 0;
	while (err != -ENOMEM && (de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		/* Kernel threads have empty maps; vanished processes and
		 * permission problems are skipped. */
		err = proc_scan((pid_t)atoi(de->d_name), &s);
	}
	closedir(d);
	if (err == -ENOMEM) {
		usdt_mappings_free(s.v, s.n);
		return err;
	}
	*out = s.v;
	return s.n;
}

void usdt_mappings_free(usdt_mapping_t *m, int n)
{
	for (int i = 0; i < n; i++)
		free(m[i].path);
	free(m);
}
