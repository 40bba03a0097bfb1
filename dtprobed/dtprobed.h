/* SPDX-License-Identifier: MIT */
/*
 * dtprobed.h: the parts of dtprobed.
 *
 *   dtprobed.c	options, the socket, the main loop, logging
 *   dtp_msg.c	checks a registration message and turns it into the state
 *		text format (usdt_reg.c), in a parser process jailed with
 *		seccomp strict mode
 *   dtp_state.c	processes and their registrations: /proc lookups (the
 *		mappings through libdtcommon's dt_proc_maps), state
 *		files, the pinned BPF map, liveness checks
 *   dtp_discover.c	at start, registers the running programs whose
 *		registration was sent while no daemon listened
 *   dtp_budget.c	what each user may hold (sites, bytes of state) and
 *		log; who is privileged
 *   dtp_subs.c	the subscribed dtrace sessions, and the registrations
 *		whose answer waits for their acks
 *
 * What it shares: the USDT contract of libusdt/ (the message, the state
 * files' reader and writer, the pinned map's key and value, the
 * .dtrace_prov declarations), and of the engine the headers of
 * libdtcommon.a only (dt_elf.h, dt_procmaps.h, dt_untrusted.h: the
 * Makefile's COMMON_INCS).  Nothing of the usdt plugin.
 */
#ifndef DTPROBED_H
#define DTPROBED_H

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "dtprobed_proto.h"	/* libusdt: the registration message */
#include "usdt_reg.h"		/* libusdt: the state files, the pinned map */
#include "usdt_reg_impl.h"
#include "dt_procmaps.h"	/* dt_proc_maps(), from libdtcommon.a */

