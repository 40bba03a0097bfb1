/* SPDX-License-Identifier: MIT */
/*
 * dt_procfs.h: what the engine, the exec gate and dtprobed read of
 * another process in /proc (dt_procfs.c; also in libdtcommon.a): its
 * state, parent and start time (/proc/PID/stat), a variable of its
 * environment (/proc/PID/environ), a path as it names it
 * (/proc/PID/root, /proc/PID/cwd), and its mount namespace.
 *
 * Nothing here allocates or keeps state: the exec gate's watchdog, a
 * process forked from a threaded dtrace, reads /proc/PID/stat and the
 * namespaces, and a buffer for the environment is the caller's.  Its
 * mappings are dt_procmaps.h's.
 */
#ifndef DT_PROCFS_H
#define DT_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What is read of /proc/PID/stat. */
typedef struct dt_procfs_stat {
	char state;		/* R, S, D, Z, T (stopped), t (traced)... */
	int ppid;
	uint64_t start_time;	/* clock ticks after boot (field 22) */
} dt_procfs_stat_t;

/* /proc/PID/stat of pid into *st: 0, -errno when it cannot be read
 * (-ENOENT: gone), -EINVAL when it is not as the kernel writes it. */
int dt_procfs_stat(pid_t pid, dt_procfs_stat_t *st);

/* The value of variable name in the environment pid was started with,
 * the first that getenv() would find, or NULL; read into buf (size bytes,
 * a longer environment is cut there), where the value lives. */
const char *dt_procfs_getenv(pid_t pid, const char *name, char *buf,
			     size_t size);

/* path as process pid names it, reached from here whatever its mount
 * namespace and root: /proc/PID/root/PATH for an absolute path, else
 * /proc/PID/cwd/PATH; false when it does not fit in buf. */
bool dt_procfs_path(pid_t pid, const char *path, char *buf, size_t size);

/* A mount namespace. */
typedef struct dt_mntns {
	dev_t dev;
	ino_t ino;
} dt_mntns_t;

/* The mount namespace of pid (0: this process): 0 or -errno (gone). */
int dt_procfs_mntns(pid_t pid, dt_mntns_t *ns);

/* Whether pid runs in a mount namespace other than home (NULL: this
 * process's): 1, 0, or -1 when it cannot be told (pid is gone). */
int dt_procfs_foreign(pid_t pid, const dt_mntns_t *home);

#endif /* DT_PROCFS_H */
