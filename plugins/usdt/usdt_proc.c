/* SPDX-License-Identifier: MIT */
/*
 * usdt_proc.c: the files a process maps, from its mappings as the engine's
 * one reader of /proc/PID/maps gives them (host->proc_maps).
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* One mapping of pid: its file, once per process. */
static int mapping_add(pid_t pid, const dtrace_mapping_t *m, mapping_set_t *s)
{
	if (!dtrace_mapping_is_file(m) || m->deleted)
		return 0;	/* anonymous, pseudo, or nothing to probe */
	dev_t dev = (dev_t)m->dev;
	if (set_has(s, pid, dev, (ino_t)m->ino))
		return 0;
	char *open = openable_path(pid, m->path, dev, (ino_t)m->ino);
	if (open == NULL)
		return 0;
	return set_add(s, pid, open, dev, (ino_t)m->ino);
}

static int proc_scan(const dtrace_host_t *h, pid_t pid, mapping_set_t *s)
{
	dtrace_mapping_t *maps;
	size_t n;
	int err = h->proc_maps(pid, &maps, &n);
	if (err)
		return err;
	for (size_t i = 0; err == 0 && i < n; i++)
		err = mapping_add(pid, &maps[i], s);
	h->proc_maps_free(maps, n);
	return err;
}

int usdt_proc_mappings(const dtrace_host_t *h, pid_t pid,
		       usdt_mapping_t **out)
{
	mapping_set_t s = { 0 };
	int err = proc_scan(h, pid, &s);
	if (err) {
		usdt_mappings_free(s.v, s.n);
		return err;
	}
	*out = s.v;
	return s.n;
}

int usdt_all_mappings(const dtrace_host_t *h, usdt_mapping_t **out)
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
		err = proc_scan(h, (pid_t)atoi(de->d_name), &s);
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