/* Log a message: to stderr in -F mode, else to syslog. */
void dtp_log(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* dtp_budget.c.  The limits in force (dtprobed's options). */
typedef struct dtp_limits {
	uint64_t user_sites;	/* -S: sites (map entries) of a user */
	uint64_t user_bytes;	/* -B: bytes of state files of a user */
	uint64_t file_max;	/* -M: bytes of one state file, for anyone */
	int log_lines;		/* -L: lines of a user a log window */
	int log_total;		/* -T: lines of all users a log window */
} dtp_limits_t;
extern dtp_limits_t dtp_limits;
/* Entries of the pinned map that unprivileged users never take. */
#define DTP_MAP_RESERVE		(USDT_REG_MAP_ENTRIES / 4)
/* Root and dtprobed's own user: no budget, served first. */
bool dtp_privileged(uid_t uid);
/* Set the limit of option opt (S, B, M, L, T) from arg; 0 or -1. */
int dtp_limits_option(int opt, const char *arg);
/* May a line about uid be logged now?  budget: it is a refusal for the
 * user's budget (logged once a window).  Counts it if not. */
bool dtp_log_ok(uid_t uid, bool budget);
/* Log the counts of lines suppressed in the windows that ended. */
void dtp_log_tick(void);

/* What dtp_state_apply*() return on a refusal: the registration is
 * wrong, or it would take its user past a budget. */
#define DTP_REFUSED		(-1)
#define DTP_OVER_BUDGET		(-2)

/* dtp_msg.c.  The argument that makes dtprobed the parser of one message
 * (dtp_msg_parser_main()), not a daemon. */
#define DTP_PARSER_ARG	"--parse-one-message"
_Noreturn void dtp_msg_parser_main(void);
/* Start the parser of the next message, if none is waiting. */
void dtp_msg_prepare(void);
/* Check msg (len bytes, untrusted) in a jailed parser: on success
 * *op, *base and *reg (one registration, pid and module not filled) are set;
 * else -1 and why says what is wrong. */
int dtp_msg_parse(const void *msg, size_t len, int *op, uint64_t *base,
		  usdt_reg_t **reg, char *why, size_t whysz);
/* The header's checks of msg (len bytes, untrusted), in the calling
 * process: 0 with the module's base address, or -1 with why. */
int dtp_msg_header(const void *msg, size_t len, uint64_t *base, char *why,
		   size_t whysz);
/* Is msg (len bytes, untrusted) an unregistration? */
bool dtp_msg_is_unregistration(const void *msg, size_t len);
/* Read what an unregistration names: its provider and first site, in the
 * calling process (no child); 0, or -1 with why. */
int dtp_msg_unregistration(const void *msg, size_t len,
			   char provider[DTPV_NAME_MAX], uint64_t *site,
			   char *why, size_t whysz);
/* The same check, in the calling process (for the parser and the fuzzer):
 * writes the state text to fd; 0 or -1 with why. */
int dtp_msg_convert(const unsigned char *msg, size_t len, int fd,
		    char *why, size_t whysz);

/* dtp_state.c */
/* Has pid a registration of the file (dev, ino)? */
bool dtp_state_has_file(pid_t pid, uint64_t dev, uint64_t ino);
int dtp_state_init(const char *statedir, const char *mappath);
/* Apply a checked message of process pid; DTP_REFUSED or
 * DTP_OVER_BUDGET with why when refused.  Its user is the owner of
 * /proc/PID. */
int dtp_state_apply(pid_t pid, int op, uint64_t base, usdt_reg_t *reg,
		    char *why, size_t whysz);
/* What a registration needs of its process, read while it lives. */
typedef struct dtp_snap {
	uint64_t start;			/* the process's start time */
	dt_mapping_t *maps;		/* its mappings */
	size_t nmaps;
	const dt_mapping_t *module;	/* the one at the message's base */
	uint64_t bias;			/* the module's load bias */
	uid_t uid;			/* whose budget it counts against */
} dtp_snap_t;
/* Take pid's snapshot for a registration of base; 0, or -1 with why.
 * Its uid is the owner of /proc/PID: a caller that knows the sender's
 * credentials sets it. */
int dtp_state_snap(pid_t pid, uint64_t base, dtp_snap_t *s, char *why,
		   size_t whysz);
void dtp_state_snap_free(dtp_snap_t *s);
/* Apply a checked registration of pid, against its snapshot (whether or
 * not pid still lives); DTP_REFUSED or DTP_OVER_BUDGET with why when
 * refused. */
int dtp_state_apply_snap(pid_t pid, const dtp_snap_t *snap, usdt_reg_t *reg,
			 char *why, size_t whysz);
/* End pid's registration of provider whose first site is site, if any. */
void dtp_state_unregister(pid_t pid, const char *provider, uint64_t site);
/* Forget processes that exited or exec'd. */
void dtp_state_check(void);
/* Would nsites more sites take uid (sending from pid) past its budget?
 * An early look, from the message's header, before it is parsed: the
 * sites pid holds already are not counted, since they may be replaced.
 * true with why when so. */
bool dtp_state_over_budget(uid_t uid, pid_t pid, uint64_t nsites, char *why,
			   size_t whysz);
/* Messages of pid in the current window: false when over the limit. */
bool dtp_state_rate_ok(pid_t pid);

/* dtp_subs.c.  The subscribed dtrace sessions (at most DTP_SUBS_MAX),
 * and the registrations whose answer waits for their acks (DTP_ACK_MS at
 * most). */
#define DTP_SUBS_MAX	16
#define DTP_ACK_MS	100
struct pollfd;
struct ucred;
/* CLOCK_MONOTONIC in milliseconds. */
uint64_t dtp_now_ms(void);
/* Send the answer op (DTPV_OP_DONE, DTPV_OP_REFUSED) to pid on cfd. */
void dtp_answer(int cfd, pid_t pid, int op);
int dtp_subs_count(void);
/* Keep cfd, whose peer has cred, as a subscriber; true if kept (else
 * refused, logged, and cfd is the caller's to close). */
bool dtp_subs_add(int cfd, const struct ucred *cred);
/* The subscribers' descriptors, for poll(); returns their count. */
int dtp_subs_pollfds(struct pollfd *pfd);
/* Read what the subscribers sent (pfd as dtp_subs_pollfds() filled it,
 * after poll()): their acks answer the registrations they waited for. */
void dtp_subs_read(const struct pollfd *pfd, int n);
/* The same without waiting: poll, read, expire. */
void dtp_subs_poll(void);
/* pid registered, on cfd: tell the subscribers.  true when cfd waits for
 * their acks (it is then answered and closed here); false when it was
 * answered at once (none to wait for) and is the caller's to close. */
bool dtp_subs_notify(pid_t pid, int cfd);
/* Answer the registrations past their time (a subscriber that did not ack
 * is no longer waited for until it does); the milliseconds until the next
 * one's time, or -1 when none waits. */
int dtp_subs_expire(void);
/* Answer every waiting registration and close the subscriptions. */
void dtp_subs_close(void);
/* The file that tells dtrace -G's fork handler whether a session may want
 * children registered (DTPV_TRACING_SUFFIX beside sock): init removes a
 * stale one; note (a subscription, a privileged reader's sync) makes it
 * for DTPV_TRACING_MS at least; update removes it past that with no
 * subscriber; close removes it. */
void dtp_tracing_init(const char *sock);
void dtp_tracing_note(void);
void dtp_tracing_update(void);
void dtp_tracing_close(void);

/* dtp_discover.c.  Register, as if they had sent it, the `dtrace -G`
 * registrations of running processes that the state does not hold and
 * that would have sent them to sock. */
void dtp_discover(const char *sock);

#endif /* DTPROBED_H */
