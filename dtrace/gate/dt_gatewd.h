/* SPDX-License-Identifier: MIT */
/*
 * dt_gatewd.h: the exec gate's watchdog (dt_gatewd.c), a process of its own
 * that answers the kernel for every exec the gate holds, and the messages
 * it exchanges with the gate thread of dtrace (dt_gate.c) over a
 * SOCK_SEQPACKET socket pair.
 */
#ifndef DT_GATEWD_H
#define DT_GATEWD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "dt_hash.h"

#define GATE_HOLD_MAX_MS	500	/* longest an exec is held, whatever
					 * state dtrace is in */

/* A file as the gate knows it: a rewritten file is a new one. */
typedef struct gate_key {
	dev_t dev;
	ino_t ino;
	int64_t mtime_ns;
} gate_key_t;

static inline gate_key_t gate_key_of(const struct stat *sb)
{
	return (gate_key_t){
		.dev = sb->st_dev, .ino = sb->st_ino,
		.mtime_ns = (int64_t)sb->st_mtim.tv_sec * 1000000000 +
			    sb->st_mtim.tv_nsec,
	};
}

static inline bool gate_key_eq(const gate_key_t *a, const gate_key_t *b)
{
	return a->dev == b->dev && a->ino == b->ino &&
	       a->mtime_ns == b->mtime_ns;
}

static inline uint64_t gate_key_hash(const gate_key_t *k)
{
	uint64_t h = dt_hash_u64(DT_HASH_INIT, (uint64_t)k->dev);

	h = dt_hash_u64(h, (uint64_t)k->ino);
	return dt_hash_u64(h, (uint64_t)k->mtime_ns);
}

/* What the watchdog counted, sent back when dtrace stops it. */
typedef struct gatewd_stats {
	uint64_t nexec;		/* exec events */
	uint64_t ncached;	/* answered from the cache */
	uint64_t nforwarded;	/* held for dtrace's answer */
	uint64_t nbound;	/* of those, let go at the bound */
	uint64_t npassed;	/* let go at once: dtrace stopped or late */
	uint64_t wait_sum_ns, wait_max_ns;	/* of the forwarded ones */
} gatewd_stats_t;

/* Watchdog -> dtrace: an exec to look at (with its file as SCM_RIGHTS),
 * or the statistics (after WD_STOP). */
enum { WD_EXEC = 1, WD_STATS };

typedef struct gatewd_req {
	uint32_t kind;
	uint32_t seq;
	int32_t pid;
	uint32_t answered;	/* the exec went on already: learn only */
	uint32_t foreign;	/* the loader's open by a process of another
				 * mount namespace (see WD_INTERP) */
	uint64_t deadline_ns;	/* CLOCK_MONOTONIC; the watchdog lets the
				 * exec go then */
	gate_key_t key;		/* of the executable */
	gatewd_stats_t stats;	/* WD_STATS */
} gatewd_req_t;

/* dtrace -> watchdog: the answer to a WD_EXEC; the map to mark covered
 * execs in (SCM_RIGHTS, none: stop marking); stop. */
enum { WD_ANSWER = 1, WD_ARM, WD_STOP };

/* Flags of a WD_ANSWER. */
#define WD_SETTLED	0x1	/* every start-up file seen: let its later
				 * execs go at once */
#define WD_DYNAMIC	0x2	/* started by the loader: mark covered (else
				 * the kernel is told to drop its events) */
#define WD_WATCH	0x8	/* its start-up files carry USDT notes: each
				 * exec of it still needs the exec watch's
				 * event, which names the process's probes
				 * (neither marked covered nor ignored) */
#define WD_INTERP	0x4	/* the loader itself, which every dynamic
				 * exec opens after the program: its events
				 * keep coming, answered at once but for a
				 * process of another mount namespace, held
				 * for dtrace, which finds the program it
				 * starts (on a filesystem the gate may not
				 * have marked) */

typedef struct gatewd_cmd {
	uint32_t kind;
	uint32_t seq;
	uint32_t flags;
	int32_t value;		/* WD_ARM: what to write under the pid */
	gate_key_t key;		/* WD_ANSWER: echoes the request's */
} gatewd_cmd_t;

/* Start the watchdog on the fanotify group fan_fd, which it then owns
 * (the caller closes its copy).  Its end of the socket pair in *sock, its
 * pid in *pid.  0 or -errno. */
int dt_gatewd_start(int fan_fd, int *sock, pid_t *pid);

/* Send one message with an optional descriptor (fd < 0: none).  true when
 * sent whole. */
bool dt_gatewd_send(int sock, const void *msg, size_t len, int fd, int flags);

/* Receive one message and the descriptor it carries (-1: none) into *fd.
 * The length read, 0 at the end, -1 on error (errno). */
ssize_t dt_gatewd_recv(int sock, void *msg, size_t len, int *fd, int flags);

#endif /* DT_GATEWD_H */
