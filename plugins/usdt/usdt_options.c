/* SPDX-License-Identifier: MIT */
/*
 * usdt_options.c: the usdt provider's options (-x usdt.NAME=VALUE; the
 * engine checks the names against usdt_option_list and lists them in
 * dtrace -x help).
 *
 *   files	how many files with USDT probes a session keeps
 *		(usdt_prov.c, "files_max"; -x usdtfiles is the engine's
 *		name for it)
 *   sitemode	which instruction of a site of <dtrace/usdt.h> a probe goes
 *		on (usdt_place.c)
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "usdt_impl.h"

const dtrace_option_t usdt_option_list[] = {
	{ "files", "how many files with USDT probes a session keeps, those "
		   "of processes that start while tracing included (1024 by "
		   "default); past it, the probes of other such files are "
		   "not traced, and dtrace says so" },
	{ "sitemode", "auto (default): a probe goes on the 5-byte nop of "
		      "sites that <dtrace/usdt.h> made when the kernel "
		      "makes it a call that forked children survive, else on "
		      "the nop the note names; classic: always on that nop; "
		      "nop5: always on the 5-byte nop" },
	{ NULL, NULL },
};

static int set_files(const dtrace_host_t *h, dtrace_provider_t *pv,
		     const char *value, int *files_max)
{
	char *end = NULL;
	long n = value != NULL ? strtol(value, &end, 10) : -1;

	if (value == NULL || *value == '\0' || *end != '\0' || n < 0 ||
	    n > INT_MAX) {
		h->report->error(pv, "usdt: -x usdt.files=%s: expected a count",
				 value ? value : "");
		return -EINVAL;
	}
	*files_max = (int)n;
	return 0;
}

static int set_sitemode(const dtrace_host_t *h, dtrace_provider_t *pv,
			const char *value, usdt_placement_t *place)
{
	if (usdt_sitemode_parse(value, &place->mode) == 0)
		return 0;
	h->report->error(pv,
			 "usdt: -x usdt.sitemode=%s: expected auto, classic or "
			 "nop5",
			 value ? value : "");
	return -EINVAL;
}

int usdt_option_set(const dtrace_host_t *h, dtrace_provider_t *pv,
		    const char *name, const char *value, int *files_max,
		    usdt_placement_t *place)
{
	if (strcmp(name, "sitemode") == 0)
		return set_sitemode(h, pv, value, place);
	return set_files(h, pv, value, files_max);
}
