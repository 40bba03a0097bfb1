/* SPDX-License-Identifier: MIT */
/*
 * dtp_budget.c: what one user may hold of dtprobed, and how much of its log
 * a user may fill.
 *
 * Budgets.  A process's registrations count against the user who sent
 * them (SO_PEERCRED's uid; for a process found at start, the owner of
 * /proc/PID): their probe sites, each one entry of the pinned map, and the
 * bytes of their state files.  dtp_state.c refuses a registration that
 * would take its user past either, one whose state file would grow past
 * file_max (readers skip a larger file: USDT_REG_FILE_MAX), and one that
 * would take the unprivileged users together past the map's entries less
 * DTP_MAP_RESERVE, so the privileged always find room.  Root and
 * dtprobed's own user are the privileged: they have no budget, and their
 * connections are served first (dtprobed.c).  Without these, one user's
 * processes filled /run, the map and the daemon's memory in a minute.
 *
 * The log.  Lines about an unprivileged user (refusals) are at most
 * log_lines per user in a window of DTP_LOG_WINDOW seconds, and a
 * refusal for its budget is logged once a window; all unprivileged users
 * together log at most log_total lines a window.  A line past those is
 * counted, and the count logged when the user's window ends
 * (dtp_log_tick()), so a flood costs a few lines, never the disk.
 * Privileged users' lines are not limited.  Users are kept in a small
 * open-addressed table; when it is full (more users logging in one window
 * than it holds) a newcomer's lines are only counted in all.
 */
#include <errno.h>
#include <stdlib.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "dtprobed.h"

#define DTP_LOG_WINDOW	10	/* seconds */
#define DTP_LOG_USERS	256	/* users whose lines are counted apart */
#define DTP_LOG_PROBE	16	/* slots tried for a user */

dtp_limits_t dtp_limits = {
	.user_sites = 8192,
	.user_bytes = 4u << 20,
	.file_max = USDT_REG_FILE_MAX,
	.log_lines = 5,
	.log_total = 100,
};

bool dtp_privileged(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

/* A number with an optional k, m or g suffix (powers of 1024); 0 with *v
 * set, or -1. */
static int parse_amount(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long n;
	int shift = 0;

	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno != 0 || end == s || *s == '-')
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	}
	if (*end != '\0' || n > (UINT64_MAX >> shift))
		return -1;
	*v = (uint64_t)n << shift;
	return 0;
}

int dtp_limits_option(int opt, const char *arg)
{
	uint64_t v;

	if (parse_amount(arg, &v) != 0)
		return -1;
	switch (opt) {
	case 'S': dtp_limits.user_sites = v; break;
	case 'B': dtp_limits.user_bytes = v; break;
	case 'M':
		if (v > USDT_REG_FILE_MAX)
			return -1;	/* readers would skip the file */
		dtp_limits.file_max = v;
		break;
	case 'L':
		if (v > 1000000)
			return -1;
		dtp_limits.log_lines = (int)v;
		break;
	case 'T':
		if (v > 1000000)
			return -1;
		dtp_limits.log_total = (int)v;
		break;
	default:
		return -1;
	}
	return 0;
}

/* ---- the log ---- */

typedef struct user_log {
	uid_t uid;
	bool used;
	time_t window;		/* when the user's window opened */
	int lines;		/* logged in it */
	bool budget_said;	/* its budget refusal was logged in it */
	long suppressed;	/* lines not logged in it */
} user_log_t;

static user_log_t users[DTP_LOG_USERS];
static struct {
	time_t window;
	int lines;
	long suppressed;	/* of users the table had no room for */
} all;

/* End u's window if it is over: log what it suppressed.  True if ended. */
static bool user_window_end(user_log_t *u, time_t now)
{
	if (!u->used || now - u->window < DTP_LOG_WINDOW)
		return false;
	if (u->suppressed > 0)
		dtp_log(LOG_WARNING, "uid %u: %ld lines suppressed in %d s",
			(unsigned)u->uid, u->suppressed, DTP_LOG_WINDOW);
	u->used = false;
	return true;
}

static void all_window_end(time_t now)
{
	if (now - all.window < DTP_LOG_WINDOW)
		return;
	if (all.suppressed > 0)
		dtp_log(LOG_WARNING, "%ld lines of other users suppressed in "
			"%d s", all.suppressed, DTP_LOG_WINDOW);
	all.window = now;
	all.lines = 0;
	all.suppressed = 0;
}

/* uid's entry, opened if need be; NULL when the table is full. */
static user_log_t *user_log(uid_t uid, time_t now)
{
	user_log_t *free_slot = NULL;

	for (unsigned i = 0; i < DTP_LOG_PROBE; i++) {
		user_log_t *u = &users[(uid + i) % DTP_LOG_USERS];

		user_window_end(u, now);
		if (u->used && u->uid == uid)
			return u;
		if (!u->used && free_slot == NULL)
			free_slot = u;
	}
	if (free_slot != NULL)
		*free_slot = (user_log_t){ .uid = uid, .used = true,
					   .window = now };
	return free_slot;
}

bool dtp_log_ok(uid_t uid, bool budget)
{
	time_t now = time(NULL);
	user_log_t *u;

	if (dtp_privileged(uid))
		return true;
	all_window_end(now);
	u = user_log(uid, now);
	if (u == NULL) {
		all.suppressed++;
		return false;
	}
	if ((budget && u->budget_said) || u->lines >= dtp_limits.log_lines ||
	    all.lines >= dtp_limits.log_total) {
		u->suppressed++;
		return false;
	}
	u->lines++;
	u->budget_said |= budget;
	all.lines++;
	return true;
}

void dtp_log_tick(void)
{
	time_t now = time(NULL);

	for (int i = 0; i < DTP_LOG_USERS; i++)
		user_window_end(&users[i], now);
	all_window_end(now);
}
