/* SPDX-License-Identifier: MIT */
/*
 * dt_error.c: names of compile error tags.
 *
 * The table is generated from the same X-macro list as the enum in
 * dt_error.h, so a tag and its name cannot drift apart.
 */
#include <stddef.h>
#include <string.h>

#include "dt_error.h"

static const char *const dt_errtag_names[] = {
#define DT_ERRTAG_NAME(t) #t,
	DT_ERRTAGS(DT_ERRTAG_NAME)
#undef DT_ERRTAG_NAME
};

/* The tag named name, or D_UNKNOWN. */
dt_errtag_t dt_errtag_by_name(const char *name)
{
	for (int i = 0; name != NULL && i < D_NTAGS; i++)
		if (strcmp(dt_errtag_names[i], name) == 0)
			return (dt_errtag_t)i;
	return D_UNKNOWN;
}

/* The tag's name ("D_SYNTAX"); "D_UNKNOWN" for a value out of range. */
const char *dt_errtag_name(dt_errtag_t tag)
{
	if ((unsigned)tag >= D_NTAGS)
		return "D_UNKNOWN";
	return dt_errtag_names[tag];
}
