/* SPDX-License-Identifier: MIT */
/*
 * usdt_proc.c: the files a process maps, from its mappings as the engine's
 * one reader of /proc/PID/maps gives them (host->proc->maps).
 *
 * Only file-backed mappings of regular files count (a probe site lives in
 * an executable mapping, but a note may be read from any mapping of the
 * file, so every mapping of it is taken).  Each file appears once per
 * process, keyed on (dev, inode) as the maps line gives them.  When the process lives in
 * another mount namespace, the path it shows does not name the same file
 * here; it is then reached through /proc/PID/root, which both libelf and the
 * kernel's uprobe path lookup follow.
 *
 * A scan of every process checks a file's path once: the processes that map
 * the same (dev, inode) as one whose path named it here take that path
 * without a stat (a machine with thousands of processes maps a few hundred
 * files).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "usdt_impl.h"

/* A file whose path names it here: v[idx] maps it. */
typedef struct named_here {
	usdt_devino_t id;	/* first: the key */
	int idx;
} named_here_t;

typedef struct mapping_set {
	usdt_mapping_t *v;
	int n, cap;
	dtrace_htab_t here;	/* of named_here_t */
} mapping_set_t;

#define MAPPING_SET_INIT \
	{ .here = DTRACE_HTAB_INIT(named_here_t, usdt_devino_eq) }

/* A mapping of the file (dev, ino) whose path names it here, found earlier
 * in this scan, or NULL. */
static const usdt_mapping_t *set_known_here(const mapping_set_t *s, dev_t dev,
					    ino_t ino)
{
	usdt_devino_t key = { dev, ino };
	const named_here_t *k = dtrace_htab_find(&s->here,
						 usdt_devino_hash(dev, ino),
						 &key);
	return k ? &s->v[k->idx] : NULL;
}

/* Remember that v[idx]'s path names its file here.  Out of memory, the
 * next process that maps it merely costs a stat. */
static void set_remember_here(mapping_set_t *s, int idx)
{
	usdt_devino_t key = { s->v[idx].dev, s->v[idx].ino };
	named_here_t *k = dtrace_htab_insert(&s->here,
					     usdt_devino_hash(key.dev, key.ino),
					     &key, NULL);
	if (k != NULL)
		*k = (named_here_t){ .id = key, .idx = idx };
}

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
	if (DTRACE_ARRAY_ROOM(s->v, s->n, s->cap) < 0) {
		free(path);
		return -ENOMEM;
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
	const usdt_mapping_t *known = set_known_here(s, dev, (ino_t)m->ino);
	char *open = known ? strdup(known->path) :
			     openable_path(pid, m->path, dev, (ino_t)m->ino);
	if (open == NULL)
		return 0;
	bool here = known == NULL && strcmp(open, m->path) == 0;
	int err = set_add(s, pid, open, dev, (ino_t)m->ino);
	if (err == 0 && here)
		set_remember_here(s, s->n - 1);
	return err;
}

static int proc_scan(const dtrace_host_t *h, pid_t pid, mapping_set_t *s)
{
	dtrace_mapping_t *maps;
	size_t n;
	int err = h->proc->maps(pid, &maps, &n);
	if (err)
		return err;
	for (size_t i = 0; err == 0 && i < n; i++)
		err = mapping_add(pid, &maps[i], s);
	h->proc->maps_free(maps, n);
	return err;
}

int usdt_proc_mappings(const dtrace_host_t *h, pid_t pid,
		       usdt_mapping_t **out)
{
	mapping_set_t s = MAPPING_SET_INIT;
	int err = proc_scan(h, pid, &s);
	dtrace_htab_fini(&s.here);
	if (err) {
		usdt_mappings_free(s.v, s.n);
		return err;
	}
	*out = s.v;
	return s.n;
}

int usdt_all_mappings(const dtrace_host_t *h, usdt_mapping_t **out)
{
	mapping_set_t s = MAPPING_SET_INIT;
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
	dtrace_htab_fini(&s.here);
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
